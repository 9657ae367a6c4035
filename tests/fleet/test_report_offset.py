"""A late health report does not make a table's clock look behind on the Tables page.

A report's ``sent_wall`` against the hub's time of receipt shows how far the device's clock is
off, less whatever time the report took to arrive (the broker's queue after an outage, a busy
hub). The page shows the largest offset the device's reports showed lately
(hub.logic.clock_estimate): a real ``bghub`` (embedded broker), a device enrolled with
``bgtable enroll``, and reports published with the table's own credential, the second one a
report that waited a minute and a half.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from tests.fleet.support import WAIT, Enroll, Hub, broker_of, cleanup
from tests.fleet.test_report_flood import report

EVENT = "fleet-offset"


def publish_reports(broker: dict[str, Any], port: int, table: str, reports: list[dict[str, Any]]) -> None:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=broker["username"])
    client.username_pw_set(broker["username"], broker["password"])
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        for r in reports:
            client.publish(f"bg/v1/{EVENT}/table/{table}/device", json.dumps(r), qos=1).wait_for_publish(WAIT)
    finally:
        client.disconnect()
        client.loop_stop()


def test_a_late_report_does_not_make_the_clock_look_behind(tmp_path: Path):
    hub = Hub(tmp_path, EVENT)
    with cleanup(hub):
        enroll = Enroll(tmp_path, hub.url, tmp_path / "t", "dev-offset")
        hub.td.post("/api/fleet/dev-offset/enroll", {"table": "4", "code": enroll.code()})
        assert enroll.wait() == 0
        broker = broker_of(tmp_path / "t" / "table.toml")

        prompt = report("dev-offset", 100)
        publish_reports(broker, hub.broker_port, "4", [prompt])
        row = hub.wait_device("dev-offset", lambda r: r["uptime_s"] == 100, "the device's report")
        assert abs(row["clock_offset_ms"]) < 5_000
        late = {**report("dev-offset", 101), "sent_wall": int(time.time() * 1000) - 90_000}
        publish_reports(broker, hub.broker_port, "4", [late])
        row = hub.wait_device("dev-offset", lambda r: r["uptime_s"] == 101, "the late report")
        assert abs(row["clock_offset_ms"]) < 5_000, row["clock_offset_ms"]
