"""Malformed and hostile MQTT payloads for every topic the hub and a table read (seeded, so a
failure can be replayed with the same seed).

Each :class:`Msg` says what the receiver must do with it: ``"drop"`` (unusable: not UTF-8, not
JSON, not an object, wrong shape for its topic, too big, or a command a table must refuse),
``"store"`` (a well-formed event, in standard JSON with numbers that fit 64 bits, from a table
the test does not run: the hub must keep it, once) or ``"keep"`` (a well-formed state or
status of such a table). Well-formed hostile payloads go only to tables the test invented; the
real tables' topics get only what must be dropped or refused, so their own events can still be
compared one to one with the hub's store.

Kinds of garbage: random bytes, non-UTF-8, not JSON, JSON that is not an object, NaN and
Infinity, integers too long for Python to parse or for SQLite to store, deep nesting, payloads
over the 256 KiB limit, wrong types and missing fields for each topic, negative and zero seqs,
wrong ids, commands of unknown types, with missing or wrong fields, or expired.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from typing import Any

from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table

MAX_PAYLOAD = 256 * 1024
PLAYERS = {"A": {"name": "Ann", "id": "1"}, "B": {"name": "Bob", "id": "2"}}
COMMAND_TYPES = [
    "penalty",
    "forfeit",
    "start_clock",
    "pause",
    "resume",
    "set_time",
    "impose_clock",
    "set_length",
    "correct_score",
    "resolve_flag",
    "waive",
    "td_ack",
]


@dataclass(frozen=True, slots=True)
class Msg:
    topic: str
    payload: bytes
    retain: bool
    qos: int
    expect: str  # "drop" or "store"
    key: tuple[str, str, int] | None = None  # (table, match_id as stored, seq) for "store"


def is_standard_json(payload: bytes) -> bool:
    """JSON a receiver can keep and serve back: no NaN or Infinity (which Python's parser takes),
    no integer beyond 64 bits (SQLite cannot hold it), no float that overflows to infinity."""

    def refuse(name: str) -> Any:
        raise ValueError(name)

    def bounded(text: str) -> int:
        if abs(int(text)) > 2**63 - 1:
            raise ValueError(text)
        return int(text)

    def finite(text: str) -> float:
        if math.isinf(float(text)):
            raise ValueError(text)
        return float(text)

    try:
        json.loads(payload, parse_constant=refuse, parse_int=bounded, parse_float=finite)
    except ValueError:
        return False
    return True


def dumps(obj: Any) -> bytes:
    """JSON as a careless sender writes it: NaN and Infinity included."""
    return json.dumps(obj, allow_nan=True, ensure_ascii=False).encode("utf-8")


class Hostile:
    """Generates the payloads of one fuzz run."""

    def __init__(self, event: str, seed: int, *, real_tables: list[str], fake_tables: list[str]) -> None:
        self.base = f"bg/v1/{event}"
        self.rng = random.Random(seed)
        self.real = real_tables
        self.fake = fake_tables
        self.state_template = self._template()
        self._seq = 0

    # -- building blocks ---------------------------------------------------------------------

    def _template(self) -> dict[str, Any]:
        st = new_table("z")
        for i, inp in enumerate(
            [
                {
                    "input": "assign",
                    "profile": "wbgf-2023",
                    "match_id": "zz",
                    "length": 5,
                    "players": PLAYERS,
                    "clock": True,
                },
                {"input": "checkin", "side": "A"},
                {"input": "checkin", "side": "B"},
                {"input": "opening_roll", "A": 6, "B": 2},
                {"input": "press", "side": "B"},
            ]
        ):
            st, _ = apply(st, {**inp, "at": i * 1000, "wall": 1_800_000_000_000 + i * 1000})
        return snapshot(st)

    def junk(self, depth: int = 0) -> Any:
        """A random JSON-ish value: odd numbers, odd strings, odd nesting."""
        r = self.rng
        choice = r.randrange(14 if depth < 3 else 10)
        if choice == 0:
            return None
        if choice == 1:
            return r.choice([True, False])
        if choice == 2:
            return r.choice([float("nan"), float("inf"), -float("inf")])
        if choice == 3:
            return r.choice([-1, 0, 2**31, 2**63, 2**64 + 1, -(2**70), 10**30])
        if choice == 4:
            return r.uniform(-1e300, 1e300)
        if choice == 5:
            return r.choice(["", " ", "A", "B", "C", "a", "ü", "\u0000", "\ud7ff", "😀", "../..", "+", "#"])
        if choice == 6:
            return "".join(chr(r.randrange(1, 0x2FFF)) for _ in range(r.randrange(0, 40)))
        if choice == 7:
            return r.randrange(-1000, 1000)
        if choice == 8:
            return "x" * r.choice([100, 1000, 10_000])
        if choice == 9:
            return r.choice(["single", "gammon", "late", "td", "A", "B", "waiting", "finished"])
        if choice in (10, 11):
            return [self.junk(depth + 1) for _ in range(r.randrange(0, 4))]
        return {str(self.junk(depth + 1))[:10]: self.junk(depth + 1) for _ in range(r.randrange(0, 4))}

    def raw_garbage(self) -> bytes:
        """Bytes that are not a JSON object at all."""
        r = self.rng
        kind = r.randrange(10)
        if kind == 0:
            return bytes(r.randrange(256) for _ in range(r.randrange(1, 300)))
        if kind == 1:
            return b'{"seq": 1, "type": "\xff\xfe", "match_id": "m"}'  # not UTF-8
        if kind == 2:
            return r.choice([b"{", b"}", b"nul", b"{'a': 1}", b'{"a":', b"NaN", b"\x00", b"[1,2", b"{}}"])
        if kind == 3:
            return dumps(r.choice([[1, 2], 3, "str", None, True, 1.5, [], [{}]]))
        if kind == 4:
            return b"1" * r.choice([5000, 20_000])  # longer than int() parses by default
        if kind == 5:
            return b"1e999"
        if kind == 6:
            n = r.choice([1_000, 10_000, 100_000])
            return b"[" * n + b"]" * n
        if kind == 7:
            n = r.choice([1_000, 50_000])
            return b'{"a":' * n + b"1" + b"}" * n
        if kind == 8:
            return b""  # empty: a cleared retained message
        return b'{"seq": 1, "type": "x", "match_id": "m", "pad": "' + b"p" * (MAX_PAYLOAD + 10) + b'"}'

    def _topic(self, table: str, kind: str) -> str:
        return f"{self.base}/table/{table}/{kind}"

    # -- the hub's topics --------------------------------------------------------------------

    def bad_event(self) -> dict[str, Any]:
        r = self.rng
        evt: dict[str, Any] = {"seq": r.randrange(1, 1000), "match_id": "m", "type": "press", "wall": 1}
        flaw = r.randrange(9)
        if flaw == 0:
            evt.pop("seq")
        elif flaw == 1:
            evt["seq"] = r.choice([0, -1, -(2**40), 1.0, 2.5, "1", True, None, [1], float("nan")])
        elif flaw == 2:
            evt["match_id"] = r.choice([1, 1.5, [], {}, True])
        elif flaw == 3:
            evt.pop("type")
        elif flaw == 4:
            evt["type"] = r.choice(["", 1, None, [], {"a": 1}])
        elif flaw == 5:
            evt["wall"] = r.choice(["now", 1.5, float("nan"), [], True])
        elif flaw == 6:
            evt["seq"] = r.choice([2**63, 2**64, 10**40])  # an integer SQLite cannot hold
        elif flaw == 7:
            evt["wall"] = r.choice([2**63, 10**30])
        else:
            evt["match_id"] = ""
            evt["seq"] = r.choice([0, -5])
        return evt

    def bad_state(self) -> dict[str, Any]:
        r = self.rng
        s = json.loads(json.dumps(self.state_template))
        field, values = r.choice(
            [
                ("seq", [-1, "3", 1.5, None, True]),
                ("phase", ["dancing", None, 3, ""]),
                ("length", ["7", None, 7.5, []]),
                ("score", [None, [], {"A": "1", "B": 0}, {"A": 1}, {"A": True, "B": 0}]),
                ("present", [None, {"A": 1, "B": 0}, {"A": True}, "yes"]),
                ("players", [[], {"A": "Ann", "B": "Bob"}, {"A": {"name": 1}, "B": {"name": "b"}}]),
                ("clock", ["on", {"enabled": "yes"}, {"enabled": True, "running": "C"}]),
                ("match_id", [1, [], {"a": 1}]),
                ("breaks", ["none", {"A": 1, "B": 2}]),
                ("penalties", [{"A": "0", "B": 0}, []]),
            ]
        )
        s[field] = r.choice(values)
        return s

    def bad_status(self) -> dict[str, Any]:
        return {"online": self.rng.choice(["true", 1, 0, None, [], "yes"]), "boot_id": self.junk()}

    def good_event(self, table: str) -> tuple[dict[str, Any], tuple[str, str, int]]:
        r = self.rng
        self._seq += 1
        match_id = r.choice(["m1", "m2", None, "m-3.x_y"])
        evt: dict[str, Any] = {
            "seq": r.randrange(1, 10**6) if r.random() < 0.5 else self._seq,
            "match_id": match_id,
            "type": r.choice(["press", "roll", "flag", "cmd_done", "zzz", "ü"]),
            "wall": r.randrange(0, 2**40),
        }
        for _ in range(r.randrange(0, 3)):
            # fields no event type has: a reader ignores them (the hub does not store them)
            evt["x-" + str(self.junk())[:12]] = self.junk()
        if evt["type"] == "cmd_done" and r.random() < 0.5:
            evt["id"] = r.choice(["late:r1-t1:B:1", "td:nonexistent", "x"])
            evt["ok"] = r.choice([True, False])
        return evt, (table, match_id or "", evt["seq"])

    def good_state(self) -> dict[str, Any]:
        r = self.rng
        s = json.loads(json.dumps(self.state_template))
        s["seq"] = r.randrange(0, 10**6)
        s["match_id"] = r.choice(["zz", "zz2", None])
        for _ in range(r.randrange(0, 3)):
            s["x-" + str(self.junk())[:12]] = self.junk()
        return s

    def hub_side(self) -> Msg:
        r = self.rng
        kind = r.choice(["status", "state", "evt", "evt"])
        roll = r.random()
        if roll < 0.3:
            table = r.choice(self.fake)
            if kind == "evt":
                evt, key = self.good_event(table)
                payload = dumps(evt)
                if not is_standard_json(payload):  # NaN, Infinity or a huge number in its extras
                    return Msg(self._topic(table, kind), payload, False, 1, "drop")
                return Msg(self._topic(table, kind), payload, False, 1, "store", key)
            obj = self.good_state() if kind == "state" else {"online": r.random() < 0.5, "x": self.junk()}
            return Msg(self._topic(table, kind), dumps(obj), r.random() < 0.2, 1, "keep")
        table = r.choice(self.real + self.fake)
        if roll < 0.55:
            payload = self.raw_garbage()
            if kind == "state" and not payload:
                payload = b"{}"  # an empty retained state would clear the real table's snapshot
        else:
            obj = {"evt": self.bad_event, "state": self.bad_state, "status": self.bad_status}[kind]()
            if kind == "state" and r.random() < 0.2:
                obj = {**self.state_template, "table": r.choice(["other", 5, None])}
            payload = dumps(obj)
        retain = table in self.fake and r.random() < 0.1
        return Msg(self._topic(table, kind), payload, retain, r.choice([0, 1]), "drop")

    def odd_topic(self) -> Msg:
        """Topics nobody should act on: bad table ids, unknown kinds, extra levels."""
        r = self.rng
        evt, _ = self.good_event("z")
        topic = r.choice(
            [
                f"{self.base}/table/ü/evt",
                f"{self.base}/table/-x/evt",
                f"{self.base}/table/{'t' * 70}/evt",
                f"{self.base}/table/a b/state",
                f"{self.base}/table//evt",
                f"{self.base}/table/z1/evt/extra",
                f"{self.base}/table/z1/bogus",
                f"{self.base}/hub/other",
                f"{self.base}/table/z1",
                "bg/v1/other-event/table/1/cmd",
            ]
        )
        return Msg(topic, dumps(evt), False, 1, "drop")

    # -- the tables' topics ------------------------------------------------------------------

    def bad_assign(self) -> Any:
        r = self.rng
        a: dict[str, Any] = {
            "match_id": r.choice(["evil", "r1-t1", "x" * 200]),
            "length": 5,
            "players": PLAYERS,
            "clock": True,
        }
        field, values = r.choice(
            [
                ("match_id", [None, 1, "", [], {"a": 1}]),
                ("length", ["5", 0, -3, 1000, 5.5, None, float("nan"), 10**40]),
                ("players", [None, [], {"A": "Ann"}, {"A": {"name": 1}, "B": {"name": "b"}}]),
                ("clock", ["yes", {"minutes_per_point": float("nan"), "delay_s": 1}, {"delay_s": -1}]),
                ("profile", ["nope", 3, {"a": 1}]),
                ("start_wall", ["soon", 1.5, [], float("inf")]),
            ]
        )
        a[field] = r.choice(values)
        if field == "match_id" and a["match_id"] is None:
            a.pop("match_id")
        return a

    def bad_cmd(self) -> dict[str, Any]:
        r = self.rng
        if r.random() < 0.005:
            # well under the size limit as sent, but the refusal quotes the field, escaped: twice
            # as big, over the limit
            return {
                "id": f"fuzz-{r.randrange(10**9)}",
                "type": "penalty",
                "against": "\\" * 120_000,
                "points": 1,
                "expires_wall": 2**41,
            }
        cmd: dict[str, Any] = {
            "id": f"fuzz-{r.randrange(10**9)}",
            "type": r.choice(COMMAND_TYPES),
            "expires_wall": r.choice([1, 0, -5, 1_000_000_000_000]),  # expired long ago
        }
        flaw = r.randrange(8)
        if flaw == 0:
            cmd.pop("id")
        elif flaw == 1:
            cmd["id"] = r.choice(["", 1, None, [], {"a": 1}, 1.5])
        elif flaw == 2:
            cmd["type"] = r.choice(["", "explode", 3, None, "PENALTY", "penalty " * 3])
            cmd["expires_wall"] = r.choice([2**41, 2**63, None])
        elif flaw == 3:
            cmd.pop("type")
        elif flaw == 4:  # unexpired but with wrong fields for its type
            cmd["expires_wall"] = 2**41
            cmd["type"] = r.choice(["penalty", "forfeit", "set_time", "set_length", "resolve_flag", "waive"])
            for key in ("against", "points", "reserve_ms", "length", "winner", "penalty_id", "score"):
                if r.random() < 0.5:
                    cmd[key] = r.choice([None, "C", -1, 10**30, float("nan"), [], {"A": "x"}, "ü"])
        elif flaw == 5:
            cmd["expires_wall"] = r.choice(["never", None, 1.5, float("inf")])
            cmd["type"] = "explode"
        elif flaw == 6:
            for _ in range(r.randrange(1, 4)):
                cmd[str(self.junk())[:12]] = self.junk()
        else:
            cmd["points"] = r.choice([float("nan"), 10**30, -(2**70), "1", 1.0])
            cmd["against"] = r.choice(["A", "B", None])
            cmd["type"] = "penalty"
            cmd["expires_wall"] = 2**41
        return cmd

    def bad_resync(self) -> dict[str, Any]:
        r = self.rng
        obj: dict[str, Any] = {"match_id": r.choice(["r1-t1", None, "zz"]), "from_seq": 1}
        flaw = r.randrange(4)
        if flaw == 0:
            obj["from_seq"] = r.choice([-1, "1", 1.5, None, float("nan"), [], True])
        elif flaw == 1:
            obj["match_id"] = r.choice([1, "", [], {"a": 1}])
        elif flaw == 2:
            obj.pop("from_seq")
        else:
            obj.pop("match_id")
        return obj

    def table_side(self) -> Msg:
        r = self.rng
        table = r.choice(self.real)
        kind = r.choice(["assign", "cmd", "cmd", "resync", "hub"])
        topic = f"{self.base}/hub/status" if kind == "hub" else self._topic(table, kind)
        if r.random() < 0.35:
            payload = self.raw_garbage()
            if not payload:
                payload = b"[]"  # an empty retained assign or hub/status would clear the real one
        elif kind == "assign":
            payload = dumps(self.bad_assign())
        elif kind == "cmd":
            payload = dumps(self.bad_cmd())
        elif kind == "resync":
            payload = dumps(self.bad_resync())
        else:
            payload = dumps(r.choice([{"online": "yes"}, {"online": None}, {}, {"since_wall": 1}]))
        return Msg(topic, payload, False, r.choice([0, 1]), "drop")

    def messages(self, n: int) -> list[Msg]:
        out = []
        for _ in range(n):
            roll = self.rng.random()
            if roll < 0.47:
                out.append(self.hub_side())
            elif roll < 0.95:
                out.append(self.table_side())
            else:
                out.append(self.odd_topic())
        return out
