"""The TD team's named accounts: a name, a role (hub/roles.py) and a scrypt hash, in the hub's database.

Managed with ``bghub user add|list|remove|passwd`` (hub/accounts_cli.py) and, by the chief TD, on the
dashboard's Accounts page. The hub's own password (``--password-file``, or the one printed at
start) stays the account :data:`BUILTIN`, a chief TD, so a set-up from before named accounts
logs in as it always did. A name is also what every audit row says, so the names the hub uses for
itself (``hub`` for what it does automatically, ``cli`` for a schedule given at start) and
``anonymous`` cannot be taken.
"""

from __future__ import annotations

import re
from typing import Any

from hub.auth import BUILTIN_USER, hash_password
from hub.errors import HubError
from hub.roles import CHIEF, ROLES
from hub.store import Store

#: the hub's own password logs in as this chief TD
BUILTIN = BUILTIN_USER
RESERVED = frozenset({BUILTIN, "hub", "cli", "anonymous"})
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
MIN_PASSWORD = 8


class AccountError(HubError, ValueError):
    """An account cannot be added or removed as asked (the message says why)."""


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
    """Add an account (``password_hash`` from :func:`hub.auth.hash_password`); not committed."""
    name, role = check_name(name), check_role(role)
    if any(a["name"].lower() == name.lower() for a in store.accounts()):
        raise AccountError(f"an account {name!r} exists already; give it a new password with passwd")
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
        raise AccountError(f"no account {name!r}")


def change_password(store: Store, name: str, password: object) -> None:
    """Give an account a new password (hashed here: blocking, scrypt); not committed. Its
    password generation moves on, so every session logged in with the old one ends, in this
    process or in a hub that has the database open (:meth:`hub.auth.Auth.expire`)."""
    if name == BUILTIN:
        raise AccountError(
            f"{BUILTIN!r} is the hub's own password: change the hub's --password-file and restart it"
        )
    hashed = hash_password(check_password(password))
    if not store.set_password(name, hashed):
        raise AccountError(f"no account {name!r}")


def list_accounts(store: Store) -> list[dict[str, Any]]:
    """Every account, the hub's own first."""
    return [{"name": BUILTIN, "role": CHIEF, "created_wall": None, "builtin": True}] + [
        {**a, "builtin": False} for a in store.accounts()
    ]
