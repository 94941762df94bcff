"""accelerate(): patches the reference SDK's hot functions everywhere they were imported
by name, reports what it patched, and is reversible."""

from __future__ import annotations

import concordia
import concordia.attestation
import concordia.message
import concordia.session
import concordia.signing
from concordia.types import AgentIdentity, MessageType, PartyRole

import concordia_rs as rs


def test_accelerate_patches_and_restores() -> None:
    orig = concordia.signing.canonical_json
    orig_verify = concordia.session.verify_signature
    patched = rs.accelerate()
    try:
        for name in (
            "concordia.signing.canonical_json", "concordia.signing.sign_message", "concordia.signing.verify_signature",
            "concordia.message.compute_hash", "concordia.message.validate_chain", "concordia.message.canonical_json",
            "concordia.session.verify_signature", "concordia.session.compute_hash",
            "concordia.canonicalization.canonicalize_jcs", "concordia.compute_hash",
        ):
            assert name in patched, name
        # The patched functions are the Rust ones behind a wrapper that hands whatever the
        # Rust path refuses to the SDK's own function (accelerate() never changes an answer).
        assert concordia.signing.canonical_json.__concordia_rs__ is rs.canonical_json
        assert concordia.message.compute_hash.__concordia_rs__ is rs.compute_hash
        assert concordia.signing.canonical_json({"b": 1, "a": [2]}) == rs.canonical_json({"b": 1, "a": [2]})
        # concordia_rs refuses 2**60 (beyond 2^53); under accelerate() the SDK still answers.
        assert concordia.signing.canonical_json({"n": 2**60}) == orig({"n": 2**60})
        assert rs.accelerate() == patched  # idempotent
    finally:
        restored = rs.deaccelerate()
    assert sorted(restored) == sorted(patched)
    assert concordia.signing.canonical_json is orig
    assert concordia.session.verify_signature is orig_verify
    assert rs.deaccelerate() == []


def test_context_manager_and_sdk_flows_under_acceleration() -> None:
    kp_a, kp_b = concordia.signing.KeyPair.generate(), concordia.signing.KeyPair.generate()
    with rs.accelerated() as patched:
        assert patched and concordia.signing.sign_message is not rs.sign_message  # wrapper keeps ES256
        s = concordia.session.Session(session_id="ses_acc")
        s.add_party("a", PartyRole.INITIATOR, kp_a.public_key)
        s.add_party("b", PartyRole.RESPONDER, kp_b.public_key)
        keys = {"a": kp_a.public_key, "b": kp_b.public_key}
        m1 = concordia.message.build_envelope(message_type=MessageType.OPEN, session_id="ses_acc",
                                              sender=AgentIdentity("a"), body={"terms": {}}, key_pair=kp_a)
        s.apply_message(m1, keys.get)
        m2 = concordia.message.build_envelope(message_type=MessageType.ACCEPT_SESSION, session_id="ses_acc",
                                              sender=AgentIdentity("b"), body={}, key_pair=kp_b, prev_hash=s.prev_hash)
        s.apply_message(m2, keys.get)
        assert concordia.message.validate_chain(s.transcript)
        # ES256 still goes to the SDK.
        es = concordia.signing.ES256KeyPair.generate()
        sig = concordia.signing.sign_message({"x": 1}, es, alg="ES256")
        assert concordia.signing.verify_signature({"x": 1}, sig, es.public_key, alg="ES256")
        # EdDSA with a non-Ed25519 key pair raises TypeError as in the SDK.
        try:
            concordia.signing.sign_message({"x": 1}, es)
        except TypeError:
            pass
        else:
            raise AssertionError("expected TypeError")
    assert concordia.signing.canonical_json is not rs.canonical_json
    # Made under acceleration, checks without it.
    assert concordia.message.validate_chain([m1, m2])
    assert concordia.signing.verify_signature(m2, m2["signature"], kp_b.public_key)


def test_build_envelope_matches_the_sdk_shape() -> None:
    kp = rs.KeyPair.generate()
    m = rs.build_envelope(message_type=MessageType.OFFER, session_id="s", sender=AgentIdentity("a", "p"), body={"x": 1},
                          key_pair=kp, recipients=["b"], in_reply_to="msg_0", reasoning="why", ttl=5, message_id="msg_1")
    assert list(m) == ["concordia", "type", "id", "session_id", "timestamp", "from", "prev_hash", "body", "to",
                       "in_reply_to", "reasoning", "ttl", "signature"]
    assert m["type"] == "negotiate.offer" and m["from"] == {"agent_id": "a", "principal_id": "p"} and m["to"] == [{"agent_id": "b"}]
    assert concordia.signing.verify_signature(m, m["signature"], concordia.signing.public_key_from_b64url(kp.public_key_b64()))


def test_a_name_imported_before_accelerate_is_patched_and_restored() -> None:
    import sys
    import types

    # An application module that imported the SDK's functions by name before accelerate().
    app = types.ModuleType("my_app_early_import")
    exec(
        "from concordia.signing import sign_message, verify_signature\n"
        "from concordia.message import compute_hash as h\n"
        "def hashed(m):\n    return h(m)\n",
        app.__dict__,
    )
    sys.modules[app.__name__] = app
    orig_sign, orig_verify, orig_h = app.sign_message, app.verify_signature, app.h
    try:
        patched = rs.accelerate()
        try:
            for name in ("sign_message", "verify_signature", "h"):
                assert f"my_app_early_import.{name}" in patched, name
            assert app.sign_message is concordia.signing.sign_message and app.sign_message is not orig_sign
            assert app.h.__concordia_rs__ is rs.compute_hash
            # Still the SDK's answers, through the Rust path.
            kp = concordia.signing.KeyPair.generate()
            m = {"b": [1, 2.5], "a": "x"}
            sig = app.sign_message(m, kp)
            assert sig == orig_sign(m, kp) and app.verify_signature(m, sig, kp.public_key)
            assert app.hashed(m) == orig_h(m)
        finally:
            restored = rs.deaccelerate()
        assert "my_app_early_import.sign_message" in restored
        assert app.sign_message is orig_sign and app.verify_signature is orig_verify and app.h is orig_h
        assert concordia.signing.sign_message is orig_sign
    finally:
        del sys.modules[app.__name__]


def test_deaccelerate_leaves_an_attribute_reassigned_since() -> None:
    orig = concordia.signing.canonical_json
    rs.accelerate()
    mine = lambda data: b"{}"  # noqa: E731
    concordia.signing.canonical_json = mine
    try:
        rs.deaccelerate()
        assert concordia.signing.canonical_json is mine
    finally:
        concordia.signing.canonical_json = orig


def test_accelerate_without_the_sdk_warns_and_patches_nothing(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys
    import warnings

    monkeypatch.setitem(sys.modules, "concordia.signing", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert rs.accelerate() == []
    assert any(issubclass(w.category, RuntimeWarning) and "not importable" in str(w.message) for w in caught)
    assert rs.deaccelerate() == []
