"""``bghub user add|list|remove|passwd``: the TD team's accounts, in the hub's database
(hub/web/accounts.py).

Works on the database file whether or not the hub is running (SQLite lets both write): an
account added is usable at the next login; one removed, or given a new password, is logged out
at once — its next request is refused and a running hub closes its live pages within a second
(a session belongs to the account's id and password generation, not to its name).
"""

from __future__ import annotations

import argparse
import sys
import time

from hub.storage.dbfile import DatabaseFileError, check_database
from hub.storage.store import Store, StoreWriteFailed
from hub.web.accounts import AccountError, change_password, list_accounts, new_account, remove_account
from hub.web.auth import read_password_file
from hub.web.roles import LABELS, ROLES


def add_user_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("user", help="the TD team's accounts: add, list, remove, passwd")
    users = p.add_subparsers(dest="user_command", required=True, metavar="ACTION")
    add = users.add_parser("add", help="add an account")
    add.add_argument("name", help="the name to log in with (letters, digits, . _ -)")
    add.add_argument(
        "--role",
        required=True,
        choices=ROLES,
        help="chief (chief TD: everything), td (table actions, penalties, waivers, results), "
        "scorer (verify and correct results), viewer (read only)",
    )
    add.add_argument("--password-file", required=True, metavar="FILE", help="the password: its first line")
    add.add_argument("--db", required=True, metavar="FILE", help="the hub's database")
    add.set_defaults(func=main_add)
    ls = users.add_parser("list", help="list the accounts")
    ls.add_argument("--db", required=True, metavar="FILE", help="the hub's database")
    ls.set_defaults(func=main_list)
    rm = users.add_parser("remove", help="remove an account (its sessions end)")
    rm.add_argument("name")
    rm.add_argument("--db", required=True, metavar="FILE", help="the hub's database")
    rm.set_defaults(func=main_remove)
    pw = users.add_parser("passwd", help="give an account a new password (its sessions end)")
    pw.add_argument("name")
    pw.add_argument("--password-file", required=True, metavar="FILE", help="the new password: its first line")
    pw.add_argument("--db", required=True, metavar="FILE", help="the hub's database")
    pw.set_defaults(func=main_passwd)


def _open(path: str) -> Store:
    check_database(path)
    return Store(path)


def _run(args: argparse.Namespace, action: str) -> int:
    try:
        store = _open(args.db)
    except (DatabaseFileError, OSError) as exc:
        print(f"bghub user: {exc}", file=sys.stderr)
        return 2
    try:
        now = int(time.time() * 1000)
        if action == "add":
            password = read_password_file(args.password_file)
            row = new_account(store, args.name, args.role, password, now)
            store.audit("cli", "account_add", now, detail={"name": row["name"], "role": row["role"]})
            store.commit()
            print(f"added {row['name']} ({LABELS[row['role']]})")
        elif action == "remove":
            remove_account(store, args.name)
            store.audit("cli", "account_remove", now, detail={"name": args.name})
            store.commit()
            print(f"removed {args.name}")
        elif action == "passwd":
            change_password(store, args.name, read_password_file(args.password_file))
            store.audit("cli", "account_password", now, detail={"name": args.name})
            store.commit()
            print(f"new password for {args.name}; its sessions have ended")
        else:
            for a in list_accounts(store):
                note = "  (the hub's own password)" if a["builtin"] else ""
                print(f"{a['name']}\t{a['role']}{note}")
    except (AccountError, OSError, ValueError, StoreWriteFailed) as exc:
        print(f"bghub user {action}: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    return 0


def main_add(args: argparse.Namespace) -> int:
    return _run(args, "add")


def main_list(args: argparse.Namespace) -> int:
    return _run(args, "list")


def main_remove(args: argparse.Namespace) -> int:
    return _run(args, "remove")


def main_passwd(args: argparse.Namespace) -> int:
    return _run(args, "passwd")
