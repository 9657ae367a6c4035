"""The hub's settings: one frozen value every job of the hub reads (``bghub run`` fills it)."""

from __future__ import annotations

from dataclasses import dataclass

from rulebook.profiles import DEFAULT_PROFILE


@dataclass(frozen=True, slots=True)
class HubConfig:
    event: str
    broker_host: str = "127.0.0.1"
    broker_port: int = 1883
    username: str | None = None
    password: str | None = None
    client_id: str | None = None
    #: the rules profile for schedule rows that name none
    profile: str = DEFAULT_PROFILE
    offline_grace_ms: int = 30_000
    not_started_grace_ms: int = 5 * 60_000
    #: a finished match stays on its table this long before the next round's is assigned
    hold_ms: int = 2 * 60_000
    #: commands are refused by a table after this long (PROTOCOL §3.3 expires_wall)
    cmd_ttl_ms: int = 60_000
    #: an unanswered automatic command is sent again after this long
    resend_after_ms: int = 30_000
    #: seconds between ticks; None: only when ``tick()`` is called
    tick_interval: float | None = 1.0
