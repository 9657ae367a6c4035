"""The "Next:" line: after a match of the draw, where each player goes next (the hub's
``table/{t}/next``, docs/protocol.md §3.8), on that player's half of the result screen in his
language.

The hub says *what* (a kind, a table, a round, an opponent's name, a flight's name as the draw
file has it); the sentence is the table's, so that each language says it whole. Whole sentences
per case rather than pieces put together: Greek, Bulgarian and Hungarian do not order "table",
"round" and "vs" as English does. The flight's name is the organiser's word and is shown as it
is written in the draw file.
"""

from __future__ import annotations

from collections.abc import Mapping

from kiosk.ui.i18n import N_, Translator
from rulebook.messages import NextLine, NextMessage

#: (kind, a flight left behind?) -> the sentence
SENTENCES: Mapping[tuple[str, bool], str] = {
    ("called", False): N_("Next: table {table} — round {round} vs {opponent}"),
    ("called", True): N_(
        "Out of the {left} flight — next: table {table}, {flight} round {round} vs {opponent}"
    ),
    ("ready", False): N_("Next: round {round} vs {opponent} — your table will be called"),
    ("ready", True): N_("Out of the {left} flight — next: {flight} round {round} vs {opponent}"),
    ("waiting", True): N_(
        "Out of the {left} flight — next: {flight} round {round}, waiting for your opponent"
    ),
    ("won", False): N_("You won the {flight} flight!"),
    ("out", False): N_("Out of the {flight} flight — thank you for playing"),
}
#: a ``waiting`` line in the same flight: whose result the opponent comes from, at which table
WAITING: Mapping[str | None, str] = {
    "winner": N_("Next: round {round} — waiting for the winner of table {from_table}"),
    "loser": N_("Next: round {round} — waiting for the loser of table {from_table}"),
    None: N_("Next: round {round} — waiting for your opponent"),
}


def text(tr: Translator, line: NextLine) -> str:
    """The line in the language of ``tr``."""
    kind, left = line["kind"], line["left"]
    if kind == "waiting" and not left:
        sentence = WAITING[line["waits_for"] if line["from_table"] else None]
    else:
        # ``won`` and ``out`` name their own flight: a ``left`` there says nothing more
        sentence = SENTENCES[(kind, bool(left) and kind in ("called", "ready", "waiting"))]
    return tr(sentence).format(
        table=line["table"] or "",
        round=line["round"] or "",
        opponent=line["opponent"] or "",
        flight=line["flight"],
        left=left or "",
        from_table=line["from_table"] or "",
    )


def for_match(message: NextMessage | None, match_id: object) -> NextMessage | None:
    """The hub's lines if they follow the match on the screen (an older match's are not shown)."""
    if message is None or match_id is None or message["match_id"] != match_id:
        return None
    return message
