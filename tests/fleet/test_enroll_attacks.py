"""Attacks on enrollment, performed with real processes: ``bghub``, ``bgtable enroll``, Mosquitto
with dynamic security, and hellos sent from other loopback addresses (127.0.0.x) as other
machines on the venue's network would.

- a device's waiting row cannot be taken over by another key saying hello with its id;
- no enrollment without the code from the table's screen;
- codes and device ids reach only the roles that enroll (never a viewer, never ``--public``);
- 1,000 hellos from 40 addresses do not keep real tables out (each address has its share of the
  waiting list, the busiest loses first), polls are limited per address too;
- two enrollments of one table at the same instant leave one working credential.

In each case the TD is told where a TD should be: an alert, a refusal naming what to do.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.fleet.scenes import Account, device_call, hello, new_key, ws_messages
from tests.fleet.support import PASSWORD, WAIT, Enroll, Hub, Room, TdClient, broker_of, cleanup, wait_until
from tests.fleet.test_enroll_e2e import connack

EVENT = "fleet-attack"


def alerts_of(hub: Hub, kind: str) -> list[dict]:
    return [a for a in hub.td.get("/api/alerts") if a["kind"] == kind]


def test_a_waiting_device_keeps_its_first_key_and_the_td_is_told(tmp_path: Path):
    room = Room(tmp_path, EVENT)
    hub = Hub(tmp_path, EVENT, room=room.out, broker_port=room.port)
    with cleanup(room, hub):
        real = Enroll(tmp_path, hub.url, tmp_path / "real", "bgt-4a1f", "--timeout", "60")
        code = real.code()
        # someone on the network says hello with the waiting device's id and a key of their own
        stolen = new_key()
        status, body = hello(hub.url, "bgt-4a1f", stolen, source="127.0.0.9")
        assert status == 409, body
        assert code not in json.dumps(body)
        row = hub.device("bgt-4a1f")
        assert (
            row is not None and row["state"] == "pending" and row["code"] == code and row["ip"] == "127.0.0.1"
        )
        status, _ = device_call(
            hub.url, "/device/v1/poll", {"device": "bgt-4a1f", "key": stolen}, "127.0.0.9"
        )
        assert status == 403
        # the TD is told, without the device's id or code (alerts reach every reader)
        told = wait_until(lambda: alerts_of(hub, "device_conflict"), WAIT, "an alert for the TD")
        assert "127.0.0.9" in told[0]["message"] and "127.0.0.1" in told[0]["message"]
        assert "bgt-4a1f" not in told[0]["message"] and code not in told[0]["message"]
        # the real device is not disturbed: enrolled by its code, it gets a working credential
        hub.td.post("/api/fleet/bgt-4a1f/enroll", {"table": "7", "code": code})
        assert real.wait() == 0, real.err.lines
        credential = broker_of(tmp_path / "real" / "table.toml")
        assert not connack(room.port, credential["username"], credential["password"]).is_failure


def test_enrollment_needs_the_code_from_the_tables_screen(tmp_path: Path):
    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        proc = Enroll(tmp_path, hub.url, tmp_path / "d", "dev-c", "--timeout", "60")
        code = proc.code()
        for body in ({"table": "3"}, {"table": "3", "code": ""}, {"table": "3", "code": None}):
            with pytest.raises(urllib.error.HTTPError) as info:
                hub.td.post("/api/fleet/dev-c/enroll", body)
            answer = json.loads(info.value.read())
            assert info.value.code == 400 and answer["code"] == "code_required", answer
            assert "code" in answer["error"] and "screen" in answer["error"]
        assert hub.device("dev-c")["state"] == "pending"  # type: ignore[index]
        hub.td.post("/api/fleet/dev-c/enroll", {"table": "3", "code": code})
        assert proc.wait() == 0


@pytest.mark.long
def test_codes_and_device_ids_reach_only_the_roles_that_enroll(tmp_path: Path):
    hub = Hub(tmp_path, EVENT, extra=["--public"])
    with cleanup(hub):
        for name, role in (("vera", "viewer"), ("sam", "scorer"), ("tom", "td")):
            hub.td.post("/api/accounts", {"name": name, "role": role, "password": PASSWORD})
        enrolled = Enroll(tmp_path, hub.url, tmp_path / "e", "bgt-enrolled", "--timeout", "60")
        hub.td.post("/api/fleet/bgt-enrolled/enroll", {"table": "4", "code": enrolled.code()})
        assert enrolled.wait() == 0
        waiting = Enroll(tmp_path, hub.url, tmp_path / "w", "bgt-waiting", "--timeout", "60")
        code = waiting.code()
        chief = hub.fleet()
        assert {r["device"] for r in chief} == {"bgt-enrolled", "bgt-waiting"}
        assert [r["code"] for r in chief if r["state"] == "pending"] == [code]

        def shown(rows: list[dict]) -> str:
            return json.dumps(rows)

        for name in ("vera", "sam"):
            rows = Account(hub.url, name, PASSWORD).get("/api/fleet")
            text = shown(rows)
            assert "bgt-waiting" not in text and "bgt-enrolled" not in text and code not in text, text
            assert [r["table"] for r in rows if r["state"] == "enrolled"] == ["4"]
            assert all(r["key"] for r in rows)  # the page still tells rows apart
        public = json.loads(_anonymous_get(hub.url, "/api/fleet"))
        assert "bgt-" not in json.dumps(public) and code not in json.dumps(public)
        tom = Account(hub.url, "tom", PASSWORD).get("/api/fleet")
        assert "bgt-waiting" not in shown(tom) and code not in shown(tom)
        assert [r["device"] for r in tom if r["state"] == "enrolled"] == ["bgt-enrolled"]  # to act on it

        # the live push: a new device says hello; a viewer sees no id and no code, the chief both
        def pushed(messages: list[dict]) -> bool:
            return any(m["type"] == "fleet" and m.get("rows") for m in messages)

        for who, sees in (("vera", False), ("", True)):  # "": the hub's own password, the chief TD
            account = Account(hub.url, who, PASSWORD)
            device = f"bgt-new-{who or 'chief'}"
            seen = ws_messages(
                hub.url, account.cookie(), pushed, then=lambda d=device: hello(hub.url, d, new_key())
            )
            fleet = json.dumps([m for m in seen if m["type"] == "fleet"])
            assert (device in fleet) is sees, fleet
        waiting.proc.terminate()


def _anonymous_get(url: str, path: str) -> str:
    import urllib.request

    with urllib.request.urlopen(url + path, timeout=10) as response:
        return response.read().decode()


def test_a_hello_flood_from_40_addresses_does_not_keep_real_tables_out(tmp_path: Path):
    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        sources = [f"127.0.0.{n}" for n in range(2, 42)]
        statuses: Counter[int] = Counter()
        lock = threading.Lock()
        started = threading.Event()

        def flood(source: str) -> None:
            key = new_key()
            started.set()
            for n in range(25):
                status, _ = hello(hub.url, f"flood-{source.rsplit('.', 1)[1]}-{n}", key, source=source)
                with lock:
                    statuses[status] += 1

        begun = time.monotonic()
        with ThreadPoolExecutor(len(sources)) as pool:
            futures = [pool.submit(flood, s) for s in sources]
            started.wait(WAIT)
            during = Enroll(tmp_path, hub.url, tmp_path / "during", "real-during", "--timeout", "90")
            for f in futures:
                f.result()
        flooded = time.monotonic() - begun
        assert sum(statuses.values()) == 1000
        after = Enroll(tmp_path, hub.url, tmp_path / "after", "real-after", "--timeout", "90")
        codes = {"real-during": during.code(), "real-after": after.code()}
        for n, (device, code) in enumerate(codes.items(), 1):
            hub.td.post(f"/api/fleet/{device}/enroll", {"table": str(n), "code": code})
        assert during.wait() == 0 and after.wait() == 0
        rows = hub.fleet()
        waiting = Counter(r["ip"] for r in rows if r["state"] == "pending")
        kept = f"max {max(waiting.values())}, total {sum(waiting.values())}"
        print(f"1,000 hellos from 40 addresses in {flooded:.1f} s: answers {dict(statuses)}; kept: {kept}")
        assert statuses[503] == 0
        assert {r["device"] for r in rows if r["state"] == "enrolled"} == {"real-during", "real-after"}
        # the TD is told, once for the flood
        told = alerts_of(hub, "flood")
        assert len(told) == 1 and told[0]["table"] is None and "127.0.0." in told[0]["message"], told

        # polls are limited per address too; another address's device is not affected
        polls = Counter(
            device_call(hub.url, "/device/v1/poll", {"device": "nobody", "key": new_key()}, "127.0.0.50")[0]
            for _ in range(300)
        )
        print(f"300 polls from one address: answers {dict(polls)}")
        assert polls[429] > 0 and polls[404] > 0, polls
        third = Enroll(tmp_path, hub.url, tmp_path / "third", "real-third", "--timeout", "60")
        hub.td.post("/api/fleet/real-third/enroll", {"table": "3", "code": third.code()})
        assert third.wait() == 0


def test_two_enrollments_of_one_table_at_the_same_instant_leave_one_working_credential(tmp_path: Path):
    room = Room(tmp_path, EVENT)
    hub = Hub(tmp_path, EVENT, room=room.out, broker_port=room.port)
    with cleanup(room, hub):
        procs = {d: Enroll(tmp_path, hub.url, tmp_path / d, d, "--timeout", "20") for d in ("dev-a", "dev-b")}
        codes = {d: p.code() for d, p in procs.items()}
        tds = {d: TdClient(hub.url) for d in procs}
        barrier = threading.Barrier(len(procs))
        answers: dict[str, object] = {}

        def go(device: str) -> None:
            barrier.wait()
            try:
                answers[device] = tds[device].post(
                    f"/api/fleet/{device}/enroll", {"table": "12", "code": codes[device]}
                )
            except urllib.error.HTTPError as exc:
                answers[device] = exc.code

        threads = [threading.Thread(target=go, args=(d,)) for d in procs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT)
        for p in procs.values():
            p.proc.wait(60)
        rows = {r["device"]: r for r in hub.fleet()}
        assert [d for d, r in rows.items() if r["state"] == "enrolled"] in (["dev-a"], ["dev-b"]), rows
        working = []
        for device in procs:
            config = tmp_path / device / "table.toml"
            if config.exists():
                credential = broker_of(config)
                if not connack(room.port, credential["username"], credential["password"]).is_failure:
                    working.append(device)
        assert len(working) == 1, (working, answers)
        assert rows[working[0]]["state"] == "enrolled"
