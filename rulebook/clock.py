"""Simple-delay game clock with per-point reserve (WBGF 3.5, 4.3), immutable, in integer ms.

Modelled on scalachess' ``Clock``: the state is each side's remaining reserve plus, for the
running side, the instant its current span started (``since``) and the delay it still had then.
Reading the clock at ``now`` never changes it; every change takes ``now`` as an argument.

Simple (US) delay: each turn the player first spends up to ``delay_ms`` that cost nothing and do
not accumulate; only then does the reserve run. A pause keeps the delay that was left.
"""

from __future__ import annotations

from dataclasses import dataclass

from rulebook.fastreplace import replace
from rulebook.sides import Pair, Side, other

ZERO = Pair(0, 0)
NO = Pair(False, False)


@dataclass(frozen=True, slots=True)
class Clock:
    enabled: bool = False
    delay_ms: int = 0
    #: reserve of each side as of ``since`` (exact for a side that is not running)
    reserve: Pair[int] = ZERO
    #: second time bank per side (3.5 v), switched in when the first is used up
    bank2: Pair[int] = ZERO
    running: Side | None = None
    since: int = 0
    #: delay the running side had left at ``since``
    delay_left: int = 0
    #: pause reason while paused (``running`` is then the side that resumes)
    paused: str | None = None
    #: premature pick-up (4.1 v b): that side's next turn starts without delay
    no_delay_next: Pair[bool] = NO
    flagged: Side | None = None
    flagged_at: int | None = None
    #: reserve charged so far, per side (time conservation: start = reserve + used)
    used: Pair[int] = ZERO

    # -- reading -------------------------------------------------------------------------------

    def is_running(self) -> bool:
        return self.enabled and self.running is not None and self.paused is None

    def _spent(self, now: int) -> tuple[int, int]:
        """(delay spent, reserve spent) by the running side since ``since``."""
        elapsed = max(0, now - self.since)
        delay_spent = min(elapsed, self.delay_left)
        return delay_spent, elapsed - delay_spent

    def reserve_at(self, side: Side, now: int) -> int:
        """Reserve of the bank in use; the second bank once the first has run out (as ``settle``)."""
        base = self.reserve.of(side)
        if side != self.running or not self.is_running():
            return base
        spent = self._spent(now)[1]
        bank2 = self.bank2.of(side)
        if spent >= base and bank2 > 0:
            return max(0, bank2 - (spent - base))
        return max(0, base - spent)

    def bank2_at(self, side: Side, now: int) -> int:
        """The untouched second bank (3.5 v); 0 once it has been switched in."""
        bank2 = self.bank2.of(side)
        if (
            bank2
            and side == self.running
            and self.is_running()
            and self._spent(now)[1] >= self.reserve.of(side)
        ):
            return 0
        return bank2

    def delay_at(self, side: Side, now: int) -> int:
        """Delay left for ``side``: counting down if running, its next turn's delay if not."""
        if side == self.running and self.running is not None:
            if self.paused is not None:
                return self.delay_left
            return max(0, self.delay_left - self._spent(now)[0])
        return 0 if self.no_delay_next.of(side) else self.delay_ms

    def flag_time(self) -> int | None:
        """When the running side's reserve (all banks) reaches zero, if it keeps running."""
        if not self.is_running():
            return None
        assert self.running is not None
        return self.since + self.delay_left + self.reserve.of(self.running) + self.bank2.of(self.running)

    # -- changing ------------------------------------------------------------------------------

    def settle(self, now: int) -> Clock:
        """Charge the running side up to ``now`` and restart its span there.

        Switches to the second bank, or records the flag, at the exact instant it happened.
        """
        if not self.is_running():
            return self
        assert self.running is not None
        side = self.running
        reserve = self.reserve.of(side)
        flag_at = self.since + self.delay_left + reserve
        if flag_at <= now and self.bank2.of(side) > 0:
            switched = replace(
                self,
                reserve=self.reserve.set(side, self.bank2.of(side)),
                bank2=self.bank2.set(side, 0),
                used=self.used.set(side, self.used.of(side) + reserve),
                since=flag_at,
                delay_left=0,
            )
            return switched.settle(now)
        if flag_at <= now:
            return replace(
                self,
                reserve=self.reserve.set(side, 0),
                used=self.used.set(side, self.used.of(side) + reserve),
                running=None,
                since=flag_at,
                delay_left=0,
                flagged=side,
                flagged_at=flag_at,
            )
        delay_spent, reserve_spent = self._spent(now)
        return replace(
            self,
            reserve=self.reserve.set(side, reserve - reserve_spent),
            used=self.used.set(side, self.used.of(side) + reserve_spent),
            since=now,
            delay_left=self.delay_left - delay_spent,
        )

    def start(self, side: Side, now: int) -> Clock:
        """Start ``side``'s turn: full delay unless forfeited by a premature pick-up."""
        settled = self.settle(now)
        forfeited = settled.no_delay_next.of(side)
        return replace(
            settled,
            running=side,
            since=now,
            delay_left=0 if forfeited else settled.delay_ms,
            paused=None,
            no_delay_next=settled.no_delay_next.set(side, False),
        )

    def press(self, side: Side, now: int) -> Clock:
        """``side`` ends its turn (or its decision): the opponent's clock starts."""
        return self.start(other(side), now)

    def stop(self, now: int) -> Clock:
        settled = self.settle(now)
        return replace(settled, running=None, paused=None, delay_left=0)

    def pause(self, reason: str, now: int) -> Clock:
        settled = self.settle(now)
        return replace(settled, paused=reason)

    def resume(self, now: int) -> Clock:
        if self.paused is None:
            return self
        return replace(self, paused=None, since=now)

    def restart_delay(self, side: Side, now: int) -> Clock:
        """Invalid roll (4.3 v): the player's delay starts again in full."""
        settled = self.settle(now)
        if settled.running != side:
            return settled
        return replace(settled, delay_left=settled.delay_ms)

    def forfeit_next_delay(self, side: Side) -> Clock:
        return replace(self, no_delay_next=self.no_delay_next.set(side, True))

    def set_reserve(self, reserves: Pair[int], now: int) -> Clock:
        """TD time correction (3.7 ii, 4.3 ii b, 4.3 iv): reserves as of ``now``."""
        settled = self.settle(now)
        return replace(settled, reserve=reserves, flagged=None, flagged_at=None)


def new_clock(reserve_ms: int, delay_ms: int, bank2_ms: int = 0) -> Clock:
    return Clock(
        enabled=True,
        delay_ms=delay_ms,
        reserve=Pair(reserve_ms, reserve_ms),
        bank2=Pair(bank2_ms, bank2_ms),
    )


def imposed_reserve_ms(minutes_per_point: float, away_a: int, away_b: int) -> int:
    """3.5 vi: a clock imposed mid-match gives each player mpp × (RA + RB) / 2 minutes."""
    return round(minutes_per_point * 60_000 * (away_a + away_b) / 2)
