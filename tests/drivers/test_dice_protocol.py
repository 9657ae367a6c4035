"""The dice tower line protocol: checksums, frames, precise rejections, stream resynchronisation."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import drivers.dice_protocol
from drivers.dice_protocol import (
    MAX_LINE,
    ErrorReason,
    FrameDecoder,
    FrameError,
    HeartbeatFrame,
    RollFrame,
    UnreadableFrame,
    checksum,
    format_frame,
    format_heartbeat,
    format_roll,
    format_unreadable,
    parse_frame,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "dice-reader.md"


def doc_block(marker: str) -> list[str]:
    """The lines of the fenced block that follows ``<!-- examples:marker -->`` in the doc."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"<!-- examples:{marker} -->\n```\n(.*?)\n```", text, re.S)
    assert m, f"no examples:{marker} block in {DOC}"
    return m.group(1).splitlines()


def doc_invalid_table() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("<!-- examples:invalid -->", 1)[1]
    rows = re.findall(r"^\| `([^`]+)` \| `([a-z_]+)` \|$", section, re.M)
    assert rows, "no invalid examples in the doc"
    return rows


def reason_of(line: bytes | str) -> ErrorReason:
    with pytest.raises(FrameError) as info:
        parse_frame(line)
    return info.value.reason


# -- checksum and formatting -----------------------------------------------------------------


def test_checksum_is_the_nmea_xor() -> None:
    # Published NMEA 0183 sentences with their checksums: the XOR is the same one.
    assert checksum("GPGLL,4916.45,N,12311.12,W,225444,A,") == 0x1D
    assert checksum(b"GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") == 0x47
    assert checksum("") == 0


def test_format_builds_complete_lines() -> None:
    assert format_roll(41, 3, 5) == b"$R,41,3,5*7D\r\n"
    assert format_unreadable(43, "cocked") == b"$U,43,cocked*57\r\n"
    assert format_heartbeat("TOWER-12", "1.2.0", 3600) == b"$H,TOWER-12,1.2.0,3600*27\r\n"


@pytest.mark.parametrize(
    "call",
    [
        lambda: format_roll(1, 0, 3),
        lambda: format_roll(1, 3, 7),
        lambda: format_roll(-1, 3, 3),
        lambda: format_roll(65536, 3, 3),
        lambda: format_roll(1, True, 3),
        lambda: format_unreadable(1, "Cocked"),
        lambda: format_unreadable(1, ""),
        lambda: format_heartbeat("a,b", "1", 0),
        lambda: format_heartbeat("T", "1", -1),
        lambda: format_heartbeat("T", "1", 2**32),
        lambda: format_frame("R", "a*b"),
        lambda: format_frame("R", "x" * 80),
    ],
)
def test_format_refuses_what_it_cannot_send(call) -> None:
    with pytest.raises(ValueError):
        call()


# -- parsing ---------------------------------------------------------------------------------


def test_parse_each_type() -> None:
    assert parse_frame(b"$R,41,3,5*7D\r\n") == RollFrame(41, 3, 5)
    assert parse_frame("$U,43,cocked*57") == UnreadableFrame(43, "cocked")
    assert parse_frame(b"$H,TOWER-12,1.2.0,3600*27\n") == HeartbeatFrame("TOWER-12", "1.2.0", 3600)


def test_lower_case_checksum_digits_are_accepted() -> None:
    assert parse_frame("$R,41,3,5*7d") == RollFrame(41, 3, 5)


def test_unknown_unreadable_reasons_are_accepted() -> None:
    frame = format_frame("U", 9, "dice_bounced")
    assert parse_frame(frame) == UnreadableFrame(9, "dice_bounced")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"$R,1,2,3*4DX", ErrorReason.FRAMING),
        (b"$" + b"R," * 40 + b"*00", ErrorReason.TOO_LONG),
        (b"$R,1,2,\xe93*00", ErrorReason.NON_ASCII),
        ("$R,1,2,é*00", ErrorReason.NON_ASCII),
        (b"$R,1,\x002*00", ErrorReason.NON_ASCII),
        (b"", ErrorReason.FRAMING),
        (b"$", ErrorReason.FRAMING),
        (b"$*00", ErrorReason.UNKNOWN_TYPE),
        (b"$R,1,2,3*4", ErrorReason.FRAMING),
        (b"$R,1,2,3*4G", ErrorReason.FRAMING),
        (b"$R,1,2,3*123", ErrorReason.FRAMING),
        (b"$R,1$,2,3*00", ErrorReason.FRAMING),
        (b"$R,1*2,3*00", ErrorReason.FRAMING),
        (format_frame("R", 1, 2, 3)[:-2] + b" ", ErrorReason.FRAMING),
        (format_frame("RR", 1, 2, 3), ErrorReason.UNKNOWN_TYPE),
        (format_frame("r", 1, 2, 3), ErrorReason.UNKNOWN_TYPE),
        (format_frame("R", 1, 2, 3, 4), ErrorReason.FIELD_COUNT),
        (format_frame("U", 1), ErrorReason.FIELD_COUNT),
        (format_frame("H", "T", "1"), ErrorReason.FIELD_COUNT),
        (format_frame("R", "", 2, 3), ErrorReason.BAD_SEQ),
        (format_frame("R", "+1", 2, 3), ErrorReason.BAD_SEQ),
        (format_frame("R", 123456, 2, 3), ErrorReason.BAD_SEQ),
        (format_frame("U", "x", "cocked"), ErrorReason.BAD_SEQ),
        (format_frame("R", 1, 0, 3), ErrorReason.DIE_OUT_OF_RANGE),
        (format_frame("R", 1, 2, 7), ErrorReason.DIE_OUT_OF_RANGE),
        (format_frame("R", 1, 2, -1), ErrorReason.DIE_OUT_OF_RANGE),
        (format_frame("R", 1, 2, 66), ErrorReason.DIE_OUT_OF_RANGE),
        (format_frame("R", 1, "six", 3), ErrorReason.BAD_FIELD),
        (format_frame("R", 1, "", 3), ErrorReason.BAD_FIELD),
        (format_frame("U", 1, "Cocked"), ErrorReason.BAD_FIELD),
        (format_frame("U", 1, "a" * 17), ErrorReason.BAD_FIELD),
        (format_frame("H", "", "1", 0), ErrorReason.BAD_FIELD),
        (format_frame("H", "T 1", "1", 0), ErrorReason.BAD_FIELD),
        (format_frame("H", "T", "1/2", 0), ErrorReason.BAD_FIELD),
        (format_frame("H", "T", "1", 2**32), ErrorReason.BAD_FIELD),
        (format_frame("H", "T", "1", "soon"), ErrorReason.BAD_FIELD),
    ],
)
def test_rejections_carry_a_precise_reason(line: bytes | str, reason: ErrorReason) -> None:
    assert reason_of(line) is reason


def test_checksum_mismatch_names_both_values() -> None:
    with pytest.raises(FrameError) as info:
        parse_frame("$R,41,3,5*7C")
    err = info.value
    assert err.reason is ErrorReason.CHECKSUM
    assert "7C" in err.detail and "7D" in err.detail
    assert err.line == b"$R,41,3,5*7C"
    assert str(err).startswith("checksum:")


def test_a_line_of_exactly_82_bytes_is_accepted_and_83_is_not() -> None:
    filler = "x" * (MAX_LINE - len("$U,1,*HH\r\n"))
    line = format_frame("U", 1, filler)
    assert len(line) == MAX_LINE
    assert reason_of(line) is ErrorReason.BAD_FIELD  # it fits, so it is judged on its field
    body = f"U,1,{filler}x"
    longer = f"${body}*{checksum(body):02X}\r\n".encode()
    assert len(longer) == MAX_LINE + 1
    assert reason_of(longer) is ErrorReason.TOO_LONG
    with pytest.raises(ValueError):
        format_frame("U", 1, filler + "x")


# -- the documented examples -----------------------------------------------------------------


def test_every_valid_example_in_the_doc_parses() -> None:
    lines = doc_block("valid")
    assert len(lines) >= 5
    for line in lines:
        frame = parse_frame(line)
        # ... and formatting the parsed frame gives the same text back.
        if isinstance(frame, RollFrame):
            again = format_roll(frame.seq, frame.d1, frame.d2)
        elif isinstance(frame, UnreadableFrame):
            again = format_unreadable(frame.seq, frame.reason)
        else:
            again = format_heartbeat(frame.device_id, frame.firmware, frame.uptime_s)
        assert again == (line + "\r\n").encode()


def test_the_documented_session_parses() -> None:
    frames = [parse_frame(line) for line in doc_block("session")]
    assert frames[1] == frames[2] == RollFrame(0, 3, 5)
    assert frames[3] == UnreadableFrame(1, "cocked")


@pytest.mark.parametrize(("line", "reason"), doc_invalid_table())
def test_every_invalid_example_in_the_doc_is_rejected_for_its_reason(line: str, reason: str) -> None:
    assert reason_of(line).value == reason


def test_the_doc_lists_every_rejection_reason() -> None:
    text = DOC.read_text(encoding="utf-8")
    for reason in ErrorReason:
        assert f"| `{reason.value}` |" in text


def test_module_examples() -> None:
    result = doctest.testmod(drivers.dice_protocol)
    assert result.attempted > 0 and result.failed == 0


# -- the stream decoder ----------------------------------------------------------------------


def kinds(items: list) -> list[str]:
    return [i.reason.value if isinstance(i, FrameError) else type(i).__name__ for i in items]


def test_decoder_reads_frames_split_at_any_byte() -> None:
    stream = format_heartbeat("T1", "1.0", 5) + format_roll(1, 2, 3) + format_unreadable(2, "cocked")
    for cut in range(len(stream) + 1):
        dec = FrameDecoder()
        items = dec.feed(stream[:cut]) + dec.feed(stream[cut:])
        assert items == [HeartbeatFrame("T1", "1.0", 5), RollFrame(1, 2, 3), UnreadableFrame(2, "cocked")]


def test_decoder_accepts_lf_alone_and_ignores_blank_lines() -> None:
    dec = FrameDecoder()
    assert dec.feed(b"\r\n\n$R,41,3,5*7D\n\r\n") == [RollFrame(41, 3, 5)]


def test_a_truncated_frame_does_not_swallow_the_next_one() -> None:
    dec = FrameDecoder()
    items = dec.feed(b"$R,41,3" + format_roll(42, 6, 6))
    assert kinds(items) == ["truncated", "RollFrame"]
    assert items[0].line == b"$R,41,3"
    assert items[1] == RollFrame(42, 6, 6)


def test_noise_is_reported_once_and_the_next_frame_read() -> None:
    dec = FrameDecoder()
    items = dec.feed(b"\x00\xffhello" + format_roll(5, 1, 1))
    assert kinds(items) == ["noise", "RollFrame"]
    assert "7 byte(s)" in str(items[0])
    # Noise ending at a line end is reported at the LF.
    assert kinds(dec.feed(b"junk\r\n")) == ["noise"]


def test_endless_noise_is_reported_in_bounded_chunks() -> None:
    dec = FrameDecoder()
    items = dec.feed(b"z" * (MAX_LINE * 3))
    assert kinds(items) == ["noise"] * 3


def test_an_overlong_line_is_rejected_once_and_skipped_to_its_end() -> None:
    dec = FrameDecoder()
    items = dec.feed(b"$R," + b"9" * 200 + b"*00\r\n" + format_roll(6, 4, 4))
    assert kinds(items) == ["too_long", "RollFrame"]
    assert len(items[0].line) <= 2 * MAX_LINE


def test_an_overlong_line_is_cut_short_by_a_new_frame() -> None:
    dec = FrameDecoder()
    items = dec.feed(b"$" + b"A" * 100 + format_roll(6, 4, 4))
    assert kinds(items) == ["too_long", "RollFrame"]


def test_bad_frames_in_a_stream_are_reported_in_order() -> None:
    dec = FrameDecoder()
    stream = b"$R,41,3,5*7C\r\n" + b"$R,47,7,2*78\r\n" + b"$X,1*45\r\n" + format_roll(48, 2, 2)
    assert kinds(dec.feed(stream)) == ["checksum", "die_out_of_range", "unknown_type", "RollFrame"]


# -- properties ------------------------------------------------------------------------------

frames = st.one_of(
    st.builds(
        RollFrame,
        st.integers(min_value=0, max_value=65535),
        st.integers(min_value=1, max_value=6),
        st.integers(min_value=1, max_value=6),
    ),
    st.builds(
        UnreadableFrame,
        st.integers(min_value=0, max_value=65535),
        st.from_regex(r"\A[a-z_]{1,16}\Z"),
    ),
    st.builds(
        HeartbeatFrame,
        st.from_regex(r"\A[A-Za-z0-9._-]{1,16}\Z"),
        st.from_regex(r"\A[A-Za-z0-9._+-]{1,16}\Z"),
        st.integers(min_value=0, max_value=2**32 - 1),
    ),
)


def encode(frame: RollFrame | UnreadableFrame | HeartbeatFrame) -> bytes:
    if isinstance(frame, RollFrame):
        return format_roll(frame.seq, frame.d1, frame.d2)
    if isinstance(frame, UnreadableFrame):
        return format_unreadable(frame.seq, frame.reason)
    return format_heartbeat(frame.device_id, frame.firmware, frame.uptime_s)


@settings(max_examples=300, deadline=None)
@given(frame=frames)
def test_format_then_parse_round_trips(frame) -> None:
    line = encode(frame)
    assert len(line) <= MAX_LINE
    assert parse_frame(line) == frame


@settings(max_examples=300, deadline=None)
@given(frame=frames, position=st.integers(min_value=1), bit=st.integers(min_value=0, max_value=6))
def test_any_single_bit_error_in_the_body_is_caught(frame, position: int, bit: int) -> None:
    line = bytearray(encode(frame))
    star = line.index(b"*")
    pos = 1 + position % (star - 1)  # a byte between $ and *
    line[pos] ^= 1 << bit
    try:
        parsed = parse_frame(bytes(line))
    except FrameError:
        return
    pytest.fail(f"corrupted line {bytes(line)!r} parsed as {parsed}")


@settings(max_examples=200, deadline=None)
@given(noise=st.binary(max_size=300), frame=frames, chunks=st.integers(min_value=1, max_value=50))
def test_decoder_survives_any_bytes_and_reads_the_next_good_frame(noise: bytes, frame, chunks: int) -> None:
    dec = FrameDecoder()
    stream = noise + b"\r\n" + encode(frame)
    items: list = []
    for i in range(0, len(stream), chunks):
        items += dec.feed(stream[i : i + chunks])
    assert items, "the good frame at least"
    assert items[-1] == frame
    assert all(isinstance(i, FrameError | RollFrame | UnreadableFrame | HeartbeatFrame) for i in items)
