"""The hub's settings: one frozen value every job of the hub reads (``bghub run`` fills it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from hub.logic.lateness import LateConfig
from rulebook.custom_profiles import ProfileBook
from rulebook.profiles import DEFAULT_PROFILE

#: under a backlog, the tables that batches of messages touched are looked at (alerts, tiles, the
#: push) at most once per this many seconds, each once however many batches touched it: a
#: flood's batches follow one another a few milliseconds apart, and each looked at its tables
#: again (docs/performance.md). Without a backlog a batch's tables are looked at at once.
FRAME_S = 0.2


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
    #: the profiles a schedule may name: the built-in ones and those of ``--profiles DIR``
    profiles: ProfileBook = field(default_factory=ProfileBook)
    offline_grace_ms: int = 30_000
    not_started_grace_ms: int = 5 * 60_000
    #: "both players are there but the match has not started" waits this long after the second
    #: check-in (setting up the board, the opening roll): never within seconds of it
    opening_grace_ms: int = 5 * 60_000
    #: a finished match stays on its table this long before the next round's is assigned
    hold_ms: int = 2 * 60_000
    #: commands are refused by a table after this long (PROTOCOL §3.3 expires_wall)
    cmd_ttl_ms: int = 60_000
    #: an unanswered automatic command is sent again after this long
    resend_after_ms: int = 30_000
    #: lateness after a late assignment counts from when the table took it, plus this
    assign_grace_ms: int = 0
    #: lateness of a player whose previous match ended after the start counts from its end, plus this
    next_match_grace_ms: int = 0
    #: a late player gets an alert of their own this long before their first point
    late_alert_lead_ms: int = 60_000
    #: a table whose wall clock is further than this from the hub's is reported
    clock_skew_alert_ms: int = 30_000
    #: seconds between ticks; None: only when ``tick()`` is called
    tick_interval: float | None = 1.0
    #: below this much free space on the database's disk the TD is alerted (a day of a big room
    #: writes a few hundred MB; the hub's own limits keep a flood far below that)
    min_free_mb: int = 200
    #: how often the free space is looked at
    disk_check_ms: int = 10_000
    #: messages a second one table may send on average, and in a burst (hub.live.ratelimit); a real
    #: table sends a few a second while play is fast and its outbox (64 at a time) on reconnecting
    table_rate: float = 20.0
    table_burst: int = 1000
    #: events kept per match: a 25-point match with a clock and a dice tower makes a few thousand
    max_events_per_match: int = 50_000
    #: the frame of the batches' looks under a backlog (:data:`FRAME_S`; hub.live.core)
    frame_s: float = FRAME_S
    #: rooms joined by bridges: (room, its tables) pairs (hub.live.bridged_rooms; docs/rooms.md)
    rooms: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def late(self) -> LateConfig:
        """The lateness settings (:mod:`hub.logic.lateness`)."""
        return LateConfig(self.assign_grace_ms, self.next_match_grace_ms)
