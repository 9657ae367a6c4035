"""Every TD action follows the one precedent of docs/ARCHITECTURE.md ("A TD action"): a row of
``hub.web.server.TD_ACTIONS`` (its route, calling an action object), and that route's permission in
``hub.web.roles.ROUTES``. What the actions do is tested with each action object; this checks that
no action takes another way in."""

from __future__ import annotations

from hub.web import roles
from hub.web.server import TD_ACTIONS

#: the permissions of the TD's actions on the dashboard (the Tables page's routes have their own
#: shape: the fleet's devices, hub/fleet/routes.py)
ACTING = {roles.TABLE_ACTIONS, roles.ALERTS, roles.RESULTS, roles.ROOM, roles.SCHEDULE, roles.ACCOUNTS}
#: the schedule's upload and preview have their own shape too: a CSV file, not a JSON object
OWN_SHAPE = {("POST", "/api/schedule"), ("POST", "/api/schedule/preview")}


def test_every_td_action_has_a_permission_that_is_not_reading():
    for action in TD_ACTIONS:
        needed = roles.needs(action.method, action.path)
        assert needed in ACTING, f"{action.method} {action.path}: {needed!r}"


def test_every_route_that_needs_an_acting_permission_is_a_td_action():
    rows = {(a.method, a.path) for a in TD_ACTIONS}
    acting = {
        route
        for route, needed in roles.ROUTES.items()
        if needed in ACTING and route[0] == "POST" and route not in OWN_SHAPE
    }
    assert acting == rows
    assert len(rows) == len(TD_ACTIONS), "a route listed twice"
