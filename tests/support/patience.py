"""The suite's patience: how long a test waits for something before it calls it a failure.

Every wait in the suite is on an event (a message, a line printed, a condition polled) and ends
the moment it happens, so a deadline costs time only when a test is failing. The deadlines are
written as what a quiet machine needs with a margin, and scaled here for a loaded one: a shared
2-core machine with a load average of 15 runs a test's processes several times slower.

``BG_TEST_PATIENCE`` sets the factor (default 3); raise it on a slower machine, or set it to 1
to see how close a test runs to its deadline.
"""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import Callable
from typing import Any

FACTOR_ENV = "BG_TEST_PATIENCE"
DEFAULT_FACTOR = 3.0


def _factor() -> float:
    raw = os.environ.get(FACTOR_ENV, "").strip()
    if not raw:
        return DEFAULT_FACTOR
    value = float(raw)
    if value <= 0:
        raise ValueError(f"{FACTOR_ENV} must be a positive number, not {raw!r}")
    return value


FACTOR = _factor()


def patience(seconds: float) -> float:
    """``seconds`` (enough on a quiet machine) scaled for a loaded machine."""
    return seconds * FACTOR


#: the default deadline of a wait: 10 s on a quiet machine
WAIT = patience(10.0)


def wait_until(predicate: Callable[[], Any], timeout: float = WAIT, what: str = "condition") -> Any:
    """Poll ``predicate`` until truthy (short polls, a hard deadline); returns its value."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not met within {timeout:.0f}s")
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def scale_default_timeout(func: Callable[..., Any]) -> None:
    """Scale the default of ``func``'s ``timeout`` parameter, in this test process only.

    The waits of the product's test harnesses (the simulated table, the hub in a thread, a kiosk
    in a window) have their own default deadlines, and about 250 calls in the suite rely on
    them: this keeps those calls as they are and makes their deadlines the suite's, like every
    other wait. What the function does is unchanged; only how long it waits by default.
    """
    params = inspect.signature(func).parameters
    default = params["timeout"].default
    if not isinstance(default, int | float) or isinstance(default, bool):
        raise TypeError(f"{func.__qualname__}: no numeric default timeout to scale")
    if params["timeout"].kind is inspect.Parameter.KEYWORD_ONLY:
        func.__kwdefaults__ = {**(func.__kwdefaults__ or {}), "timeout": patience(default)}
        return
    positional = [p.name for p in params.values() if p.kind in _POSITIONAL and p.default is not p.empty]
    defaults = list(func.__defaults__ or ())
    defaults[positional.index("timeout")] = patience(default)
    func.__defaults__ = tuple(defaults)


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
