"""The TD team's named accounts: a name, a role (hub/web/roles.py) and a scrypt hash, in the hub's database.

Managed with ``bghub user add|list|remove|passwd`` (hub/web/accounts_cli.py) and, by the chief TD, on the
dashboard's Accounts page. The hub's own password (``--password-file``, or the one printed at
start) stays the account :data:`BUILTIN`, a chief TD, so a set-up from before named accounts
logs in as it always did. A name is also what every audit row says, so the names the hub uses for
itself (``hub`` for what it does automatically, ``cli`` for a schedule given at start) and
``anonymous`` cannot be taken.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from hub.live.actions import ActionError
from hub.live.clock import Clock
from hub.storage.store import Store
from hub.web.auth import BUILTIN_USER, Auth, Session, hash_password
from hub.web.roles import CHIEF, LABELS, ROLES, granted

#: the hub's own password logs in as this chief TD
BUILTIN = BUILTIN_USER
RESERVED = frozenset({BUILTIN, "hub", "cli", "anonymous"})
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
MIN_PASSWORD = 8


class AccountError(ActionError):
    """An account cannot be added or removed as asked (the message says why; ``status`` 409 for a
    name taken, 404 for no such account)."""


def check_name(name: object) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise AccountError("name: 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit")
    if name.lower() in RESERVED:
        raise AccountError(f"name: {name!r} is the hub's own; choose another")
    return name


def check_role(role: object) -> str:
    if role not in ROLES:
        raise AccountError(f"role: expected one of {', '.join(ROLES)}")
    return str(role)


def check_password(password: object) -> str:
    if not isinstance(password, str) or len(password.strip()) < MIN_PASSWORD:
        raise AccountError(f"password: at least {MIN_PASSWORD} characters")
    if len(password) > 1024:
        raise AccountError("password: at most 1024 characters")
    return password


def add_account(store: Store, name: object, role: object, password_hash: str, wall: int) -> dict[str, Any]:
    """Add an account (``password_hash`` from :func:`hub.web.auth.hash_password`); not committed."""
    name, role = check_name(name), check_role(role)
    if any(a["name"].lower() == name.lower() for a in store.accounts()):
        raise AccountError(
            f"an account {name!r} exists already; give it a new password with passwd", status=409
        )
    store.add_account(name, role, password_hash, wall)
    return {"name": name, "role": role, "created_wall": wall}


def new_account(store: Store, name: object, role: object, password: object, wall: int) -> dict[str, Any]:
    """:func:`add_account` with the password hashed here (blocking: scrypt)."""
    check_name(name)
    check_role(role)
    return add_account(store, name, role, hash_password(check_password(password)), wall)


def remove_account(store: Store, name: str) -> None:
    """Remove an account; not committed."""
    if name == BUILTIN:
        raise AccountError(f"{BUILTIN!r} is the hub's own password account; it cannot be removed")
    if not store.remove_account(name):
        raise AccountError(f"no account {name!r}", status=404)


def change_password(store: Store, name: str, password: object) -> None:
    """Give an account a new password (hashed here: blocking, scrypt); not committed. Its
    password generation moves on, so every session logged in with the old one ends, in this
    process or in a hub that has the database open (:meth:`hub.web.auth.Auth.expire`)."""
    if name == BUILTIN:
        raise AccountError(
            f"{BUILTIN!r} is the hub's own password: change the hub's --password-file and restart it"
        )
    hashed = hash_password(check_password(password))
    if not store.set_password(name, hashed):
        raise AccountError(f"no account {name!r}", status=404)


def list_accounts(store: Store) -> list[dict[str, Any]]:
    """Every account, the hub's own first."""
    return [{"name": BUILTIN, "role": CHIEF, "created_wall": None, "builtin": True}] + [
        {**a, "builtin": False} for a in store.accounts()
    ]


class Accounts:
    """The TD team's accounts as the chief TD changes them on the dashboard: the action object of
    the Accounts page, as :class:`hub.live.actions.Actions` is a table's and
    :class:`hub.live.round_control.RoundControl` the room's. Each change is checked (an
    :class:`AccountError` says why, nothing done), audited and committed."""

    def __init__(self, store: Store, clock: Clock, auth: Auth) -> None:
        self.store = store
        self.clock = clock
        self.auth = auth

    def listed(self) -> dict[str, Any]:
        """Every account with whether it is logged in now, who is, and what each role may do."""
        team = self.auth.team()
        online = {p["user"] for p in team}
        return {
            "accounts": [{**a, "logged_in": a["name"] in online} for a in list_accounts(self.store)],
            "team": team,
            "roles": [{"role": r, "label": LABELS[r], "permissions": granted(r)} for r in ROLES],
        }

    async def add(self, name: object, role: object, password: object, actor: str) -> dict[str, Any]:
        """A new account (its password hashed off the loop: scrypt takes a while)."""
        name, role = check_name(name), check_role(role)
        password = check_password(password)
        hashed = await asyncio.get_running_loop().run_in_executor(None, hash_password, password)
        now = self.clock.now_wall()
        row = add_account(self.store, name, role, hashed, now)
        self.store.audit(actor, "account_add", now, detail={"name": name, "role": role})
        self.store.commit()
        return row

    def remove(self, name: str, actor: str, by: Session | None) -> list[str]:
        """Remove an account and end its sessions (not the one removing it); their tokens."""
        if by is not None and by.named and by.user == name:
            raise AccountError("you cannot remove the account you are logged in with")
        remove_account(self.store, name)
        now = self.clock.now_wall()
        self.store.audit(actor, "account_remove", now, detail={"name": name})
        self.store.commit()
        return self.auth.end_user(name)
