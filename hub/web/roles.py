"""Who may do what at the dashboard: the roles, their permissions, and every route's permission.

One table, read by the web server's middleware for every request (hub/web/server.py) and by the test
that walks every route of the application with every role; docs/api.md's role × endpoint table
is checked against it. A route missing from :data:`ROUTES` is refused to everybody, so a new
endpoint cannot be reachable before somebody decided who may use it.

Roles (``bghub user add NAME --role ROLE``):

- ``chief`` — the chief TD: everything, including the schedule import, setting up tables and the
  accounts. The hub's own password (``--password-file``, or the one printed at start) logs in as
  the chief TD ``td``.
- ``td`` — a TD: table actions (pause, penalties, waivers, clock corrections, automation, release),
  the room's rounds, alerts, results (verify and correct), the Tables page's identify, restart and
  button test.
- ``scorer`` — verifies and corrects results; reads everything.
- ``viewer`` — reads everything, changes nothing.

Anyone (no login) sees the room board and the draw as the room sees it: the board's brackets and
each player's page, which name players and nothing else about them.
"""

from __future__ import annotations

from typing import Final

CHIEF: Final = "chief"
TD: Final = "td"
SCORER: Final = "scorer"
VIEWER: Final = "viewer"
ROLES: Final = (CHIEF, TD, SCORER, VIEWER)
LABELS: Final = {CHIEF: "chief TD", TD: "TD", SCORER: "scorer", VIEWER: "viewer"}

# -- permissions ---------------------------------------------------------------------------------

#: read the room, tables, alerts, schedule, results, timeline, audit, dice, fleet (and the live push)
READ: Final = "read"
#: commands to a table (penalties, waivers, pauses, clock corrections…), its automation, release
TABLE_ACTIONS: Final = "table-actions"
#: acknowledge an alert
ALERTS: Final = "alerts"
#: verify and correct results (one, or every confirmed one)
RESULTS: Final = "results"
#: the room's rounds: start now, delay, pause and resume every table, room automation, move a match
ROOM: Final = "room"
#: import the schedule (and preview an import)
SCHEDULE: Final = "schedule"
#: the Tables page's identify, restart and button test (and the enrolled devices' ids they need)
FLEET_CONTROL: Final = "fleet-control"
#: the Tables page's enroll, retire and update, and what enrolls a table: the codes and the
#: waiting devices' ids (nobody else sees them: :func:`hub.fleet.model.shown_to`)
FLEET_SETUP: Final = "fleet-setup"
#: the accounts: list, add, remove
ACCOUNTS: Final = "accounts"

PERMISSIONS: Final = (
    READ,
    TABLE_ACTIONS,
    ALERTS,
    RESULTS,
    ROOM,
    SCHEDULE,
    FLEET_CONTROL,
    FLEET_SETUP,
    ACCOUNTS,
)

GRANTS: Final[dict[str, frozenset[str]]] = {
    CHIEF: frozenset(PERMISSIONS),
    TD: frozenset({READ, TABLE_ACTIONS, ALERTS, RESULTS, ROOM, FLEET_CONTROL}),
    SCORER: frozenset({READ, RESULTS}),
    VIEWER: frozenset({READ}),
}

#: not a permission: anyone may (pages' HTML, the board, health, the session and login)
ANYONE: Final = "anyone"
#: not a permission: the tables' devices, which authenticate themselves (hub/fleet/routes.py)
DEVICE: Final = "device"

#: (method, route) -> what it needs. HEAD is GET's.
ROUTES: Final[dict[tuple[str, str], str]] = {
    # pages (their data comes from the API below) and what is always public
    ("GET", "/"): ANYONE,
    ("GET", "/board"): ANYONE,
    ("GET", "/dice"): ANYONE,
    ("GET", "/fleet"): ANYONE,
    ("GET", "/static"): ANYONE,
    ("GET", "/api/board"): ANYONE,
    # the draw as the room and each player see it (hub/web/player_pages.py): names only
    ("GET", "/api/board/draw"): ANYONE,
    ("GET", "/p/{code}"): ANYONE,
    ("GET", "/api/players/{code}"): ANYONE,
    ("GET", "/api/players/{code}/qr.svg"): ANYONE,
    ("GET", "/draw-sheet"): ANYONE,
    ("GET", "/api/health"): ANYONE,
    ("GET", "/api/session"): ANYONE,
    ("POST", "/api/login"): ANYONE,
    ("POST", "/api/logout"): ANYONE,
    # reading
    ("GET", "/api/room"): READ,
    ("GET", "/api/tables"): READ,
    ("GET", "/api/tables/{table}"): READ,
    ("GET", "/api/tables/{table}/events"): READ,
    ("GET", "/api/alerts"): READ,
    ("GET", "/api/commands"): READ,
    ("GET", "/api/schedule"): READ,
    ("GET", "/api/players"): READ,
    ("GET", "/api/rounds"): READ,
    ("GET", "/api/timeline"): READ,
    ("GET", "/api/results"): READ,
    ("GET", "/api/results.csv"): READ,
    ("GET", "/api/results.json"): READ,
    ("GET", "/api/audit"): READ,
    ("GET", "/api/draw"): READ,
    ("GET", "/api/draw.csv"): READ,
    ("GET", "/api/draw/sheet"): READ,
    ("GET", "/api/matches/{match_id}/transcript"): READ,
    ("GET", "/transcript/{match_id}"): READ,
    ("GET", "/api/dice"): READ,
    ("GET", "/api/dice.csv"): READ,
    ("GET", "/api/ws"): READ,
    ("GET", "/api/fleet"): READ,
    ("GET", "/api/fleet/hub"): READ,
    # a table
    ("POST", "/api/tables/{table}/commands"): TABLE_ACTIONS,
    ("POST", "/api/tables/{table}/automation"): TABLE_ACTIONS,
    ("POST", "/api/tables/{table}/release"): TABLE_ACTIONS,
    ("POST", "/api/alerts/{alert_id}/ack"): ALERTS,
    # results
    ("POST", "/api/results/verify-confirmed"): RESULTS,
    ("POST", "/api/results/{match_id}/verify"): RESULTS,
    ("POST", "/api/results/{match_id}/correct"): RESULTS,
    # the room
    ("POST", "/api/rounds/{round}/start"): ROOM,
    ("POST", "/api/rounds/{round}/delay"): ROOM,
    ("POST", "/api/room/pause"): ROOM,
    ("POST", "/api/room/resume"): ROOM,
    ("POST", "/api/room/automation"): ROOM,
    ("POST", "/api/matches/{match_id}/move"): ROOM,
    # the draw: its definition (a file, like the schedule), then its flights, calls, withdrawals
    # and undone results
    ("POST", "/api/draw/define"): SCHEDULE,
    ("POST", "/api/draw/flights/{flight}/hold"): ROOM,
    ("POST", "/api/draw/flights/{flight}/resume"): ROOM,
    ("POST", "/api/draw/matches/{match}/hold"): ROOM,
    ("POST", "/api/draw/matches/{match}/release"): ROOM,
    ("POST", "/api/draw/matches/{match}/move"): ROOM,
    ("POST", "/api/draw/swap"): ROOM,
    ("POST", "/api/draw/matches/{match}/undo"): ROOM,
    ("POST", "/api/draw/players/{player}/withdraw"): ROOM,
    # the schedule
    ("POST", "/api/schedule"): SCHEDULE,
    ("POST", "/api/schedule/preview"): SCHEDULE,
    # the Tables page
    ("POST", "/api/fleet/{device}/identify"): FLEET_CONTROL,
    ("POST", "/api/fleet/{device}/restart"): FLEET_CONTROL,
    ("POST", "/api/fleet/{device}/button-test"): FLEET_CONTROL,
    ("POST", "/api/fleet/{device}/hardware-check"): FLEET_CONTROL,
    ("POST", "/api/fleet/{device}/enroll"): FLEET_SETUP,
    ("POST", "/api/fleet/{device}/retire"): FLEET_SETUP,
    ("POST", "/api/fleet/{device}/update"): FLEET_SETUP,
    # accounts
    ("GET", "/api/accounts"): ACCOUNTS,
    ("POST", "/api/accounts"): ACCOUNTS,
    ("POST", "/api/accounts/{name}/remove"): ACCOUNTS,
    # the devices' own endpoints
    ("POST", "/device/v1/hello"): DEVICE,
    ("POST", "/device/v1/poll"): DEVICE,
    ("GET", "/device/v1/software"): DEVICE,
    ("GET", "/device/v1/software/{file}"): DEVICE,
}


def needs(method: str, route: str) -> str | None:
    """What ``method route`` needs (a permission, :data:`ANYONE` or :data:`DEVICE`); None: unknown."""
    return ROUTES.get(("GET" if method == "HEAD" else method, route))


def may(role: str | None, permission: str) -> bool:
    return role is not None and permission in GRANTS.get(role, frozenset())


def granted(role: str | None) -> list[str]:
    """The permissions of ``role``, in :data:`PERMISSIONS` order (what the dashboard shows)."""
    return [p for p in PERMISSIONS if may(role, p)]


def endpoint_table() -> str:
    """The role × endpoint table of docs/api.md (a test checks the two agree)."""
    head = "| endpoint | needs | " + " | ".join(LABELS[r] for r in ROLES) + " |"
    lines = [head, "|---|---|" + "---|" * len(ROLES)]
    for (method, route), needed in sorted(ROUTES.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if needed in (ANYONE, DEVICE):
            marks = ["✓"] * len(ROLES)
            shown = "anyone" if needed == ANYONE else "a device (its own key)"
        else:
            marks = ["✓" if may(r, needed) else "—" for r in ROLES]
            shown = f"`{needed}`"
        lines.append(f"| `{method} {route}` | {shown} | " + " | ".join(marks) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(endpoint_table(), end="")
