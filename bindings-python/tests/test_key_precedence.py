"""Key precedence in Session.apply_message, side by side with the reference SDK (issue 25).

The SDK's ``public_key_resolver`` is mandatory and authoritative: the key it returns is the
key that must verify, and ``None`` rejects (unknown identity, ``InvalidSignatureError``),
whatever ``add_party`` registered. concordia_rs follows the same rule (the core's
``Session::apply``); only when no resolver is given does it use the registered keys.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

import concordia.message as sdk_message
import concordia.session as sdk_session
import concordia.signing as sdk_signing
import pytest
from concordia.types import AgentIdentity, MessageType, PartyRole

import concordia_rs as rs

OPEN = {"terms": {"price": {"type": "numeric"}}}


def _keys() -> Dict[str, sdk_signing.KeyPair]:
    return {
        "seller": sdk_signing.KeyPair.generate(),
        "seller_rotated": sdk_signing.KeyPair.generate(),
        "buyer": sdk_signing.KeyPair.generate(),
    }


def _sessions(kps: Dict[str, sdk_signing.KeyPair]) -> Tuple[Any, Any]:
    """An SDK and a concordia_rs session, seller and buyer registered with their keys."""
    s_sdk = sdk_session.Session(session_id="ses_keys")
    s_rs = rs.Session(session_id="ses_keys")
    for who, role in (("seller", PartyRole.INITIATOR), ("buyer", PartyRole.RESPONDER)):
        s_sdk.add_party(who, role, kps[who].public_key)
        s_rs.add_party(who, role, kps[who].public_key)
    return s_sdk, s_rs


def _open(kp: sdk_signing.KeyPair) -> Dict[str, Any]:
    return sdk_message.build_envelope(message_type=MessageType.OPEN, session_id="ses_keys",
                                      sender=AgentIdentity("seller"), body=OPEN, key_pair=kp)


def _outcome(session: Any, msg: Dict[str, Any], resolver: Callable[[str], Optional[Any]]) -> Tuple[str, Any]:
    try:
        state = session.apply_message(msg, resolver)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return ("raised", type(e).__name__)
    return ("ok", getattr(state, "value", state))


@pytest.mark.parametrize(
    "scenario, signer, resolver_key, expected",
    [
        # The registered key K1, the resolver still says K1: accepted.
        ("unchanged", "seller", "seller", ("ok", "proposed")),
        # Rotated: the resolver says K2. A message signed by the old K1 is refused ...
        ("rotated/old key", "seller", "seller_rotated", ("raised", "InvalidSignatureError")),
        # ... and one signed by K2 verifies, though K1 is the registered key.
        ("rotated/new key", "seller_rotated", "seller_rotated", ("ok", "proposed")),
        # Revoked: the resolver returns None; refused although a key is registered.
        ("revoked", "seller", None, ("raised", "InvalidSignatureError")),
        ("revoked/other key", "seller_rotated", None, ("raised", "InvalidSignatureError")),
    ],
)
def test_the_resolver_is_authoritative_as_in_the_sdk(scenario: str, signer: str, resolver_key: Optional[str], expected) -> None:
    kps = _keys()
    s_sdk, s_rs = _sessions(kps)
    msg = _open(kps[signer])

    def resolver(agent_id: str) -> Optional[Any]:
        if agent_id == "seller":
            return kps[resolver_key].public_key if resolver_key else None
        return kps[agent_id].public_key if agent_id in kps else None

    sdk = _outcome(s_sdk, msg, resolver)
    ours = _outcome(s_rs, msg, resolver)
    assert sdk == expected, scenario
    assert ours == sdk, scenario
    # A refusal changes nothing on either side.
    assert s_rs.message_count == len(s_sdk.transcript)
    assert s_rs.prev_hash == s_sdk.prev_hash


def test_revoked_registered_party_keeps_failing_then_a_rotated_key_continues() -> None:
    """A whole exchange: the seller's key is revoked mid-session, then rotated."""
    kps = _keys()
    s_sdk, s_rs = _sessions(kps)
    current = {"seller": kps["seller"].public_key, "buyer": kps["buyer"].public_key}
    opening = _open(kps["seller"])
    for s in (s_sdk, s_rs):
        s.apply_message(opening, current.get)
    accept = sdk_message.build_envelope(message_type=MessageType.ACCEPT_SESSION, session_id="ses_keys",
                                        sender=AgentIdentity("buyer"), body={}, key_pair=kps["buyer"],
                                        prev_hash=s_sdk.prev_hash)
    for s in (s_sdk, s_rs):
        s.apply_message(accept, current.get)
    offer = {"offer_id": "o1", "offer_type": "basic", "terms": {"price": {"value": 100, "currency": "USD"}}}

    def offer_by(kp: sdk_signing.KeyPair) -> Dict[str, Any]:
        return sdk_message.build_envelope(message_type=MessageType.OFFER, session_id="ses_keys",
                                          sender=AgentIdentity("seller"), body=offer, key_pair=kp,
                                          prev_hash=s_sdk.prev_hash)

    del current["seller"]  # revoked
    m = offer_by(kps["seller"])
    with pytest.raises(Exception) as sdk_err:
        s_sdk.apply_message(m, current.get)
    with pytest.raises(rs.InvalidSignatureError):
        s_rs.apply_message(m, current.get)
    assert type(sdk_err.value).__name__ == "InvalidSignatureError"

    current["seller"] = kps["seller_rotated"].public_key  # rotated
    with pytest.raises(Exception):
        s_sdk.apply_message(m, current.get)
    with pytest.raises(rs.InvalidSignatureError):
        s_rs.apply_message(m, current.get)
    m2 = offer_by(kps["seller_rotated"])
    assert s_sdk.apply_message(m2, current.get).value == s_rs.apply_message(m2, current.get) == "active"
    assert s_rs.prev_hash == s_sdk.prev_hash and s_rs.round_count == s_sdk.round_count == 1


def test_without_a_resolver_the_registered_keys_are_used() -> None:
    kps = _keys()
    _, s_rs = _sessions(kps)
    with pytest.raises(rs.InvalidSignatureError):
        s_rs.apply_message(_open(kps["seller_rotated"]))
    assert s_rs.apply_message(_open(kps["seller"])) == "proposed"
    # An unregistered sender has no key without a resolver.
    stranger = sdk_message.build_envelope(message_type=MessageType.ACCEPT_SESSION, session_id="ses_keys",
                                          sender=AgentIdentity("mallory"), body={}, key_pair=kps["buyer"],
                                          prev_hash=s_rs.prev_hash)
    with pytest.raises(rs.InvalidSignatureError):
        s_rs.apply_message(stranger)
