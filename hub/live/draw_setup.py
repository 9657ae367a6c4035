"""How the TD defines the event's draw: a TOML file (``bghub run --draw FILE.toml``) read into a
:class:`DrawSetup` — the flights, their draws (drawn here from the entries with a recorded seed,
or a drawn bracket's CSV), the players, and the settings of the calls — and the same setup as the
JSON the store keeps (docs/draw.md, "The draw file").

The file is read whole or refused whole, every problem an :class:`ActionError` with the code
``draw.file`` (422) or the draw's own refusal code: nothing of a refused file reaches the store.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drivers.mqtt_topics import is_valid_id
from hub.draw import (
    CallSettings,
    Draw,
    DrawError,
    Entry,
    EntryFlight,
    Event,
    FedFlight,
    Feed,
    draw_entries,
    read_draw_csv,
)
from hub.live.actions import ActionError
from rulebook.custom_profiles import ProfileBook

#: the key in the store's ``meta`` table that holds the setup's JSON
SETUP_KEY = "draw_setup"


@dataclass(frozen=True, slots=True)
class DrawPlayer:
    """A player of the draw: the registry key the bracket names, the name the tables show, the
    federation id the exports carry."""

    key: str
    name: str
    fed_id: str = ""


@dataclass(frozen=True, slots=True)
class DrawSetup:
    """Everything the hub needs to run the draw, as the TD defined it."""

    event: Event
    draws: tuple[Draw, ...]
    players: tuple[DrawPlayer, ...]
    #: the tables the draw may call matches to, in the TD's order
    tables: tuple[str, ...]
    settings: CallSettings
    #: whether the draw's matches run the table's clock
    clock: bool = True

    def player(self, key: str) -> DrawPlayer:
        return next((p for p in self.players if p.key == key), DrawPlayer(key, key))

    def as_json(self) -> str:
        """The setup as the store keeps it (read back by :func:`setup_from_json`)."""
        flights: list[dict[str, Any]] = []
        for f in self.event.flights:
            row: dict[str, Any] = {"name": f.name, "profile": f.profile, "lengths": list(f.lengths)}
            if isinstance(f, EntryFlight):
                row["size"] = f.size
            else:
                row["feeds"] = [{"flight": d.source, "round": d.round, "reverse": d.reverse} for d in f.feeds]
            flights.append(row)
        s = self.settings
        return json.dumps(
            {
                "flights": flights,
                "draws": [
                    {
                        "flight": d.flight,
                        "positions": list(d.positions),
                        "random_seed": d.random_seed,
                        "seeds": list(d.seeds),
                    }
                    for d in self.draws
                ],
                "players": [{"key": p.key, "name": p.name, "id": p.fed_id} for p in self.players],
                "tables": list(self.tables),
                "grace_ms": s.grace_ms,
                "needs_verified": s.needs_verified,
                "keep_player_table": s.keep_player_table,
                "prefer": {flight: list(tables) for flight, tables in s.prefer},
                "clock": self.clock,
            },
            sort_keys=True,
        )


def refuse(message: str) -> ActionError:
    return ActionError(message, "draw.file", status=422)


def _flights(rows: Any) -> tuple[EntryFlight | FedFlight, ...]:
    if not isinstance(rows, list) or not rows:
        raise refuse("flights: at least one [[flights]] table")
    out: list[EntryFlight | FedFlight] = []
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise refuse(f"flights #{i}: a table")
        name, profile, lengths = row.get("name"), row.get("profile"), row.get("lengths")
        if not isinstance(name, str) or not isinstance(profile, str):
            raise refuse(f"flights #{i}: name and profile are texts")
        if not isinstance(lengths, list) or not all(type(n) is int for n in lengths):
            raise refuse(f"flight {name!r}: lengths is a list of whole numbers")
        if "feeds" in row:
            feeds = row["feeds"]
            if not isinstance(feeds, list) or not all(
                isinstance(d, dict) and isinstance(d.get("flight"), str) and type(d.get("round")) is int
                for d in feeds
            ):
                raise refuse(f"flight {name!r}: feeds is a list of {{flight = NAME, round = N}}")
            out.append(
                FedFlight(
                    name,
                    tuple(Feed(d["flight"], d["round"], d.get("reverse")) for d in feeds),
                    profile,
                    tuple(lengths),
                )
            )
        else:
            size = row.get("size")
            if type(size) is not int:
                raise refuse(f"flight {name!r}: size is a whole number (or feeds, for a fed flight)")
            out.append(EntryFlight(name, size, profile, tuple(lengths)))
    return tuple(out)


def _players(rows: Any) -> tuple[DrawPlayer, ...]:
    if not isinstance(rows, list):
        raise refuse("players: a list of [[players]] tables")
    out: list[DrawPlayer] = []
    for i, row in enumerate(rows, start=1):
        key, name, fed_id = row.get("key"), row.get("name"), row.get("id", "")
        if not isinstance(key, str) or not isinstance(name, str) or not isinstance(fed_id, str):
            raise refuse(f"players #{i}: key, name (and id) are texts")
        if not name.strip():
            raise refuse(f"players #{i}: the name is empty")
        out.append(DrawPlayer(key, " ".join(name.split()), fed_id.strip()))
    keys = [p.key for p in out]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise refuse(f"players: {', '.join(twice)} listed twice")
    return tuple(out)


def _settings(head: dict[str, Any], event: Event) -> tuple[tuple[str, ...], CallSettings, bool]:
    tables = head.get("tables")
    if (
        not isinstance(tables, list)
        or not tables
        or not all(isinstance(t, str) and is_valid_id(t) for t in tables)
    ):
        raise refuse("draw.tables: a list of table ids (letters, digits, _ . -)")
    grace = head.get("grace_minutes", 5)
    if not isinstance(grace, int | float) or isinstance(grace, bool):
        raise refuse("draw.grace_minutes: a number of minutes")
    flags = {
        k: head.get(k, d)
        for k, d in (("needs_verified", True), ("keep_player_table", False), ("clock", True))
    }
    wrong = [k for k, v in flags.items() if not isinstance(v, bool)]
    if wrong:
        raise refuse(f"draw.{wrong[0]}: true or false")
    prefer: list[tuple[str, tuple[str, ...]]] = []
    wanted = head.get("prefer", {})
    if not isinstance(wanted, dict) or set(wanted) - {f.name for f in event.flights}:
        raise refuse("draw.prefer: a table of the flights' names, each a list of tables")
    for f in event.flights:
        pref = wanted.get(f.name, [])
        if not isinstance(pref, list) or not all(t in tables for t in pref):
            raise refuse(f"draw.prefer.{f.name}: tables of draw.tables")
        if pref:
            prefer.append((f.name, tuple(pref)))
    settings = CallSettings(
        grace_ms=round(grace * 60_000),
        needs_verified=flags["needs_verified"],
        keep_player_table=flags["keep_player_table"],
        prefer=tuple(prefer),
    )
    return tuple(tables), settings, flags["clock"]


def read_setup(text: str, profiles: list[str], read_file: Callable[[str], str]) -> DrawSetup:
    """The setup a draw file defines. ``profiles``: the names the flights may use;
    ``read_file(name)``: a file the draw file names (a drawn bracket's CSV), as text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise refuse(f"the draw file is not TOML: {exc}") from None
    head = data.get("draw", {})
    if not isinstance(head, dict):
        raise refuse("draw: a [draw] table")
    try:
        event = Event(_flights(data.get("flights")))
        event.check_profiles(profiles)
        players = _players(data.get("players", []))
        known = {p.key for p in players}
        if isinstance(head.get("bracket"), str):
            draws = read_draw_csv(read_file(head["bracket"]), event)
        else:
            seed = head.get("random_seed")
            if type(seed) is not int:
                raise refuse("draw.random_seed: a whole number (the draw can be made again with it)")
            raw = data.get("entries", [])
            draws = tuple(
                draw_entries(f, _entries(raw, f.name), seed)
                for f in event.flights
                if isinstance(f, EntryFlight)
            )
        unknown = sorted({p for d in draws for p in d.players} - known)
        if unknown:
            raise refuse(f"players not listed in [[players]]: {', '.join(unknown)}")
        tables, settings, clock = _settings(head, event)
    except DrawError as exc:
        raise ActionError(
            str(exc), exc.code, status=422, detail={k: str(v) for k, v in exc.params.items()}
        ) from None
    return DrawSetup(event, tuple(draws), players, tables, settings, clock)


def _entries(rows: Any, flight: str) -> list[Entry]:
    """The entries of ``flight``: ``[[entries]]`` tables ``{flight, player, seed?}``."""
    if not isinstance(rows, list):
        raise refuse("entries: a list of [[entries]] tables")
    out = []
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict) or not isinstance(row.get("player"), str):
            raise refuse(f"entries #{i}: player is a text")
        if row.get("flight") != flight:
            continue
        seed = row.get("seed")
        if seed is not None and type(seed) is not int:
            raise refuse(f"entries #{i}: seed is a whole number")
        out.append(Entry(row["player"], seed))
    return out


def setup_from_json(text: str) -> DrawSetup:
    """The setup the store keeps (written by :meth:`DrawSetup.as_json`)."""
    d = json.loads(text)
    flights: list[EntryFlight | FedFlight] = []
    for f in d["flights"]:
        lengths = tuple(f["lengths"])
        if "size" in f:
            flights.append(EntryFlight(f["name"], f["size"], f["profile"], lengths))
        else:
            feeds = tuple(Feed(x["flight"], x["round"], x.get("reverse")) for x in f["feeds"])
            flights.append(FedFlight(f["name"], feeds, f["profile"], lengths))
    settings = CallSettings(
        grace_ms=d["grace_ms"],
        needs_verified=d["needs_verified"],
        keep_player_table=d["keep_player_table"],
        prefer=tuple((k, tuple(v)) for k, v in d["prefer"].items()),
    )
    return DrawSetup(
        Event(tuple(flights)),
        tuple(
            Draw(x["flight"], tuple(x["positions"]), x["random_seed"], tuple(x["seeds"])) for x in d["draws"]
        ),
        tuple(DrawPlayer(p["key"], p["name"], p["id"]) for p in d["players"]),
        tuple(d["tables"]),
        settings,
        d["clock"],
    )


def read_draw_text(text: Any, bracket: Any, profiles: ProfileBook) -> DrawSetup:
    """A draw file sent as text (the API's import), with the drawn bracket's CSV it names as
    text too (``bracket``: None when the file draws its entries)."""
    if not isinstance(text, str):
        raise refuse("file: the draw file's text (TOML)")
    if bracket is not None and not isinstance(bracket, str):
        raise refuse("bracket: the drawn bracket's CSV text")

    def read(name: str) -> str:
        if bracket is None:
            raise refuse(f"the draw file names the drawn bracket {name!r}: send its CSV as bracket")
        return str(bracket)

    return read_setup(text, profiles.names(), read)


def read_draw_file(path: Path, profiles: ProfileBook) -> DrawSetup:
    """The draw file at ``path``; a drawn bracket's CSV it names is read next to it."""

    def read(name: str) -> str:
        try:
            return (path.parent / name).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise refuse(f"the drawn bracket {name!r} cannot be read: {exc}") from None

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise refuse(f"the draw file cannot be read: {exc}") from None
    return read_setup(text, profiles.names(), read)
