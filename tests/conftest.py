"""Settings for the whole test suite.

Hypothesis's per-example ``deadline`` and its ``too_slow`` health check are timing assertions:
on a shared two-core machine a property test failed now and then only because another process
had the CPU. Performance is measured in ``bench/``; the tests assert behaviour alone.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile("smart-table", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("smart-table")
