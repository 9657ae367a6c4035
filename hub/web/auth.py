"""TD login: one password, kept only as a salted scrypt hash; sessions with a CSRF token each.

The TD's password comes from a file (``--password-file``) or, without one, is generated at start
and printed once. Either way the database holds only ``scrypt$n$r$p$salt$hash``; nothing secret is
written anywhere else. Sessions live in memory (a restarted hub asks the TD to log in again):
an HttpOnly, SameSite=Strict cookie names the session, and every POST must carry the session's
CSRF token in a header, so another site can neither read the cookie nor forge an action. Only
logged-in sessions are kept; a visitor's CSRF token is derived from its cookie (see :class:`Auth`).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hub.web.login_throttle import Attempt, LoginLimits, LoginThrottle

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
SESSION_IDLE_S = 12 * 3600
#: at most this many logged-in sessions are kept (the least recently used go first)
MAX_SESSIONS = 10_000
COOKIE = "bghub_session"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(digest)}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        got = hashlib.scrypt(
            password.encode("utf-8"),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, expected)


def read_password_file(path: str | Path) -> str:
    """The password: the file's first line, without surrounding blanks; refused if empty."""
    text = Path(path).read_text(encoding="utf-8")
    line = text.splitlines()[0].strip() if text.strip() else ""
    if len(line) < 8:
        raise ValueError(f"{path}: the password must be at least 8 characters on the first line")
    return line


def generate_password() -> str:
    return secrets.token_urlsafe(12)


#: the hub's own password (``--password-file``) logs in as this chief TD (hub/web/accounts.py)
BUILTIN_USER = "td"
BUILTIN_ROLE = "chief"
#: the cookie of a visitor who has not logged in starts so; the rest is a random nonce
ANONYMOUS_PREFIX = "a."


@functools.cache
def _nobody() -> str:
    """What a login naming no known account is checked against: the same cost as a real check,
    so a wrong name cannot be told from a wrong password by the time the answer takes."""
    return hash_password(secrets.token_urlsafe(16))


#: an account's ``(role, password hash, account id, password generation)`` by name, or None
#: (hub/web/accounts.py, from the store)
Lookup = Callable[[str], "tuple[str, str, int, int] | None"]


@dataclass
class Session:
    token: str
    csrf: str
    logged_in: bool = False
    #: who logged in (an account's name; ``td`` for the hub's own password), and their role
    user: str = ""
    role: str | None = None
    last_seen: float = 0.0
    #: a named account's (the hub's own password account is not in the database)
    named: bool = False
    #: a named account's ``(account id, password generation)`` at login: the session lasts only
    #: while both are the same (an account removed and added again, or given a new password, is
    #: not the account this session logged in to)
    account: tuple[int, int] | None = None

    @property
    def actor(self) -> str:
        """The name the audit log gives what this session does."""
        return self.user if self.logged_in else "anonymous"


class Auth:
    """Password check, sessions and login throttling for the dashboard.

    Only logged-in sessions are kept: a visitor who has not logged in gets a cookie with a random
    nonce and a CSRF token derived from it with the hub's secret (HMAC), both checked without any
    server-side state. So no number of anonymous requests can fill the session table or push the
    TD's session out of it; only logins (throttled, :mod:`hub.web.login_throttle`) add sessions.
    """

    def __init__(
        self,
        password_hash: str,
        *,
        lookup: Lookup | None = None,
        limits: LoginLimits | None = None,
        session_idle_s: float = SESSION_IDLE_S,
        max_sessions: int = MAX_SESSIONS,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.password_hash = password_hash
        self.lookup: Lookup = lookup or (lambda name: None)
        self.sessions: dict[str, Session] = {}
        self.throttle = LoginThrottle(limits)
        self.session_idle_s = session_idle_s
        self.max_sessions = max_sessions
        self.now = now
        #: password checks running right now (they run on worker threads, never on the event loop)
        self.hashing = 0
        self._hashing_lock = threading.Lock()
        self._secret = secrets.token_bytes(32)

    # -- visitors who have not logged in ------------------------------------------------------

    def anonymous(self, token: str | None = None) -> Session:
        """A visitor's session, kept nowhere: a fresh nonce, or the one in ``token``."""
        token = token or ANONYMOUS_PREFIX + secrets.token_urlsafe(24)
        mac = hmac.new(self._secret, token.encode("ascii", "replace"), hashlib.sha256).digest()
        return Session(token, base64.urlsafe_b64encode(mac).decode("ascii").rstrip("="))

    def get(self, token: str | None) -> Session | None:
        """The session a cookie names: a logged-in one that has not expired, or a visitor's."""
        if not token or len(token) > 100:
            return None
        if token.startswith(ANONYMOUS_PREFIX):
            return self.anonymous(token) if token.isascii() else None
        s = self.sessions.get(token)
        if s is None:
            return None
        now = self.now()
        if now - s.last_seen > self.session_idle_s or not self._still_valid(s):
            del self.sessions[token]
            return None
        s.last_seen = now
        return s

    def _still_valid(self, s: Session) -> bool:
        """A named account's session lasts while the account does, with the password it logged in
        with; its role is read afresh (an account removed, added again or given a new password
        with ``bghub user`` in another process counts at once)."""
        if not s.named:
            return True
        account = self.lookup(s.user)
        if account is None or (account[2], account[3]) != s.account:
            return False
        s.role = account[0]
        return True

    def check_csrf(self, session: Session | None, token: str | None) -> bool:
        return session is not None and token is not None and hmac.compare_digest(session.csrf, token)

    # -- logging in -------------------------------------------------------------------------------

    def reserve(self, client: str) -> Attempt:
        """A login attempt from ``client``, before its body is read (:class:`Refused` if over a limit)."""
        return self.throttle.reserve(client, self.now())

    def release(self, attempt: Attempt, *, succeeded: bool) -> None:
        self.throttle.release(attempt, succeeded=succeeded)

    def credentials(self, user: str | None) -> tuple[str, str | None, bool, tuple[int, int] | None]:
        """What a login naming ``user`` (None: the hub's own password) is checked against:
        ``(password hash, role or None if there is no such account, named, (account id, password
        generation) of a named account)``."""
        if user is None or user == BUILTIN_USER:
            return self.password_hash, BUILTIN_ROLE, False, None
        account = self.lookup(user)
        if account is None:
            return _nobody(), None, True, None
        return account[1], account[0], True, (account[2], account[3])

    def check_password(self, password: str, stored: str | None = None) -> bool:
        """The scrypt check: blocking, so the web server runs it on a worker thread."""
        with self._hashing_lock:
            self.hashing += 1
        try:
            return verify_password(password, stored or self.password_hash)
        finally:
            with self._hashing_lock:
                self.hashing -= 1

    def open_session(
        self,
        previous: Session | None,
        user: str,
        role: str,
        *,
        named: bool = False,
        account: tuple[int, int] | None = None,
    ) -> tuple[Session, list[str]]:
        """A new logged-in session (the previous token is dropped), and the tokens pushed out."""
        dropped = self.expire()
        if previous is not None and self.sessions.pop(previous.token, None) is not None:
            dropped.append(previous.token)
        if len(self.sessions) >= self.max_sessions:
            oldest = sorted(self.sessions.values(), key=lambda x: x.last_seen)
            for old in oldest[: max(1, len(self.sessions) // 10)]:
                del self.sessions[old.token]
                dropped.append(old.token)
        fresh = Session(
            secrets.token_urlsafe(32), secrets.token_urlsafe(32), True, user, role, self.now(), named, account
        )
        self.sessions[fresh.token] = fresh
        return fresh, dropped

    def logout(self, session: Session) -> None:
        self.sessions.pop(session.token, None)

    def expire(self) -> list[str]:
        """Drop the sessions idle for too long, or whose account is gone; their tokens (their
        live connections close)."""
        now = self.now()
        gone = [
            t
            for t, s in self.sessions.items()
            if now - s.last_seen > self.session_idle_s or not self._still_valid(s)
        ]
        for token in gone:
            del self.sessions[token]
        return gone

    def end_user(self, user: str) -> list[str]:
        """Log out every session of ``user`` (an account removed); their tokens."""
        gone = [t for t, s in self.sessions.items() if s.named and s.user == user]
        for token in gone:
            del self.sessions[token]
        return gone

    def team(self) -> list[dict[str, str | None]]:
        """Who is logged in now (each person once), by name."""
        people = {s.user: s.role for s in self.sessions.values() if s.logged_in}
        return [{"user": u, "role": people[u]} for u in sorted(people)]
