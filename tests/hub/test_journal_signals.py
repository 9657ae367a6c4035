"""What a table says about its journal (``status.journal``, PROTOCOL §3.2), and what the hub sees
for itself: a score that goes back with the table's events numbered again from low.

A real hub and broker; the table's messages are published as a kiosk publishes them.
"""

from __future__ import annotations

import json

from rulebook.snapshot import snapshot
from rulebook.table import apply, new_table
from tests.hub.support import T0, event_id, publish, start_hub


def _state(table: str, games: int, *, at: int = 0) -> dict:
    st = new_table(table)
    n = at

    def step(inp: dict) -> None:
        nonlocal st, n
        n += 1000
        st, _ = apply(st, {**inp, "at": n, "wall": T0 + n})

    step({"input": "assign", "match_id": "m1", "length": 9, "clock": False, "profile": "wbgf-2023",
          "players": {"A": {"name": "Cy", "id": ""}, "B": {"name": "Di", "id": ""}}})  # fmt: skip
    step({"input": "checkin", "side": "A"})
    step({"input": "checkin", "side": "B"})
    for _ in range(games):
        step({"input": "opening_roll", "A": 6, "B": 1})
        step({"input": "win", "side": "A", "kind": "gammon"})
    return json.loads(json.dumps(snapshot(st)))


def _status(journal: dict | None) -> str:
    return json.dumps({"online": True, "boot_id": "b1", "version": "1", "wall": T0, "journal": journal})


def _alerts(h, kind: str) -> list[dict]:
    """The active alerts of ``kind`` (``h``: the Hub; run on its loop, e.g. inside ``wait_for``)."""
    return [a for a in h.alert_list() if a["kind"] == kind]


DAMAGED = {
    "problem": "damaged", "match_id": "m1", "after_input": 1234, "last_seq": None,
    "aside": "journal.damaged-20261122T101500Z.sqlite3", "reason": "input 1235 fails its checksum",
    "since_wall": T0,
}  # fmt: skip


def test_a_damaged_journal_is_an_alert_until_the_table_clears_it(tmp_path, mosquitto, clock):
    ev = event_id("journal-damaged")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    base = f"bg/v1/{ev}/table/7"
    try:
        publish(mosquitto.host, mosquitto.port, [(f"{base}/status", _status(DAMAGED), True)])
        alert = hub.wait_for(lambda h: next(iter(_alerts(h, "journal")), None))
        assert alert["urgency"] == "high" and alert["table"] == "7"
        assert "damaged after input 1234" in alert["message"] and "paused for you" in alert["message"]
        # the TD resumed the table: it publishes its status without the notice, then its state
        publish(
            mosquitto.host,
            mosquitto.port,
            [(f"{base}/status", _status(None), True), (f"{base}/state", json.dumps(_state("7", 1)), True)],
        )
        hub.wait_for(lambda h: not _alerts(h, "journal"))
    finally:
        hub.stop()


def test_a_lost_journal_files_the_old_events_apart_and_takes_the_new_ones(tmp_path, mosquitto, clock):
    ev = event_id("journal-lost")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    base = f"bg/v1/{ev}/table/7"

    def event(seq: int, side: str) -> tuple[str, str, bool]:
        body = {"seq": seq, "match_id": "m1", "type": "press", "side": side, "at": seq, "wall": T0 + seq}
        return (f"{base}/evt", json.dumps(body), False)

    try:
        publish(mosquitto.host, mosquitto.port, [event(s, "A") for s in range(1, 6)])
        hub.wait_for(lambda h: h.stats["events"] == 5)
        lost = {**DAMAGED, "problem": "lost", "after_input": 0, "last_seq": 5, "aside": None,
                "reason": "the journal holds no input of m1", "since_wall": T0 + 60_000}  # fmt: skip
        publish(
            mosquitto.host,
            mosquitto.port,
            [(f"{base}/status", _status(lost), True), *[event(s, "B") for s in range(1, 4)]],
        )
        hub.wait_for(lambda h: h.stats["events"] == 8)
        assert hub.call(lambda: hub.hub.stats["duplicates"]) == 0
        now = hub.call(hub.hub.store.events, "7", "m1", 100)
        assert [(e["seq"], e["side"]) for e in now] == [(1, "B"), (2, "B"), (3, "B")]
        before = hub.call(hub.hub.store.events, "7", f"m1~lost-{T0 + 60_000}", 100)
        assert [(e["seq"], e["side"]) for e in before] == [(s, "A") for s in range(1, 6)]
        alert = hub.wait_for(lambda h: next(iter(_alerts(h, "journal")), None))
        assert "lost its journal for match m1" in alert["message"] and "event 5" in alert["message"]
        # the same notice again (every reconnect): nothing is filed apart twice
        publish(mosquitto.host, mosquitto.port, [(f"{base}/status", _status(lost), True), event(4, "B")])
        hub.wait_for(lambda h: h.stats["events"] == 9)
        assert len(hub.call(hub.hub.store.events, "7", "m1", 100)) == 4
    finally:
        hub.stop()


def test_a_score_that_goes_back_with_lower_events_is_alerted(tmp_path, mosquitto, clock):
    ev = event_id("backwards")
    hub = start_hub(tmp_path, mosquitto.host, mosquitto.port, ev, clock)
    topic = f"bg/v1/{ev}/table/7/state"
    try:
        far = _state("7", 3)  # 6-0 after three gammons
        publish(mosquitto.host, mosquitto.port, [(topic, json.dumps(far), True)])
        hub.wait_for(lambda h: ((h.views.get("7") and h.views["7"].state) or {}).get("seq") == far["seq"])
        # an undo or a correction comes with a higher seq: no alert for those
        restarted = _state("7", 0, at=10_000_000)  # 0-0, a low seq, a later wall
        assert restarted["seq"] < far["seq"] and restarted["wall"] > far["wall"]
        publish(mosquitto.host, mosquitto.port, [(topic, json.dumps(restarted), True)])
        alert = hub.wait_for(lambda h: next(iter(_alerts(h, "score_backwards")), None))
        assert alert["urgency"] == "high"
        assert "went back from 6–0 to 0–0" in alert["message"] and "lost its journal" in alert["message"]
    finally:
        hub.stop()
