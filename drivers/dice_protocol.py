"""The dice tower's serial line protocol (version 1): pure parsing and formatting, no I/O.

A tower (e.g. an RP2040 with a camera or a sensor tray under a baffle box) sends ASCII frames,
NMEA style, one per line (docs/dice-reader.md is the full specification)::

    $R,<seq>,<d1>,<d2>*CS\\r\\n                     a roll: d1 = die of colour A, d2 = colour B
    $U,<seq>,<reason>*CS\\r\\n                      a throw that cannot be read (cocked, ...)
    $H,<device_id>,<firmware>,<uptime_s>*CS\\r\\n   heartbeat, every 5 s

``CS`` is the XOR of every byte between ``$`` and ``*``, as two hex digits. A line is at most
:data:`MAX_LINE` (82) bytes including ``$`` and CR LF. ``seq`` (0..65535, wrapping) numbers the
throws (R and U share it) so that a repeated frame is not taken for a second roll.

Why pure: the same functions serve the reader (:mod:`drivers.dice`), the simulator
(:mod:`drivers.dice_sim`), tests and anyone writing firmware against the examples. Bad input is
data: every rejection is a :class:`FrameError` whose ``reason`` is one of :class:`ErrorReason`.

Example::

    >>> format_roll(7, 3, 5)
    b'$R,7,3,5*4F\\r\\n'
    >>> parse_frame(b'$R,7,3,5*4F\\r\\n')
    RollFrame(seq=7, d1=3, d2=5)
    >>> decoder = FrameDecoder()
    >>> decoder.feed(b'xx$R,7,3,5*4F\\r\\n$R,8,6')     # noise, a frame, half a frame
    [FrameError('noise: 2 byte(s) outside a frame'), RollFrame(seq=7, d1=3, d2=5)]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from drivers.errors import DriverError

#: Longest line, in bytes, including the leading ``$`` and the trailing CR LF (as NMEA 0183).
MAX_LINE = 82
#: Longest frame text: ``$`` … ``*HH`` without CR LF.
MAX_FRAME = MAX_LINE - 2
#: Sequence numbers run 0..SEQ_MODULUS-1 and wrap to 0.
SEQ_MODULUS = 65536
#: Largest uptime a heartbeat may carry (32-bit seconds counter).
MAX_UPTIME_S = 2**32 - 1
#: Heartbeat period a tower must keep (seconds); the host allows three missed beats.
HEARTBEAT_PERIOD_S = 5.0

#: Reasons a tower gives in a ``U`` frame. Any other ``[a-z_]{1,16}`` token is accepted as well
#: (newer firmware), and the table treats every U frame alike: the throw must be repeated.
UNREADABLE_REASONS: dict[str, str] = {
    "cocked": "a die is not lying flat",
    "outside": "a die left the landing area (not in the board half nearest the tower)",
    "count": "not exactly two dice seen (one missing, stacked or a foreign object)",
    "unreadable": "the pips could not be read (light, dirt, camera)",
}

_SEQ_RE = re.compile(r"^\d{1,5}$")
_DIE_RE = re.compile(r"^-?\d{1,3}$")
_REASON_RE = re.compile(r"^[a-z_]{1,16}$")
_DEVICE_ID_RE = re.compile(r"^[A-Za-z0-9._-]{1,16}$")
_FIRMWARE_RE = re.compile(r"^[A-Za-z0-9._+-]{1,16}$")
_UPTIME_RE = re.compile(r"^\d{1,10}$")
_TYPE_RE = re.compile(r"^[A-Z]$")
_HEX = frozenset(b"0123456789ABCDEFabcdef")


class ErrorReason(StrEnum):
    """Why a line was rejected (also the keys of the reader's rejection counters)."""

    TOO_LONG = "too_long"  # longer than MAX_LINE
    NON_ASCII = "non_ascii"  # a byte outside printable ASCII
    FRAMING = "framing"  # no leading $, no *HH at the end, $ or * misplaced, empty
    CHECKSUM = "checksum"  # the XOR does not match
    UNKNOWN_TYPE = "unknown_type"  # a frame type other than R, U, H
    FIELD_COUNT = "field_count"  # wrong number of fields for the type
    BAD_SEQ = "bad_seq"  # seq not a decimal 0..65535
    DIE_OUT_OF_RANGE = "die_out_of_range"  # a die that is a number but not 1..6
    BAD_FIELD = "bad_field"  # any other malformed field (die, reason, device id, firmware, uptime)
    TRUNCATED = "truncated"  # a frame cut short: a new $ came before the line ended
    NOISE = "noise"  # bytes outside any frame


class FrameError(DriverError, ValueError):
    """A rejected line. ``reason``: an :class:`ErrorReason`; ``detail``: human text; ``line``: the bytes."""

    def __init__(self, reason: ErrorReason, detail: str, line: bytes | bytearray = b"") -> None:
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason
        self.detail = detail
        self.line = bytes(line[: MAX_LINE * 2])

    def __repr__(self) -> str:
        return f"FrameError({str(self)!r})"


@dataclass(frozen=True, slots=True)
class RollFrame:
    """``$R``: a readable throw. d1 is the die of colour A (side A's colour), d2 of colour B."""

    seq: int
    d1: int
    d2: int


@dataclass(frozen=True, slots=True)
class UnreadableFrame:
    """``$U``: a throw that must be repeated; ``reason`` e.g. "cocked" (see UNREADABLE_REASONS)."""

    seq: int
    reason: str


@dataclass(frozen=True, slots=True)
class HeartbeatFrame:
    """``$H``: the tower is alive. ``uptime_s`` going backwards means the tower restarted."""

    device_id: str
    firmware: str
    uptime_s: int


Frame = RollFrame | UnreadableFrame | HeartbeatFrame


def checksum(body: bytes | str) -> int:
    """XOR of the bytes of ``body`` (the text between ``$`` and ``*``)."""
    data = body.encode("ascii") if isinstance(body, str) else body
    value = 0
    for byte in data:
        value ^= byte
    return value


def format_frame(frame_type: str, *fields: object) -> bytes:
    """A complete line ``$TYPE,f1,f2*CS\\r\\n`` with the right checksum.

    Checks only the framing (length, printable ASCII, no ``$ * ,`` inside a field), not the
    meaning of the fields, so tests can build well-framed frames with wrong contents.
    """
    parts = [frame_type, *(str(f) for f in fields)]
    for part in parts:
        if any(ch in part for ch in "$*,\r\n") or not all(0x20 <= ord(ch) <= 0x7E for ch in part):
            raise ValueError(f"field {part!r}: printable ASCII without '$', '*' or ','")
    body = ",".join(parts)
    text = f"${body}*{checksum(body):02X}"
    if len(text) > MAX_FRAME:
        raise ValueError(f"frame of {len(text) + 2} bytes exceeds {MAX_LINE}")
    return (text + "\r\n").encode("ascii")


def format_roll(seq: int, d1: int, d2: int) -> bytes:
    """``$R,seq,d1,d2*CS\\r\\n``; dice 1..6, seq 0..65535."""
    _check_seq(seq)
    for die in (d1, d2):
        if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
            raise ValueError(f"die must be 1..6, got {die!r}")
    return format_frame("R", seq, d1, d2)


def format_unreadable(seq: int, reason: str = "cocked") -> bytes:
    """``$U,seq,reason*CS\\r\\n``; reason a ``[a-z_]{1,16}`` token, normally one of UNREADABLE_REASONS."""
    _check_seq(seq)
    if not _REASON_RE.match(reason):
        raise ValueError(f"reason must match [a-z_]{{1,16}}, got {reason!r}")
    return format_frame("U", seq, reason)


def format_heartbeat(device_id: str, firmware: str, uptime_s: int) -> bytes:
    """``$H,device_id,firmware,uptime_s*CS\\r\\n``."""
    if not _DEVICE_ID_RE.match(device_id):
        raise ValueError(f"device id must match [A-Za-z0-9._-]{{1,16}}, got {device_id!r}")
    if not _FIRMWARE_RE.match(firmware):
        raise ValueError(f"firmware must match [A-Za-z0-9._+-]{{1,16}}, got {firmware!r}")
    if isinstance(uptime_s, bool) or not isinstance(uptime_s, int) or not 0 <= uptime_s <= MAX_UPTIME_S:
        raise ValueError(f"uptime_s must be 0..{MAX_UPTIME_S}, got {uptime_s!r}")
    return format_frame("H", device_id, firmware, uptime_s)


def parse_frame(line: bytes | str) -> Frame:
    """Parse one line (with or without its CR LF). Raises :class:`FrameError` with a precise reason."""
    if isinstance(line, str):
        try:
            raw = line.encode("ascii")
        except UnicodeEncodeError as exc:
            raise FrameError(ErrorReason.NON_ASCII, f"character at position {exc.start}", b"") from None
    else:
        raw = bytes(line)
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if len(raw) > MAX_FRAME:
        raise FrameError(ErrorReason.TOO_LONG, f"{len(raw) + 2} bytes, at most {MAX_LINE}", raw)
    for pos, byte in enumerate(raw):
        if not 0x20 <= byte <= 0x7E:
            raise FrameError(ErrorReason.NON_ASCII, f"byte 0x{byte:02X} at position {pos}", raw)
    if not raw.startswith(b"$"):
        raise FrameError(ErrorReason.FRAMING, "does not start with '$'", raw)
    if b"$" in raw[1:]:
        raise FrameError(ErrorReason.FRAMING, "'$' inside the frame", raw)
    star = raw.find(b"*")
    if star < 0:
        raise FrameError(ErrorReason.FRAMING, "no '*' before the checksum", raw)
    if star != len(raw) - 3 or not all(b in _HEX for b in raw[star + 1 :]):
        raise FrameError(ErrorReason.FRAMING, "the line must end with '*' and two hex digits", raw)
    body = raw[1:star]
    expected = checksum(body)
    given = int(raw[star + 1 :], 16)
    if given != expected:
        raise FrameError(ErrorReason.CHECKSUM, f"checksum {given:02X}, computed {expected:02X}", raw)
    fields = body.decode("ascii").split(",")
    kind = fields[0]
    if not _TYPE_RE.match(kind) or kind not in _PARSERS:
        raise FrameError(ErrorReason.UNKNOWN_TYPE, f"frame type {kind!r} (known: R, U, H)", raw)
    count, parser = _PARSERS[kind]
    if len(fields) - 1 != count:
        raise FrameError(ErrorReason.FIELD_COUNT, f"{kind} takes {count} fields, got {len(fields) - 1}", raw)
    return parser(fields[1:], raw)


class FrameDecoder:
    """Turns a byte stream into frames and rejections, resynchronising on every ``$``.

    * A line ends at LF (a CR before it is dropped); blank lines are ignored.
    * A ``$`` always starts a new frame: an unfinished frame before it is reported as
      ``truncated``, so a frame cut by a glitch never swallows the good frame that follows.
    * Bytes outside any frame are reported as one ``noise`` rejection (at the next ``$`` or LF,
      or every :data:`MAX_LINE` bytes of noise).
    * A frame longer than :data:`MAX_LINE` is reported as ``too_long`` as soon as it overflows;
      the rest of it, up to the next LF or ``$``, is dropped.
    Never raises on input: :meth:`feed` returns frames and :class:`FrameError` values in order.
    """

    def __init__(self) -> None:
        self._frame: bytearray | None = None
        self._noise = bytearray()
        self._noise_count = 0
        self._discarding = False

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        out: list[Frame | FrameError] = []
        for byte in data:
            if byte == 0x24:  # '$'
                self._flush_noise(out)
                if self._frame is not None:
                    out.append(FrameError(ErrorReason.TRUNCATED, "a new '$' came before LF", self._frame))
                self._discarding = False
                self._frame = bytearray(b"$")
            elif byte == 0x0A:  # LF
                if self._frame is not None:
                    frame, self._frame = bytes(self._frame), None
                    try:
                        out.append(parse_frame(frame))
                    except FrameError as exc:
                        out.append(exc)
                elif self._discarding:
                    self._discarding = False
                else:
                    self._flush_noise(out)
            elif self._frame is not None:
                self._frame.append(byte)
                if len(self._frame) > MAX_LINE - 1:  # even with its CR, no room left for the LF
                    out.append(
                        FrameError(ErrorReason.TOO_LONG, f"over {MAX_LINE} bytes without LF", self._frame)
                    )
                    self._frame = None
                    self._discarding = True
            elif self._discarding or byte == 0x0D:
                continue
            else:
                self._noise_count += 1
                if len(self._noise) < MAX_LINE:
                    self._noise.append(byte)
                if self._noise_count >= MAX_LINE:
                    self._flush_noise(out)
        return out

    def _flush_noise(self, out: list[Frame | FrameError]) -> None:
        if self._noise_count:
            out.append(
                FrameError(ErrorReason.NOISE, f"{self._noise_count} byte(s) outside a frame", self._noise)
            )
            self._noise = bytearray()
            self._noise_count = 0


# -- field parsers ---------------------------------------------------------------------------


def _check_seq(seq: int) -> None:
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < SEQ_MODULUS:
        raise ValueError(f"seq must be 0..{SEQ_MODULUS - 1}, got {seq!r}")


def _seq(text: str, raw: bytes) -> int:
    if not _SEQ_RE.match(text) or int(text) >= SEQ_MODULUS:
        raise FrameError(ErrorReason.BAD_SEQ, f"seq {text!r} is not 0..{SEQ_MODULUS - 1}", raw)
    return int(text)


def _die(text: str, which: str, raw: bytes) -> int:
    if not _DIE_RE.match(text):
        raise FrameError(ErrorReason.BAD_FIELD, f"{which} {text!r} is not a number", raw)
    value = int(text)
    if not 1 <= value <= 6:
        raise FrameError(ErrorReason.DIE_OUT_OF_RANGE, f"{which} {value} is not 1..6", raw)
    return value


def _parse_roll(fields: list[str], raw: bytes) -> RollFrame:
    return RollFrame(_seq(fields[0], raw), _die(fields[1], "d1", raw), _die(fields[2], "d2", raw))


def _parse_unreadable(fields: list[str], raw: bytes) -> UnreadableFrame:
    seq = _seq(fields[0], raw)
    if not _REASON_RE.match(fields[1]):
        raise FrameError(ErrorReason.BAD_FIELD, f"reason {fields[1]!r} is not [a-z_]{{1,16}}", raw)
    return UnreadableFrame(seq, fields[1])


def _parse_heartbeat(fields: list[str], raw: bytes) -> HeartbeatFrame:
    device_id, firmware, uptime = fields
    if not _DEVICE_ID_RE.match(device_id):
        raise FrameError(ErrorReason.BAD_FIELD, f"device id {device_id!r} is not [A-Za-z0-9._-]{{1,16}}", raw)
    if not _FIRMWARE_RE.match(firmware):
        raise FrameError(ErrorReason.BAD_FIELD, f"firmware {firmware!r} is not [A-Za-z0-9._+-]{{1,16}}", raw)
    if not _UPTIME_RE.match(uptime) or int(uptime) > MAX_UPTIME_S:
        raise FrameError(ErrorReason.BAD_FIELD, f"uptime {uptime!r} is not 0..{MAX_UPTIME_S}", raw)
    return HeartbeatFrame(device_id, firmware, int(uptime))


_PARSERS: dict[str, tuple[int, Callable[[list[str], bytes], Frame]]] = {
    "R": (3, _parse_roll),
    "U": (2, _parse_unreadable),
    "H": (3, _parse_heartbeat),
}
