"""The draw's one exception family: every refusal a code and the values its message names.

Shaped as :class:`rulebook.errors.RuleError` (STYLE.md 1, 4): the code is the contract a
dashboard or an import preview translates; the English message is for a log. A refusal of the
draw is also the ``ValueError`` it means, so a caller that only knows the standard library still
catches it. It hangs under the hub's one root, :class:`hub.errors.HubError` (a module of its
own, with no imports: the draw stays pure).
"""

from __future__ import annotations

from typing import Any

from hub.errors import HubError

MESSAGES: dict[str, str] = {
    # -- a flight's definition
    "draw.flight.name": "flight {flight!r}: a name is letters, digits and _ only",
    "draw.flight.repeated": "flight {flight!r} is defined twice",
    "draw.flight.unknown": "no flight {flight!r}",
    "draw.flight.size": "flight {flight!r}: the size is a power of two from 2 to {limit}, not {size}",
    "draw.flight.lengths": "flight {flight!r}: match lengths are 1 to {limit} points, at least one",
    "draw.flight.no_feeds": "flight {flight!r}: a fed flight needs at least one feed",
    "draw.feed.source": "flight {flight!r}: it is fed by {source!r}, which is not defined before it",
    "draw.feed.round": "flight {flight!r}: {source!r} has no round {round}",
    "draw.feed.repeated": "flight {flight!r}: the losers of {source!r} round {round} are fed twice",
    "draw.feed.count": (
        "flight {flight!r}: {count} losers of {source!r} round {round} cannot meet the {winners} "
        "players still in"
    ),
    "draw.feed.first": "flight {flight!r}: {count} losers of {source!r} round {round} cannot start a bracket",
    "draw.profile.unknown": "flight {flight!r}: no profile {profile!r} (known: {known})",
    # -- a draw
    "draw.entries.count": "flight {flight!r}: {count} entries for {size} places (more than half of them)",
    "draw.entries.player": "a player key is a non-empty string without spaces at its ends, not {player!r}",
    "draw.entries.repeated": "flight {flight!r}: player {player!r} is entered twice",
    "draw.entries.seeds": "flight {flight!r}: seeds are 1 to {count} once each, not {seeds}",
    "draw.draw.flight": "flight {flight!r} is fed by other flights: it is not drawn",
    "draw.draw.missing": "flight {flight!r} has no draw",
    "draw.draw.size": "flight {flight!r}: a draw of {got} places for a flight of {size}",
    # -- a drawn bracket's CSV
    "draw.csv.columns": "the draw's CSV needs the columns {missing}",
    "draw.csv.position": "line {line}: position {position!r} is not a whole number from 1 to {size}",
    "draw.csv.repeated": "line {line}: position {position} of flight {flight!r} is given twice",
    "draw.csv.seed": "line {line}: seed {seed!r} is not a whole number from 1",
    # -- results and withdrawals
    "draw.match.unknown": "no match {match!r}",
    "draw.result.not_ready": "match {match}: its players are not known yet, or it needs no play ({state})",
    "draw.result.not_a_player": "match {match}: {winner!r} is not one of its players",
    "draw.result.points": "match {match}: points are whole numbers from 0, not {points}",
    "draw.result.none": "match {match} has no result",
    "draw.result.repeated": "match {match} has a result already (undo it first)",
    "draw.result.dependent": "match {match}: the results of {dependents} depend on it (undo them first)",
    "draw.player.unknown": "player {player!r} is not in the draw",
    "draw.player.withdrawn": "player {player!r} has withdrawn already",
    "draw.player.not_withdrawn": "player {player!r} has not withdrawn",
    # -- calls
    "draw.call.grace": "the walking grace is 0 to {limit} ms, not {grace}",
    "draw.call.none": "match {match} has no live call",
    "draw.call.table_unknown": "no table {table}",
    "draw.call.table_busy": "table {table} is not free ({match})",
}


class DrawError(HubError, ValueError):
    """A definition, a draw, a result or an action the draw refuses; nothing has changed."""

    code: str
    params: dict[str, Any]

    def __init__(self, code: str, /, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    @property
    def message(self) -> str:
        """The English message (formatted only when read)."""
        template = MESSAGES.get(self.code)
        if template is None:
            return f"{self.code} {self.params}"
        try:
            return template.format(**self.params)
        except (KeyError, IndexError, ValueError):
            return f"{self.code} {self.params}"

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.params!r})"
