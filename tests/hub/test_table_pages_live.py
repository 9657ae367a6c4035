"""Each player's page in the assignment of a match of the draw (hub/web/table_pages.py), through a
real broker and a real hub to simulated tables: with the hub's public address (``--public-url``)
each seat's ``pages`` entry is the address the draw sheet prints for that player, and passes the
table's edge check; without it the hub sends no page at all (never a localhost address)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from hub.service import HubThread
from kiosk.ui import pages
from rulebook.wire import parse_pages
from tests.hub.support import event_id, sim_table, start_hub, tick
from tests.hub.test_draw_actions_live import DRAW, api, current
from tests.hub.test_next_lines_live import name

PUBLIC = "http://bg-open.example.org:8080"


@pytest.mark.parametrize("public_url", [PUBLIC + "/", None])
def test_a_draw_matchs_assignment_carries_its_players_pages_only_on_the_public_address(
    tmp_path: Path, mosquitto: Any, clock: Any, public_url: str | None
) -> None:
    path = tmp_path / "draw.toml"
    path.write_text(DRAW, encoding="utf-8")
    ev = event_id("table-pages")
    hub: HubThread = start_hub(
        tmp_path, mosquitto.host, mosquitto.port, ev, clock, draw=path, public_url=public_url
    )
    try:
        with ExitStack() as stack:
            sims = {
                t: stack.enter_context(sim_table(ev, t, mosquitto.host, mosquitto.port, clock)) for t in "12"
            }
            hub.wait_for(lambda h: all(h.views.get(t) is not None and h.views[t].online for t in "12"))
            tick(hub)
            called = current(hub)
            assert called == {"1": "main-r1-m1", "2": "main-r1-m2"}
            sheet = {row["name"]: row["url"] for row in api(hub, "GET", "/api/draw/sheet")["players"]}
            for table, match_id in called.items():
                sims[table].wait_for(lambda s, m=match_id: s.match_id == m)
                payload = sims[table].assigns[-1]
                assert payload["match_id"] == match_id
                if public_url is None:
                    assert "pages" not in payload
                    continue
                want = {side: sheet[name(hub, match_id, i)] for i, side in enumerate("AB")}
                assert all(url.startswith(PUBLIC + "/p/") for url in want.values())
                assert payload["pages"] == want
                assert parse_pages(payload["pages"]) == want
                # what the table's screen keeps of it (kiosk/ui/pages.py)
                assert pages.take({}, payload) == {match_id: want}
    finally:
        hub.stop()
