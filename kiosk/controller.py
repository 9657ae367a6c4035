"""The table controller: the one owner of a table's state, journal first, then the reducer.

Every input, whatever its source (touchscreen, clock buttons, dice tower, hub command, restore),
goes through :meth:`TableController.submit`: it is stamped with the journal's time (``at``) and
the wall time, written durably to the journal, and only then applied with
``rulebook.table.apply``. So the state in memory is at every moment ``replay(journal)``, and a
process killed between the write and the apply comes back with the same state.

No display, no network, no threads here: the kiosk's main loop calls it, and hands the events
and state to whoever listens (the MQTT link, the screen).
"""

from __future__ import annotations

import json
import logging
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeGuard

from kiosk import checkpoint
from kiosk.journal import Journal, JournalClock, JournalError, Scan, wall_ms
from kiosk.journal_health import DAMAGED, LOST, JournalHealth, Notice
from kiosk.refusal import Refusal, refusal_of
from kiosk.screen_state import ScreenSnapshot, on_screen
from rulebook.custom_profiles import custom_rules
from rulebook.legal import legal_actions
from rulebook.messages import Event, Snapshot
from rulebook.profiles import Profile
from rulebook.snapshot import snapshot
from rulebook.table import TableState, apply, new_table
from rulebook.vocab import InputType, PauseReason

log = logging.getLogger(__name__)

Listener = Callable[[list[Event], "TableController"], None]


class TableController:
    """Stamps, journals and applies inputs; keeps the state, recent events and a snapshot.

    ``clock_ms`` gives ``at`` in the journal's time base (default: a :class:`JournalClock`
    continuing from the journal's last ``at``); ``wall_ms`` gives epoch milliseconds.
    A ``cmd`` without ``id`` (a TD action on the screen) gets a ``local:`` id; an ``assign``
    without ``profile`` gets ``default_profile``. Both are journaled as completed.
    """

    def __init__(
        self,
        journal: Journal,
        table_id: str,
        clock_ms: Callable[[], int] | None = None,
        wall_ms: Callable[[], int] = wall_ms,
        tick_interval_ms: int = 1000,
        keep_events: int = 200,
        default_profile: str | None = None,
        health: JournalHealth | None = None,
        checkpoint_every: int = checkpoint.EVERY,
    ):
        self.journal = journal
        self.table_id = table_id
        self.clock_ms: Callable[[], int] = clock_ms or JournalClock(journal.last_at())
        self.wall_ms = wall_ms
        self.tick_interval_ms = tick_interval_ms
        #: rules for an assignment that names none (written into the journaled input)
        self.default_profile = default_profile
        self.state: TableState = new_table(table_id)
        self.events: deque[Event] = deque(maxlen=keep_events)
        self.listeners: list[Listener] = []
        #: the journal's marker and open notice (``health.notice``: shown, sent to the hub)
        self.health = health if health is not None else JournalHealth(None)
        self.checkpoint_every = checkpoint_every
        #: inputs found in the journal at restore
        self.restored_inputs = 0
        #: the checkpoint the restore started from (0: replayed from the first input)
        self.restored_from = 0
        self._last_at = journal.last_at()
        self._published = snapshot(self.state)
        #: the profile whose rules the screens were last given, and those rules (screen_snapshot)
        self._screen_rules: tuple[Profile, dict[str, Any] | None] | None = None
        #: why the last input was refused, with the values its message names (None: it was taken)
        self.refusal: Refusal | None = None

    # -- restore ------------------------------------------------------------------------------

    def restore(self, stored_seq: Callable[[str | None], int | None] | None = None) -> list[Event]:
        """Rebuild the state from the journal; pause a match that was running when it stopped.

        The state comes from the newest usable checkpoint plus the inputs after it (the same
        state as replaying every input). A journal found damaged or lost raises a notice and
        pauses a match under way for the TD (reason ``td``); otherwise a match under way is
        paused for ``power_loss``. The pause is stamped at the journal's last ``at``: the time
        between the last journaled input (at most one tick interval before the cut) and the
        restart is nobody's time. Returns the events of that pause (empty if none was needed).

        ``stored_seq(match_id)`` says up to which ``seq`` the current match's events were stored
        to send (the outbox): a power cut between journaling an input and storing its events
        leaves a gap, whose events replaying the journal makes again, identical, for the
        listeners, before the pause's own. Every event the table makes reaches the hub.
        """
        scan = self.journal.take_scan() or self.journal.scan()
        state = self._rebuild(scan)
        self.state = state
        self.restored_inputs = scan.good
        self._published = snapshot(state)
        if stored_seq is not None:
            self._catch_up(scan, stored_seq(state.match_id) or 0)
        notice = self._check_journal(scan, state)
        self.health.mark(state.match_id, state.seq, scan.good)
        if notice is not None:
            if self.health.notice is None:
                self.health.raise_notice(notice)
            else:  # the TD has not seen the table since the first problem: that one stays shown
                log.error("journal %s again (%s); the open notice stays", notice.problem, notice.reason)
            if table_may_pause(state, PauseReason.TD):
                log.error("journal %s: clock paused until the TD comes", notice.problem)
                return self.submit({"input": InputType.PAUSE, "reason": PauseReason.TD}, at=state.now)
            return []
        if not needs_power_loss_pause(state):
            return []
        events = self.submit({"input": InputType.PAUSE, "reason": PauseReason.POWER_LOSS}, at=state.now)
        log.warning("restored match %s after power loss: clock paused", state.match_id)
        return events

    def _catch_up(self, scan: Scan, stored: int) -> None:
        """Hand the listeners the current match's events after ``stored`` (a full replay: every
        tick included, so each event is the one made the first time, ``wall`` and all)."""
        match_id = self.state.match_id
        if match_id is None or self.state.seq <= stored:
            return
        state, missing = new_table(self.table_id), []
        for line in scan.lines:
            state, events = apply(state, _parse(line))
            missing += [e for e in events if e.get("match_id") == match_id and e["seq"] > stored]
        log.warning(
            "events %d..%d of %s were not stored to send: stored now", stored + 1, state.seq, match_id
        )
        for listener in list(self.listeners):
            try:
                listener(missing, self)
            except Exception:  # a listener's failure must not stop the table
                log.exception("listener failed")

    def _rebuild(self, scan: Scan) -> TableState:
        """The state after the scan's good inputs: from a checkpoint when one is usable."""
        state, start = new_table(self.table_id), 0
        fmt = checkpoint.current_format()
        for cp in scan.checkpoints:
            if cp.format != fmt:
                log.info("checkpoint at input %d is of another rulebook; not used", cp.n)
                continue
            try:
                decoded = checkpoint.decode(cp.body)
            except checkpoint.CheckpointError as exc:
                log.warning("checkpoint at input %d not used: %s", cp.n, exc)
                continue
            if isinstance(decoded, TableState):
                # the table's label is configuration, not match data (see set_table_id)
                state, start = replace(decoded, table=self.table_id), cp.n
                break
        self.restored_from = start
        rows = [_parse(line) for line in scan.lines[start:]]
        for i, row in enumerate(rows):
            if _is_covered_tick(row, rows[i + 1] if i + 1 < len(rows) else None, state.now):
                continue
            state, _ = apply(state, row)
        return state

    def _check_journal(self, scan: Scan, state: TableState) -> Notice | None:
        """A new notice when the journal came back damaged, shorter than recorded, or lost."""
        damage = self.journal.damage
        wall = self.wall_ms()
        if damage is not None:
            return Notice(
                problem=DAMAGED,
                match_id=state.match_id,
                after_input=damage.after_input,
                last_seq=None,
                aside=damage.aside.name if damage.aside else None,
                reason=damage.reason[:300],
                since_wall=wall,
            )
        if scan.problem is not None:  # a journal opened without repair (tools): report only
            log.error("journal damaged after input %d: %s", scan.good, scan.problem)
        marker = self.health.marker
        if marker is None or marker.inputs <= scan.good:
            return None
        if marker.match_id is not None and (scan.good == 0 or marker.match_id != state.match_id):
            log.error(
                "journal lost: it holds %d inputs, match %s had %d", scan.good, marker.match_id, marker.inputs
            )
            return Notice(
                problem=LOST,
                match_id=marker.match_id,
                after_input=scan.good,
                last_seq=marker.seq,
                aside=None,
                reason=f"the journal holds {scan.good} inputs; {marker.inputs} were recorded",
                since_wall=wall,
            )
        if scan.good == 0:
            return None  # no match was under way: nothing the TD needs to know
        log.error("journal ends at input %d; %d were recorded", scan.good, marker.inputs)
        return Notice(
            problem=DAMAGED,
            match_id=state.match_id,
            after_input=scan.good,
            last_seq=None,
            aside=None,
            reason=f"the journal ends at input {scan.good}; {marker.inputs} were recorded",
            since_wall=wall,
        )

    # -- inputs -------------------------------------------------------------------------------

    def now(self) -> int:
        """The journal time now (never before the last journaled ``at``)."""
        return max(self.clock_ms(), self._last_at)

    def submit(self, inp: dict[str, Any], at: int | None = None) -> list[Event]:
        """Journal one input, then apply it; returns its events (rejections included).

        ``at`` (or the input's own ``at``, e.g. a button's edge time) is kept when it lies
        between the last journaled instant and now, and clamped into that range otherwise.
        """
        self.refusal = None
        if not isinstance(inp, dict):
            log.warning("ignored an input that is not an object: %r", inp)
            # the reducer's own answer (``input.not_object``), neither journaled nor sent: its
            # state is not kept, so its number is the next input's again
            _, refused = apply(self.state, inp)
            self.refusal = refusal_of(self.state, {}, refused)
            return refused
        now = self.now()
        given = at if at is not None else inp.get("at")
        stamp = now
        if isinstance(given, int) and not isinstance(given, bool):
            stamp = min(max(given, self._last_at), now)
        line: dict[str, Any] = {"at": stamp, "wall": self.wall_ms() - (now - stamp)}
        line.update((k, v) for k, v in inp.items() if k not in ("at", "wall"))
        if line.get("input") == InputType.CMD and not line.get("id"):
            line["id"] = f"local:{uuid.uuid4().hex}"
        if line.get("input") == InputType.ASSIGN and "profile" not in line and self.default_profile:
            line["profile"] = self.default_profile
        self.journal.append(line)
        self._last_at = stamp
        before = self.state
        self.state, events = apply(before, line)
        self._after_input(events)
        self.refusal = refusal_of(before, line, events)
        if self.refusal is not None:
            log.info("refused %s: %s %s", line.get("input"), self.refusal.code, dict(self.refusal.params))
        self.events.extend(events)
        if events:
            self._published = snapshot(self.state)
            for listener in list(self.listeners):
                try:
                    listener(events, self)
                except Exception:  # a listener's failure must not stop the table
                    log.exception("listener failed")
        return events

    def _after_input(self, events: list[Event]) -> None:
        """Checkpoint, marker and notice upkeep after a journaled input (never fatal)."""
        inputs = self.journal.count()
        state = self.state
        if self.checkpoint_every > 0 and inputs % self.checkpoint_every == 0:
            try:
                self.journal.put_checkpoint(inputs, checkpoint.current_format(), checkpoint.encode(state))
            except (checkpoint.CheckpointError, JournalError) as exc:
                log.warning("no checkpoint at input %d: %s", inputs, exc)
            self.health.mark(state.match_id, state.seq, inputs)
        elif self.health.due_mark(state.match_id, inputs):
            self.health.mark(state.match_id, state.seq, inputs)
        if self.health.clears(state.match_id, events):
            log.info("journal notice cleared by the TD (or a new match)")
            self.health.clear_notice()

    @property
    def journal_notice(self) -> Notice | None:
        """The open journal notice (the banner; ``status.journal`` for the hub)."""
        return self.health.notice

    def close(self) -> None:
        """Record the marker as of now (a clean stop), then close the journal."""
        self.health.mark(self.state.match_id, self.state.seq, self.journal.count())
        self.journal.close()

    def tick_due(self, now: int | None = None) -> bool:
        """Whether a ``tick`` should be journaled now.

        Only while time matters: a clock runs (at most one tick interval of it is lost on a
        power cut) or a player is on a break; at once when the running reserve has run out, so
        the flag is seen and published at the right moment.
        """
        now = self.now() if now is None else now
        clock = self.state.clock
        flag_at = clock.flag_time()
        if flag_at is not None and flag_at <= now and flag_at > self.state.now:
            return True
        away = self.state.away.a or self.state.away.b
        if not (clock.is_running() or away):
            return False
        return now - self._last_at >= self.tick_interval_ms

    def maybe_tick(self) -> list[Event]:
        now = self.now()
        if self.tick_due(now):
            return self.submit({"input": InputType.TICK}, at=now)
        return []

    # -- reading ------------------------------------------------------------------------------

    def snapshot(self, at: int | None = None) -> Snapshot:
        """The state snapshot with clock values as of ``at`` (default: now)."""
        return snapshot(self.state, self.now() if at is None else max(at, self.state.now))

    def screen_snapshot(self, at: int | None = None) -> ScreenSnapshot:
        """The snapshot the screens draw: a custom profile's rules added (``rules``), so that a
        break's length or a lateness schedule shows as the table plays it. Not published: the
        hub knows the profile it sent."""
        profile = self.state.profile
        if self._screen_rules is None or self._screen_rules[0] is not profile:
            self._screen_rules = (profile, custom_rules(profile))
        return on_screen(self.snapshot(at), self._screen_rules[1])

    def published_snapshot(self) -> Snapshot:
        """The snapshot as of the last change (safe to read from another thread)."""
        return self._published

    @property
    def power_loss(self) -> bool:
        """The clock stands paused since a restore after a power cut (the screen says so)."""
        return self.state.paused == PauseReason.POWER_LOSS

    def set_table_id(self, table_id: str) -> None:
        """A new table label (configuration, not match data: it is not journaled)."""
        self.table_id = table_id
        self.state = replace(self.state, table=table_id)
        self._published = snapshot(self.state)


def table_may_pause(state: TableState, reason: PauseReason) -> bool:
    """Whether the rulebook takes the table's own pause for ``reason`` now (``legal.table.pause``)."""
    return reason in legal_actions(state).table.pause


def needs_power_loss_pause(state: TableState) -> bool:
    """A match was under way when the table stopped (a running clock or a game in progress) and
    the rulebook takes the table's power-cut pause now."""
    if not (state.clock.is_running() or state.is_in_game()):
        return False
    return table_may_pause(state, PauseReason.POWER_LOSS)


def _is_covered_tick(row: Any, after: Any, now: int) -> bool:
    """A tick followed by a later tick changes nothing the later one does not (a tick "advances
    time only", PROTOCOL.md §1; a flag falls at its exact instant whichever tick finds it).
    Skipping such runs makes restoring hours of clock time quick; the state is the same."""
    if not isinstance(row, dict) or not isinstance(after, dict):
        return False
    if row.get("input") != InputType.TICK or after.get("input") != InputType.TICK:
        return False
    at, later = row.get("at"), after.get("at")
    return _is_ms(at) and _is_ms(later) and now <= at <= later


def _parse(line: str) -> Any:
    """A verified journal line (its checksum held, so it is the object that was written); a line
    that is not JSON after all is handed on as ``None``, which the reducer rejects."""
    try:
        return json.loads(line)
    except ValueError:
        log.error("journal line is not JSON: %.80r", line)
        return None


def _is_ms(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
