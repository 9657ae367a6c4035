"""``bgtable enroll`` and the set-up options of ``bgtable run`` (docs/install-pi.md).

``bgtable enroll --hub http://HOST:PORT --state-dir DIR [--device-id ID] [--timeout S]`` is what
an unconfigured table does, without a screen:

- prints ``hub key FINGERPRINT`` once the hub answered (compare it with the Tables page), and
  ``code NNNN`` as soon as the hub knows the device (again if the code is renewed);
- waits until the TD enrolls it on the Tables page, writes ``DIR/table.toml`` (and
  ``DIR/broker-ca.pem`` when the broker uses TLS), prints ``enrolled as table T``, exits 0;
- hub unreachable within the timeout: one line on standard error, exit 2; the hub refused, or
  the TD did not enroll it within the timeout: one line, exit 1.

Without ``--hub`` the hub is looked for as ``bgtable run`` does (boot-partition file, mDNS); when
two hubs of the event answer, it names them and exits 2 (a ``hub`` line or ``--hub`` decides).
A ``hub_key`` line in the settings file pins the hub's key from the first contact.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kiosk.discovery import HUB_FILES


def add_setup_arguments(run: argparse.ArgumentParser) -> None:
    """``bgtable run``'s options for a table that is not set up yet (its --config is missing)."""
    run.add_argument(
        "--hub", metavar="URL", help="not set up yet: enroll with this hub (default: boot file, then mDNS)"
    )
    run.add_argument(
        "--hub-file",
        metavar="FILE",
        help=f"settings file with a 'hub = HOST:PORT' line (default: {', '.join(HUB_FILES)})",
    )
    run.add_argument(
        "--device-id", metavar="ID", help="this device's id at the hub (default: from machine-id)"
    )


def add_enroll_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("enroll", help="enroll this table with the hub (prints its code, waits for the TD)")
    p.add_argument("--hub", metavar="URL", help="the hub, http://HOST:PORT (default: boot file, then mDNS)")
    p.add_argument("--state-dir", required=True, metavar="DIR", help="where table.toml and the device key go")
    p.add_argument("--device-id", metavar="ID", help="this device's id at the hub (default: from machine-id)")
    p.add_argument("--timeout", type=float, metavar="S", help="give up after S seconds (default: never)")
    p.add_argument("--hub-file", metavar="FILE", help="settings file with a 'hub = HOST:PORT' line")
    p.set_defaults(func=cmd_enroll)


def cmd_enroll(args: argparse.Namespace) -> int:
    import logging

    from drivers.build_id import running_build
    from kiosk.device_identity import IdentityError, load_or_create
    from kiosk.discovery import DiscoveryError, find_hub, hints_from_files
    from kiosk.enroll import EnrollmentClient, EnrollRefused, EnrollTimeout, HubUnreachable, enroll

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.timeout is not None and args.timeout <= 0:
        print("bgtable enroll: --timeout must be a positive number of seconds", file=sys.stderr)
        return 2
    state_dir = Path(args.state_dir)
    try:
        identity = load_or_create(state_dir, args.device_id)
        files = [args.hub_file] if args.hub_file else list(HUB_FILES)
        found = find_hub(args.hub, files, mdns_timeout=min(5.0, args.timeout or 5.0))
    except (IdentityError, OSError) as exc:
        print(f"bgtable enroll: {exc}", file=sys.stderr)
        return 2
    except DiscoveryError as exc:
        print(f"bgtable enroll: {exc}", file=sys.stderr)
        return 2
    if found is None:
        print("bgtable enroll: no hub found (give --hub http://HOST:PORT)", file=sys.stderr)
        return 2
    client = EnrollmentClient(
        found[0],
        identity,
        version=_version(),
        build=running_build(),
        expect_fingerprint=hints_from_files(files).hub_key,
    )
    try:
        done = enroll(
            client,
            state_dir,
            state_dir / "table.toml",
            timeout=args.timeout,
            on_code=lambda code: print(f"code {code}", flush=True),
            on_key=lambda fingerprint: print(f"hub key {fingerprint}", flush=True),
        )
    except HubUnreachable as exc:
        print(f"bgtable enroll: {exc}", file=sys.stderr)
        return 2
    except (EnrollRefused, EnrollTimeout) as exc:
        print(f"bgtable enroll: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    print(f"enrolled as table {done.table}", flush=True)
    return 0


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("smart-table")
    except Exception:
        return "0"
