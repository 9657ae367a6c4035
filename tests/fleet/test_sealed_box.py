"""Sealing a configuration to a device's key: only that key, that context and those bytes open it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.sealed_box import (
    HEADER_BYTES,
    SealedBoxError,
    b64decode,
    b64encode,
    new_private_key,
    open_sealed,
    public_key,
    seal,
)

KEY = new_private_key()
OTHER = new_private_key()


@given(st.binary(max_size=4096), st.binary(min_size=1, max_size=64))
def test_sealed_message_opens_with_the_key_and_context_only(message: bytes, context: bytes):
    sealed = seal(public_key(KEY), message, context)
    assert open_sealed(KEY, sealed, context) == message
    assert message not in sealed[HEADER_BYTES:] or len(message) < 4
    with pytest.raises(SealedBoxError):
        open_sealed(OTHER, sealed, context)
    with pytest.raises(SealedBoxError):
        open_sealed(KEY, sealed, context + b"x")


@given(st.binary(min_size=1, max_size=256), st.data())
def test_any_changed_byte_is_refused(message: bytes, data: st.DataObject):
    sealed = bytearray(seal(public_key(KEY), message, b"ctx"))
    index = data.draw(st.integers(0, len(sealed) - 1))
    sealed[index] ^= data.draw(st.integers(1, 255))
    with pytest.raises(SealedBoxError):
        open_sealed(KEY, bytes(sealed), b"ctx")


def test_each_seal_is_different():
    assert seal(public_key(KEY), b"same", b"c") != seal(public_key(KEY), b"same", b"c")


@given(st.binary(max_size=300))
def test_b64_round_trip(data: bytes):
    assert b64decode(b64encode(data)) == data


@pytest.mark.parametrize("bad", [b"", b"\x01" + bytes(10), b"\x02" + bytes(80)])
def test_malformed_sealed_messages_are_refused(bad: bytes):
    with pytest.raises(SealedBoxError):
        open_sealed(KEY, bad, b"c")


def test_a_low_order_public_key_is_refused():
    with pytest.raises(SealedBoxError):
        seal(bytes(32), b"secret", b"c")
