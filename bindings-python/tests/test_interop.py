"""Interop both ways with the reference SDK: keys, signatures, envelopes, chains,
sessions and attestations made by either side check under the other."""

from __future__ import annotations

import base64
import json
from typing import Any, Dict, List

import concordia.attestation as sdk_att
import concordia.message as sdk_message
import concordia.session as sdk_session
import concordia.signing as sdk_signing
import pytest
from concordia.types import AgentIdentity, MessageType, PartyRole

import concordia_rs as rs

BODY_OPEN = {"terms": {"price": {"value": 2200, "unit": "USD"}, "qty": {"value": 2}}}
OFFER = {"offer_id": "off_1", "offer_type": "basic", "terms": {"price": {"value": 2100, "unit": "USD"}, "qty": {"value": 2}}}
COUNTER = {"offer_id": "off_2", "offer_type": "basic", "terms": {"price": {"value": 1900, "unit": "USD"}, "qty": {"value": 2}}}


@pytest.fixture()
def parties():
    seller, buyer = sdk_signing.KeyPair.generate(), sdk_signing.KeyPair.generate()
    return {
        "seller": (seller, rs.KeyPair.from_private_bytes(seller.private_key_bytes())),
        "buyer": (buyer, rs.KeyPair.from_private_bytes(buyer.private_key_bytes())),
    }


def test_key_material_is_byte_compatible(parties) -> None:
    sdk_kp, rs_kp = parties["seller"]
    assert rs_kp.public_key_bytes() == sdk_kp.public_key_bytes()
    assert rs_kp.public_key_b64() == sdk_kp.public_key_b64()
    assert rs_kp.private_key_bytes() == sdk_kp.private_key_bytes()
    assert rs_kp.verification_material() == sdk_kp.verification_material()
    assert rs.KeyPair.from_sdk(sdk_kp).public_key_b64() == sdk_kp.public_key_b64()
    # Our generated keys load into the SDK.
    fresh = rs.KeyPair.generate()
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    priv = Ed25519PrivateKey.from_private_bytes(fresh.private_key_bytes())
    back = sdk_signing.KeyPair(private_key=priv, public_key=priv.public_key())
    assert back.public_key_b64() == fresh.public_key_b64()
    assert fresh.public_key_b64().endswith("=")


def test_public_key_from_b64url_accepts_the_sdk_forms(parties) -> None:
    sdk_kp, _ = parties["buyer"]
    padded = sdk_kp.public_key_b64()
    raw = sdk_kp.public_key_bytes()
    for text in (padded, padded.rstrip("="), base64.b64encode(raw).decode(), f"  {padded}\n"):
        assert rs.public_key_from_b64url(text).public_bytes_raw() == raw
        assert sdk_signing.public_key_from_b64url(text).public_bytes_raw() == raw
    for bad in ("", "abc", padded[:-4]):
        with pytest.raises(ValueError):
            rs.public_key_from_b64url(bad)
        with pytest.raises(ValueError):
            sdk_signing.public_key_from_b64url(bad)


def test_signatures_verify_both_ways(parties) -> None:
    sdk_kp, rs_kp = parties["seller"]
    data = {"b": [1, 2.5, "é"], "a": {"z": None}, "signature": "ignored"}
    sig_rs = rs.sign_message(data, rs_kp)
    sig_sdk = sdk_signing.sign_message(data, sdk_kp)
    assert sig_rs == sig_sdk
    assert sdk_signing.verify_signature(data, sig_rs, sdk_kp.public_key)
    for key in (sdk_kp.public_key, rs_kp.public_key, rs_kp.public_key_b64(), rs_kp.public_key_bytes()):
        assert rs.verify_signature(data, sig_sdk, key)
    tampered = dict(data, a={"z": 1})
    assert not rs.verify_signature(tampered, sig_sdk, rs_kp.public_key)
    assert not sdk_signing.verify_signature(tampered, sig_rs, sdk_kp.public_key)
    other = parties["buyer"][1]
    assert not rs.verify_signature(data, sig_sdk, other.public_key)
    assert not rs.verify_signature(data, "not base64!", rs_kp.public_key)
    assert not rs.verify_signature(data, sig_sdk, "garbage key")
    assert not rs.verify_signature(data, sig_sdk, rs_kp.public_key, alg="ES256")


def chain_by(builder, kps: Dict[str, Any], n: int) -> List[Dict[str, Any]]:
    msgs = []
    prev = rs.GENESIS_HASH
    for i in range(n):
        who = "seller" if i % 2 == 0 else "buyer"
        m = builder(
            message_type=MessageType.OFFER, session_id="ses_x", sender=AgentIdentity(who),
            body={"i": i, "terms": {"price": {"value": 1000 - i}}}, key_pair=kps[who], prev_hash=prev,
            recipients=[AgentIdentity("buyer" if who == "seller" else "seller")], reasoning="r" if i % 3 == 0 else None,
            ttl=60 if i % 4 == 0 else None,
        )
        prev = sdk_message.compute_hash(m)
        msgs.append(m)
    return msgs


@pytest.mark.parametrize("side", ["rs", "sdk"])
def test_envelopes_and_chains_validate_under_the_other(parties, side) -> None:
    if side == "rs":
        kps = {k: v[1] for k, v in parties.items()}
        msgs = chain_by(rs.build_envelope, kps, 12)
    else:
        kps = {k: v[0] for k, v in parties.items()}
        msgs = chain_by(sdk_message.build_envelope, kps, 12)
    assert sdk_message.validate_chain(msgs) and rs.validate_chain(msgs)
    assert list(msgs[0]) == list(sdk_message.build_envelope(
        message_type=MessageType.OFFER, session_id="s", sender=AgentIdentity("seller"), body={}, key_pair=parties["seller"][0],
        recipients=[AgentIdentity("buyer")], reasoning="r", ttl=60))
    pub = {k: v[0].public_key for k, v in parties.items()}
    for m in msgs:
        who = m["from"]["agent_id"]
        assert sdk_signing.verify_signature(m, m["signature"], pub[who])
        assert rs.verify_signature(m, m["signature"], pub[who])
        assert rs.compute_hash(m) == sdk_message.compute_hash(m)
    v = rs.TranscriptVerifier(pub)
    for m in msgs:
        v.push(m)
    assert v.count == len(msgs) and v.head == sdk_message.compute_hash(msgs[-1])
    # Serialized form, with the GIL released.
    texts = [json.dumps(m).encode() for m in msgs]
    v2 = rs.TranscriptVerifier(pub)
    assert v2.push_many(texts) == len(msgs) and v2.head == v.head
    assert rs.verify_transcript(json.dumps(msgs).encode(), pub) == (len(msgs), v.head)
    # Break a link.
    broken = [dict(m) for m in msgs]
    broken[5]["prev_hash"] = rs.GENESIS_HASH
    assert not rs.validate_chain(broken) and not sdk_message.validate_chain(broken)
    v3 = rs.TranscriptVerifier(pub)
    with pytest.raises(rs.ChainIntegrityError) as e:
        v3.push_many([json.dumps(m).encode() for m in broken])
    assert e.value.index == 5 and v3.count == 5
    assert e.value.reason_class == "binding"


def test_transcript_files_stream(parties, tmp_path) -> None:
    kps = {k: v[0] for k, v in parties.items()}
    msgs = chain_by(sdk_message.build_envelope, kps, 30)
    pub = {k: v[0].public_key for k, v in parties.items()}
    head = sdk_message.compute_hash(msgs[-1])
    array = tmp_path / "t.json"
    array.write_text(json.dumps(msgs))
    lines = tmp_path / "t.jsonl"
    lines.write_text("\n".join(json.dumps(m) for m in msgs) + "\n")
    wrapped = tmp_path / "w.json"
    wrapped.write_text(json.dumps({"messages": msgs}))
    assert rs.verify_transcript_file(array, pub) == (30, head)
    assert rs.verify_transcript_file(str(lines), pub, lines=True) == (30, head)
    assert rs.verify_transcript_file(wrapped, pub) == (30, head)
    broken = [dict(m) for m in msgs]
    broken[7]["prev_hash"] = rs.GENESIS_HASH
    array.write_text(json.dumps(broken))
    with pytest.raises(rs.ChainIntegrityError) as e:
        rs.verify_transcript_file(array, pub)
    assert e.value.index == 7
    # A malformed file after the failing message is an input error, as when read whole.
    array.write_text(json.dumps(broken)[:-1])
    with pytest.raises(rs.InvalidJsonError):
        rs.verify_transcript_file(array, pub)
    array.write_text(json.dumps(msgs))
    with pytest.raises(rs.LimitError):
        rs.verify_transcript_file(array, pub, max_input=1000)
    with pytest.raises(OSError):
        rs.verify_transcript_file(tmp_path / "missing.json", pub)


def negotiation(builder, kps, session_prev):
    """open, accept_session, offer, counter, accept: (sender, type, body) steps."""
    steps = [
        ("seller", MessageType.OPEN, BODY_OPEN),
        ("buyer", MessageType.ACCEPT_SESSION, {}),
        ("seller", MessageType.OFFER, OFFER),
        ("buyer", MessageType.COUNTER, COUNTER),
        ("seller", MessageType.ACCEPT, {"offer_id": "off_2"}),
    ]
    for who, ty, body in steps:
        yield builder(message_type=ty, session_id="ses_int", sender=AgentIdentity(who), body=body,
                      key_pair=kps[who], prev_hash=session_prev())


def test_sessions_agree_with_the_sdk(parties) -> None:
    sdk_kps = {k: v[0] for k, v in parties.items()}
    pub = {k: v[0].public_key for k, v in parties.items()}
    s_sdk = sdk_session.Session(session_id="ses_int")
    s_rs = rs.Session(session_id="ses_int")
    for who, role in (("seller", PartyRole.INITIATOR), ("buyer", PartyRole.RESPONDER)):
        s_sdk.add_party(who, role, pub[who])
        s_rs.add_party(who, role, pub[who])
    for m in negotiation(sdk_message.build_envelope, sdk_kps, lambda: s_sdk.prev_hash):
        a = s_sdk.apply_message(m, pub.get)
        b = s_rs.apply_message(m, pub.get)
        assert a.value == b
        assert s_rs.prev_hash == s_sdk.prev_hash
    assert s_rs.state == "agreed" and s_rs.is_terminal and s_rs.round_count == s_sdk.round_count == 2
    assert s_rs.transcript_hash == sdk_att._compute_transcript_hash(s_sdk.transcript)
    assert s_rs.transcript == s_sdk.transcript
    for who in pub:
        ours, theirs = s_rs.get_behavior(who), s_sdk.get_behavior(who).to_dict()
        assert {k: ours[k] for k in theirs} == theirs


def test_session_errors_have_the_sdk_names(parties) -> None:
    sdk_kps = {k: v[0] for k, v in parties.items()}
    pub = {k: v[0].public_key for k, v in parties.items()}
    s = rs.Session(session_id="ses_int", timing={"max_rounds": 1})
    msgs = list(negotiation(sdk_message.build_envelope, sdk_kps, lambda: s.prev_hash))
    s.apply_message(msgs[0], pub.get)
    # Replayed / out of order.
    with pytest.raises(rs.ChainIntegrityError):
        s.apply_message(msgs[0], pub.get)
    # Unknown signer.
    with pytest.raises(rs.InvalidSignatureError):
        s.apply_message(msgs[1], lambda _id: None)
    # Tampered.
    bad = dict(msgs[1], body={"x": 1})
    with pytest.raises(rs.InvalidSignatureError):
        s.apply_message(bad, pub.get)
    # Another session's message.
    other = sdk_message.build_envelope(message_type=MessageType.ACCEPT_SESSION, session_id="ses_other",
                                       sender=AgentIdentity("buyer"), body={}, key_pair=sdk_kps["buyer"], prev_hash=s.prev_hash)
    with pytest.raises(rs.SessionBindingError):
        s.apply_message(other, pub.get)
    # Not allowed in PROPOSED.
    offer = sdk_message.build_envelope(message_type=MessageType.OFFER, session_id="ses_int", sender=AgentIdentity("seller"),
                                       body=OFFER, key_pair=sdk_kps["seller"], prev_hash=s.prev_hash)
    with pytest.raises(rs.InvalidTransitionError):
        s.apply_message(offer, pub.get)
    assert s.state == "proposed" and s.message_count == 1
    s.apply_message(msgs[1].__class__(msgs[1]) if False else sdk_message.build_envelope(
        message_type=MessageType.ACCEPT_SESSION, session_id="ses_int", sender=AgentIdentity("buyer"), body={},
        key_pair=sdk_kps["buyer"], prev_hash=s.prev_hash), pub.get)
    s.apply_message(sdk_message.build_envelope(message_type=MessageType.OFFER, session_id="ses_int", sender=AgentIdentity("seller"),
                                               body=OFFER, key_pair=sdk_kps["seller"], prev_hash=s.prev_hash), pub.get)
    with pytest.raises(rs.MaxRoundsExceededError) as e:
        s.apply_message(sdk_message.build_envelope(message_type=MessageType.COUNTER, session_id="ses_int", sender=AgentIdentity("buyer"),
                                                   body=COUNTER, key_pair=sdk_kps["buyer"], prev_hash=s.prev_hash), pub.get)
    assert isinstance(e.value, rs.InvalidTransitionError) and e.value.reason_class == "transition"
    assert issubclass(rs.SchemaError, ValueError) and issubclass(rs.CanonicalizationError, ValueError)
    assert not issubclass(rs.InvalidSignatureError, ValueError)


def concluded_sessions(parties):
    sdk_kps = {k: v[0] for k, v in parties.items()}
    pub = {k: v[0].public_key for k, v in parties.items()}
    s_sdk = sdk_session.Session(session_id="ses_att")
    s_rs = rs.Session(session_id="ses_att")
    for who, role in (("seller", PartyRole.INITIATOR), ("buyer", PartyRole.RESPONDER)):
        s_sdk.add_party(who, role, pub[who])
        s_rs.add_party(who, role, pub[who])
    for m in negotiation(sdk_message.build_envelope, sdk_kps, lambda: s_sdk.prev_hash):
        m["session_id"] = "ses_att"
        m["signature"] = sdk_signing.sign_message(m, sdk_kps[m["from"]["agent_id"]])
        s_sdk.apply_message(m, pub.get)
        s_rs.apply_message(m, pub.get)
    return s_sdk, s_rs, sdk_kps, pub


def test_attestations_verify_under_the_other(parties) -> None:
    s_sdk, s_rs, sdk_kps, pub = concluded_sessions(parties)
    # SDK-generated, checked by concordia_rs.
    att_sdk = sdk_att.generate_attestation(s_sdk, sdk_kps, category="electronics.cameras", value_range="1000-5000_USD")
    r = rs.verify_attestation(att_sdk, pub, s_sdk.transcript)
    assert r.valid, r
    assert r.set_binding_state == "bound" and r.verified_parties == 2 and r.countersignatures == 2
    # concordia_rs-generated (from the SDK's key objects), checked by the SDK.
    att_rs = rs.generate_attestation(s_rs, sdk_kps, category="electronics.cameras", value_range="1000-5000_USD")
    res = sdk_att.verify_attestation(att_rs, pub, s_sdk.transcript)
    assert res.valid, res.errors
    for who in pub:
        assert sdk_att.verify_attestation_countersignature(att_rs, att_rs["countersignatures"][who], pub[who])
        assert rs.countersign_attestation(att_rs, sdk_kps[who]) == sdk_att.countersign_attestation(att_rs, sdk_kps[who])
        assert rs.countersign_attestation(att_sdk, sdk_kps[who]) == att_sdk["countersignatures"][who]
    assert rs.verify_attestation(att_rs, pub, s_rs.transcript).valid
    # Tampering is caught on both sides.
    bad = json.loads(json.dumps(att_rs))
    bad["outcome"]["rounds"] = 7
    assert not rs.verify_attestation(bad, pub).valid
    assert not sdk_att.verify_attestation(bad, pub).valid or not sdk_att.verify_attestation_countersignature(
        bad, bad["countersignatures"]["seller"], pub["seller"])
    r = rs.verify_attestation(bad, pub)
    assert r.reason_class == "signature" and not r


def test_attestation_needs_a_concluded_session(parties) -> None:
    s = rs.Session(session_id="ses_open")
    with pytest.raises(rs.InvalidTransitionError):
        rs.generate_attestation(s, {})
    with pytest.raises(ValueError):
        rs.generate_attestation(concluded_sessions(parties)[1], {}, category="Free text price 4350 USD")
