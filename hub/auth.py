"""TD login: one password, kept only as a salted scrypt hash; sessions with a CSRF token each.

The TD's password comes from a file (``--password-file``) or, without one, is generated at start
and printed once. Either way the database holds only ``scrypt$n$r$p$salt$hash``; nothing secret is
written anywhere else. Sessions live in memory (a restarted hub asks the TD to log in again):
an HttpOnly, SameSite=Strict cookie names the session, and every POST must carry the session's
CSRF token in a header, so another site can neither read the cookie nor forge an action.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
SESSION_IDLE_S = 12 * 3600
#: at most this many sessions are kept (the least recently used go first)
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


@dataclass
class Session:
    token: str
    csrf: str
    logged_in: bool = False
    actor: str = "anonymous"
    last_seen: float = field(default_factory=time.monotonic)


class Auth:
    """Password check, sessions and login throttling for the dashboard."""

    def __init__(self, password_hash: str, *, max_failures: int = 10, window_s: float = 60.0) -> None:
        self.password_hash = password_hash
        self.sessions: dict[str, Session] = {}
        self.max_failures = max_failures
        self.window_s = window_s
        self._failures: dict[str, deque[float]] = {}

    def new_session(self) -> Session:
        self._expire()
        if len(self.sessions) >= MAX_SESSIONS:
            oldest = sorted(self.sessions.values(), key=lambda x: x.last_seen)[: len(self.sessions) // 10]
            for old in oldest:
                del self.sessions[old.token]
        s = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32))
        self.sessions[s.token] = s
        return s

    def get(self, token: str | None) -> Session | None:
        if not token:
            return None
        s = self.sessions.get(token)
        if s is None:
            return None
        now = time.monotonic()
        if now - s.last_seen > SESSION_IDLE_S:
            del self.sessions[token]
            return None
        s.last_seen = now
        return s

    def check_csrf(self, session: Session | None, token: str | None) -> bool:
        return session is not None and token is not None and hmac.compare_digest(session.csrf, token)

    def throttled(self, client: str) -> bool:
        now = time.monotonic()
        q = self._failures.get(client)
        if q is None:
            return False
        while q and now - q[0] > self.window_s:
            q.popleft()
        return len(q) >= self.max_failures

    def login(self, session: Session, password: str, client: str) -> Session | None:
        """A new logged-in session (the old token is dropped), or None for a wrong password."""
        if not verify_password(password, self.password_hash):
            self._failures.setdefault(client, deque()).append(time.monotonic())
            return None
        self.sessions.pop(session.token, None)
        fresh = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), logged_in=True, actor="td")
        self.sessions[fresh.token] = fresh
        return fresh

    def logout(self, session: Session) -> None:
        self.sessions.pop(session.token, None)

    def _expire(self) -> None:
        now = time.monotonic()
        for token in [t for t, s in self.sessions.items() if now - s.last_seen > SESSION_IDLE_S]:
            del self.sessions[token]
