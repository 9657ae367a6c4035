"""Messages that name protocol values (pause reasons, end reasons, result kinds), for translation."""

from __future__ import annotations

from kiosk.ui.i18n import N_

#: pause reasons (PROTOCOL §1) as shown on the pause dialog and under "Clock paused"
PAUSE_REASONS: dict[str, str] = {
    "game_over": N_("Game over: setting up the result"),
    "break": N_("Break"),
    "td": N_("Paused by the TD"),
    "dispute": N_("Dispute: the TD is called"),
    "premature_pickup": N_("Dice picked up too early"),
    "illegal_move": N_("Illegal move to correct"),
    "claim": N_("A player claims the game is over"),
    "invalid_roll": N_("Invalid roll"),
    "equipment": N_("Fallen equipment"),
    "agreement": N_("Both players agree"),
    "power_loss": N_("Power cut"),
}

#: the same reasons as the choices of the pause dialog (buttons, so worded apart from the states)
PAUSE_CHOICES: dict[str, str] = {
    "game_over": N_("Set up the result"),
    "dispute": N_("Dispute: call the TD"),
    "claim": N_("Claim the game is over"),
    "illegal_move": N_("Correct an illegal move"),
    "premature_pickup": N_("Early pickup of the dice"),
    "invalid_roll": N_("Invalid roll: stop the clock"),
    "equipment": N_("Pick up fallen equipment"),
    "agreement": N_("Both players agree to pause"),
}

#: how a match ended (snapshot ``end_reason``)
END_REASONS: dict[str, str] = {
    "points": N_("Won on points"),
    "time": N_("Won on time"),
    "forfeit": N_("Won by forfeit"),
    "lateness": N_("Won by forfeit: lateness"),
    "td": N_("Decided by the TD"),
    "double_loss": N_("Both players lose (FFBG 10.3)"),
}

#: result kinds
KINDS: dict[str, str] = {
    "single": N_("Single game"),
    "gammon": N_("Gammon"),
    "backgammon": N_("Backgammon"),
    "pass": N_("Double passed"),
}
