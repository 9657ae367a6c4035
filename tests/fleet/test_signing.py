"""Signed answers, orders and releases (``drivers/signing.py``, ``kiosk/trust.py``): what passes
and what does not, without a network."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.sealed_box import b64encode
from drivers.signing import (
    RELEASE_CONTEXT,
    SignatureError,
    fingerprint,
    new_signing_key,
    parse_private_key,
    parse_public_key,
    private_key_text,
    public_key_text,
    public_of,
    sign,
    verify,
)
from kiosk.trust import OrderCheck, TrustError, check_answer

HUB = new_signing_key()
HUB_PUBLIC = public_of(HUB)
ROGUE = new_signing_key()


def answer(**fields: Any) -> dict[str, Any]:
    return {"state": "retired", "device": "dev-1", "nonce": "n1", **fields}


def test_a_signed_answer_passes_for_its_device_and_nonce_only():
    signed = sign(HUB, answer(), "poll")
    assert check_answer(signed, "poll", device="dev-1", nonce="n1", pinned=HUB_PUBLIC) == HUB_PUBLIC
    for device, nonce in (("dev-2", "n1"), ("dev-1", "n2")):
        with pytest.raises(TrustError, match="not for this request"):
            check_answer(signed, "poll", device=device, nonce=nonce, pinned=HUB_PUBLIC)


@pytest.mark.parametrize(
    ("forged", "why"),
    [
        (answer(), "unsigned"),
        (sign(ROGUE, answer(), "poll"), "not a trusted one"),
        ({**sign(HUB, answer(state="enrolled"), "poll"), "state": "retired"}, "does not match"),
        (sign(HUB, answer(), "software"), "does not match"),  # signed for another purpose
        (sign(HUB, answer(), "poll", RELEASE_CONTEXT), "does not match"),
        ("retired", "not a signed object"),
    ],
)
def test_what_an_enrolled_table_refuses(forged: Any, why: str):
    with pytest.raises(TrustError, match=why):
        check_answer(forged, "poll", device="dev-1", nonce="n1", pinned=HUB_PUBLIC)


def test_a_table_being_set_up_takes_the_first_key_it_is_shown():
    """Trust on first use: the key that signed it (whose fingerprint the screen shows)."""
    signed = sign(ROGUE, answer(state="pending"), "hello")
    assert check_answer(signed, "hello", device="dev-1", nonce="n1", pinned=None) == public_of(ROGUE)
    with pytest.raises(TrustError):
        check_answer(answer(state="pending"), "hello", device="dev-1", nonce="n1", pinned=None)


@given(st.sampled_from(["state", "device", "nonce", "table", "signed_by"]), st.text(max_size=20))
def test_any_changed_field_breaks_the_signature(field: str, value: str):
    signed = sign(HUB, answer(table="7"), "poll")
    if signed[field] == value:
        return
    with pytest.raises(SignatureError):
        verify({**signed, field: value}, "poll", [HUB_PUBLIC])


def test_orders_pass_once_and_only_for_this_device():
    check = OrderCheck("dev-1", b64encode(HUB_PUBLIC))
    order = sign(HUB, {"action": "retire", "device": "dev-1", "id": "a"}, "control")
    check.check(order)
    with pytest.raises(TrustError, match="seen before"):
        check.check(order)
    with pytest.raises(TrustError, match="another device"):
        check.check(sign(HUB, {"action": "retire", "device": "dev-2", "id": "b"}, "control"))
    with pytest.raises(TrustError, match="not a trusted one"):
        check.check(sign(ROGUE, {"action": "retire", "device": "dev-1", "id": "c"}, "control"))
    with pytest.raises(TrustError, match="enroll this table again"):
        OrderCheck("dev-1", "").check(order)


def test_fingerprints_and_key_files():
    assert re.fullmatch(r"[0-9A-F]{4}(-[0-9A-F]{4}){3}", fingerprint(HUB_PUBLIC))
    assert fingerprint(HUB_PUBLIC) != fingerprint(public_of(ROGUE))
    assert parse_private_key(private_key_text(HUB, "c")) == HUB
    text = public_key_text(HUB_PUBLIC, "c")
    assert fingerprint(HUB_PUBLIC) in text and parse_public_key(text) == HUB_PUBLIC
    with pytest.raises(SignatureError):
        parse_public_key(private_key_text(HUB))  # a private key is not accepted as a public one


def test_the_hub_keeps_its_key(tmp_path):
    """Made once (0600), the same after a restart: enrolled tables keep trusting their hub."""
    from hub.fleet.hub_key import HubKey, HubKeyError

    path = tmp_path / "hub-signing.key"
    first = HubKey.load_or_create(path)
    assert path.stat().st_mode & 0o077 == 0
    assert HubKey.load_or_create(path).fingerprint == first.fingerprint
    path.write_text("not a key\n")
    with pytest.raises(HubKeyError, match=r"hub-signing\.key"):
        HubKey.load_or_create(path)
