"""Sessions, the login throttle and the Host allow-list, as values (no network)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.web.auth import Auth, hash_password
from hub.web.hosts import HostPolicy, check_allowed_host
from hub.web.login_throttle import LoginLimits, LoginThrottle, Refused


class Ticks:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_visitors_get_a_derived_csrf_token_and_no_stored_session():
    auth = Auth(hash_password("right password"))
    visitor = auth.anonymous()
    again = auth.get(visitor.token)
    assert again is not None and not again.logged_in and again.csrf == visitor.csrf
    assert auth.check_csrf(again, visitor.csrf)
    assert not auth.check_csrf(auth.get(auth.anonymous().token), visitor.csrf)
    assert auth.sessions == {}
    # another hub (another secret) does not accept this hub's visitor token
    assert not Auth("x").check_csrf(Auth("x").get(visitor.token), visitor.csrf)


def test_login_rotates_the_session_and_expiry_drops_it():
    ticks = Ticks()
    auth = Auth(hash_password("right password"), session_idle_s=60, now=ticks)
    assert auth.check_password("right password") and not auth.check_password("wrong")
    first, dropped = auth.open_session(auth.anonymous(), "td", "chief")
    assert first.logged_in and first.actor == "td" and first.role == "chief" and dropped == []
    second, dropped = auth.open_session(first, "td", "chief")
    assert dropped == [first.token] and auth.get(first.token) is None and auth.get(second.token) is second
    ticks.t += 61
    assert auth.expire() == [second.token] and auth.get(second.token) is None


def test_throttle_counts_failures_per_address_and_in_all():
    limits = LoginLimits(
        per_address=3, overall=5, window_s=60, in_flight_per_address=1, in_flight=2, reserved_share=0
    )
    throttle = LoginThrottle(limits)
    a = throttle.reserve("1.1.1.1", 0)
    with pytest.raises(Refused, match="already being checked"):
        throttle.reserve("1.1.1.1", 0)
    b = throttle.reserve("2.2.2.2", 0)
    with pytest.raises(Refused, match="busy"):
        throttle.reserve("3.3.3.3", 0)
    throttle.release(a, succeeded=False)
    throttle.release(b, succeeded=True)  # the TD's own login is given back
    assert throttle.counted("1.1.1.1", 1) == 1 and throttle.counted("2.2.2.2", 1) == 0
    for _ in range(2):
        throttle.release(throttle.reserve("1.1.1.1", 1), succeeded=False)
    with pytest.raises(Refused, match="from this address"):
        throttle.reserve("1.1.1.1", 2)
    throttle.release(throttle.reserve("4.4.4.4", 2), succeeded=False)
    throttle.release(throttle.reserve("5.5.5.5", 2), succeeded=False)
    with pytest.raises(Refused, match="at this hub"):  # rotating addresses meets the hub's limit
        throttle.reserve("6.6.6.6", 3)
    throttle.release(throttle.reserve("6.6.6.6", 61), succeeded=False)  # the window moved on


def test_a_share_of_the_allowance_is_kept_for_addresses_that_logged_in_before():
    limits = LoginLimits(per_address=3, overall=8, window_s=60, in_flight=4, reserved_share=0.25)
    throttle = LoginThrottle(limits)
    throttle.release(throttle.reserve("td-laptop", 0), succeeded=True)
    held = [throttle.reserve(f"10.0.0.{i}", 0) for i in range(3)]
    with pytest.raises(Refused, match="busy"):  # 3 of 4 at once are open to strangers
        throttle.reserve("10.0.0.9", 0)
    throttle.release(throttle.reserve("td-laptop", 0), succeeded=True)
    for attempt in held:
        throttle.release(attempt, succeeded=False)
    for i in range(3, 6):
        throttle.release(throttle.reserve(f"10.0.0.{i}", 1), succeeded=False)
    with pytest.raises(Refused, match="at this hub"):  # 6 of 8 attempts are open to strangers
        throttle.reserve("10.0.0.9", 1)
    attempt = throttle.reserve("td-laptop", 1)  # the TD's laptop is not locked out
    throttle.release(attempt, succeeded=False)  # even a typo counts only against its own share
    throttle.release(throttle.reserve("td-laptop", 1), succeeded=True)


@given(
    st.lists(
        st.tuples(st.sampled_from(["reserve", "fail", "succeed"]), st.integers(0, 4), st.floats(0, 5)),
        max_size=80,
    )
)
def test_throttle_never_lets_more_than_its_limits_through(ops):
    limits = LoginLimits(per_address=3, overall=7, window_s=10, in_flight_per_address=2, in_flight=3)
    throttle = LoginThrottle(limits)
    now = 0.0
    open_attempts = []
    started: list[tuple[float, str]] = []
    for op, who, dt in ops:
        now += dt
        client = f"10.0.0.{who}"
        if op == "reserve":
            try:
                open_attempts.append(throttle.reserve(client, now))
                started.append((now, client))
            except Refused:
                pass
        elif open_attempts:
            attempt = open_attempts.pop(who % len(open_attempts))
            throttle.release(attempt, succeeded=op == "succeed")
            if op == "succeed":
                started.remove((attempt.at, attempt.client))
        assert throttle.in_flight == len(open_attempts) <= limits.in_flight
        recent = [(t, c) for t, c in started if t > now - limits.window_s]
        assert len(recent) <= limits.overall
        assert all(sum(1 for _, c in recent if c == x) <= limits.per_address for _, x in recent)


def test_host_allow_list():
    hosts = HostPolicy(["tdhub.example"], own=["tdpi", "tdpi.local"])
    for ok in (
        "127.0.0.1:8080",
        "[::1]:8080",
        "192.168.1.10",
        "localhost:8080",
        "app.localhost",
        "TDPI.local:8080",
        "tdhub.example",
        "tdhub.example.:80",
    ):
        assert hosts.allows(ok), ok
    for bad in (
        "evil.example",
        "evil.example:8080",
        "tdhub.example.evil.example",
        "",
        None,
        "127.0.0.1:80x",
        "[::1]x",
        "localhost.evil.example",
    ):
        assert not hosts.allows(bad), bad
    assert "--allowed-host" in hosts.refusal("evil.example")
    assert check_allowed_host("Hub.Example.") == "hub.example"
    with pytest.raises(ValueError):
        check_allowed_host("evil example")


def test_a_named_session_lasts_while_its_account_does_and_takes_its_current_role():
    accounts = {"ann": ("td", hash_password("ann-password"), 1, 1)}
    auth = Auth(hash_password("right password"), lookup=accounts.get)
    stored, role, named, _account = auth.credentials("ann")
    assert role == "td" and named and auth.check_password("ann-password", stored)
    assert auth.credentials("nobody")[1] is None and auth.credentials(None)[1:] == ("chief", False, None)
    s, _ = auth.open_session(None, "ann", "td", named=True, account=auth.credentials("ann")[3])
    accounts["ann"] = ("viewer", *accounts["ann"][1:])
    assert auth.get(s.token) is s and s.role == "viewer"
    assert {"user": "ann", "role": "viewer"} in auth.team()
    del accounts["ann"]
    assert auth.get(s.token) is None and auth.sessions == {}


def test_a_named_session_ends_with_a_new_password_or_a_new_account_of_the_same_name():
    accounts = {"ann": ("td", hash_password("ann-password"), 1, 1)}
    auth = Auth(hash_password("right password"), lookup=accounts.get)
    s, _ = auth.open_session(None, "ann", "td", named=True, account=auth.credentials("ann")[3])
    accounts["ann"] = ("td", hash_password("new-password"), 1, 2)  # bghub user passwd
    assert auth.get(s.token) is None
    s, _ = auth.open_session(None, "ann", "td", named=True, account=auth.credentials("ann")[3])
    accounts["ann"] = ("chief", accounts["ann"][1], 2, 2)  # bghub user remove + add, same password
    assert auth.expire() == [s.token] and auth.sessions == {}
