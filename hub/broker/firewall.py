"""``broker-firewall.nft``: per-source connection limits in front of the broker (nftables).

Mosquitto's ``max_connections`` is one number for everybody: a stranger on the room's network
with no credential at all could open sockets that never send CONNECT and hold the tables' slots
(Mosquitto drops such a socket after about a minute, and the stranger simply opens it again).
No broker option counts connections per address; the kernel can. The rule file that
``bghub broker-config`` writes next to ``mosquitto.conf`` lets each source address hold at most
:data:`PER_SOURCE` connections to the broker's ports at once, and open at most
:data:`NEW_PER_MINUTE` new ones a minute (a table holds one, and reconnects with a back-off).
Loopback (the hub itself, a ``monitor`` on the same machine) is not limited.

Loaded by the organiser as root (``nft -f``; docs/deployment.md): it creates, or replaces, a
table of its own and changes no other rule of the machine.
"""

from __future__ import annotations

from collections.abc import Sequence

#: the file's name in broker-config's output directory
FIREWALL_NAME = "broker-firewall.nft"
#: the nftables table the rules live in (replaced whole at each load)
NFT_TABLE = "bgtable_broker"
#: connections one address may hold to the broker at once: a table needs one, and a second
#: while its old one times out after a network cut; more is never a table
PER_SOURCE = 4
#: new connections one address may open a minute (a table reconnects with a back-off)
NEW_PER_MINUTE = 30


def render_nft(event: str, ports: Sequence[int]) -> str:
    """The rule file for a broker listening on ``ports``."""
    port_set = ", ".join(str(p) for p in sorted(set(ports)))
    rate = f"limit rate over {NEW_PER_MINUTE}/minute"
    return "\n".join(
        [
            "#!/usr/sbin/nft -f",
            f"# Per-source connection limits in front of the broker of event {event!r}:",
            "# written by `bghub broker-config` (docs/deployment.md). Load it as root with",
            f"#   nft -f {FIREWALL_NAME}",
            "# (again after each broker-config run); it replaces only its own table.",
            f"table inet {NFT_TABLE}",
            f"delete table inet {NFT_TABLE}",
            f"table inet {NFT_TABLE} {{",
            "    # addresses with connections open to the broker, each with its count",
            "    set held_v4 { type ipv4_addr; size 65535; flags dynamic; }",
            "    set held_v6 { type ipv6_addr; size 65535; flags dynamic; }",
            "    # addresses opening connections, each with its rate",
            "    set opening_v4 { type ipv4_addr; size 65535; flags dynamic, timeout; timeout 2m; }",
            "    set opening_v6 { type ipv6_addr; size 65535; flags dynamic, timeout; timeout 2m; }",
            "",
            "    chain input {",
            "        type filter hook input priority filter - 1; policy accept;",
            "        iif lo accept",
            f"        tcp dport {{ {port_set} }} ct state new jump broker_new",
            "    }",
            "",
            "    chain broker_new {",
            f"        add @held_v4 {{ ip saddr ct count over {PER_SOURCE} }} counter reject with tcp reset",
            f"        add @held_v6 {{ ip6 saddr ct count over {PER_SOURCE} }} counter reject with tcp reset",
            f"        update @opening_v4 {{ ip saddr {rate} }} counter drop",
            f"        update @opening_v6 {{ ip6 saddr {rate} }} counter drop",
            "    }",
            "}",
            "",
        ]
    )
