"""One policy on every Python path (issue 14, items 3 to 5): a dict and its JSON text get the
same verdict for depth and integers, because the dict walker asks the core the reader's own
questions; the envelope's field rules are the core's; and no panic reaches Python.

The reference SDK is more lenient on depth (about 490 levels) and integers (any `str(int)`);
concordia_rs refuses those values (a `ValueError` where it would sign, `False` where it
verifies), never accepts more.
"""

from __future__ import annotations

import json
from typing import Any, Dict

import concordia.message as sdk_message
import concordia.signing as sdk_signing
import pytest
from concordia.types import AgentIdentity, MessageType

import concordia_rs as rs


def _nest(levels: int) -> Any:
    """A value of `levels` nested containers (dicts and lists alternating)."""
    v: Any = 1
    for i in range(levels):
        v = {"a": v} if i % 2 == 0 else [v]
    return v


def _reader_accepts(text: str) -> bool:
    """The core's JSON reader (bytes path) on `text`: False when it refuses the text itself."""
    try:
        rs.TranscriptVerifier({}).push(text.encode())
    except (rs.InvalidJsonError, rs.LimitError):
        return False
    except rs.ConcordiaError:
        return True  # read, then refused for what it says (schema, key, ...)
    return True


def _walker_accepts(value: Any) -> bool:
    try:
        rs.canonical_json(value)
    except ValueError:
        return False
    return True


def test_max_depth_is_the_cores_policy() -> None:
    assert rs.MAX_DEPTH == 128


@pytest.mark.parametrize("levels", [1, 100, 127, 128, 129, 200, 400])
def test_depth_verdict_is_the_same_for_a_dict_and_its_text(levels: int) -> None:
    value = _nest(levels)
    text = json.dumps(value)
    assert _walker_accepts(value) == _reader_accepts(text) == (levels <= 128)


@pytest.mark.parametrize("levels", [127, 128, 129])
def test_depth_of_a_signed_message_on_every_path(levels: int) -> None:
    """A message whose total nesting (the message object included) is `levels`."""
    sdk_kp = sdk_signing.KeyPair.generate()
    msg: Dict[str, Any] = {"concordia": "1.0", "type": "negotiate.open", "id": "m", "session_id": "s",
                           "from": {"agent_id": "a"}, "prev_hash": rs.GENESIS_HASH, "body": _nest(levels - 1)}
    msg["signature"] = sdk_signing.sign_message(msg, sdk_kp)  # the SDK signs any depth it can recurse
    ok = levels <= 128
    pk = sdk_kp.public_key
    assert rs.verify_signature(msg, msg["signature"], pk) is ok
    if ok:
        assert rs.sign_message(msg, sdk_kp) == msg["signature"]
        rs.TranscriptVerifier({"a": pk}).push(msg)
        rs.TranscriptVerifier({"a": pk}).push(json.dumps(msg))
    else:
        with pytest.raises(rs.CanonicalizationError):
            rs.sign_message(msg, sdk_kp)
        with pytest.raises(ValueError):
            rs.compute_hash(msg)
        with pytest.raises(ValueError):
            rs.TranscriptVerifier({"a": pk}).push(msg)
        with pytest.raises(ValueError):
            rs.TranscriptVerifier({"a": pk}).push(json.dumps(msg))


INTEGERS = [0, -1, 2**53 - 1, -(2**53 - 1), 2**53, -(2**53), 2**53 + 1, -(2**53 + 1), 2**54, 2**60, -(2**60),
            10**20, -(10**20), 10**20 + 1, 10**21, 123456789012345678901234, 2**64, 10**400]


@pytest.mark.parametrize("n", INTEGERS)
def test_integer_verdict_is_the_same_for_a_dict_and_its_text(n: int) -> None:
    value = {"n": n, "m": [n]}
    assert _walker_accepts(value) == _reader_accepts(json.dumps(value)), n


def test_big_integers_are_refused_on_sign_hash_and_canonical_json_and_fail_verification() -> None:
    sdk_kp = sdk_signing.KeyPair.generate()
    body = {"n": 2**60}
    with pytest.raises(rs.CanonicalizationError):
        rs.build_envelope(message_type=MessageType.OPEN, session_id="s", sender=AgentIdentity("a"), body=body, key_pair=sdk_kp)
    msg = sdk_message.build_envelope(message_type=MessageType.OPEN, session_id="s", sender=AgentIdentity("a"), body=body, key_pair=sdk_kp)
    for f in (rs.canonical_json, rs.canonicalize_jcs, rs.compute_hash, lambda m: rs.sign_message(m, sdk_kp)):
        with pytest.raises(rs.CanonicalizationError) as e:
            f(msg)
        assert isinstance(e.value, ValueError)
    assert sdk_signing.verify_signature(msg, msg["signature"], sdk_kp.public_key) is True
    assert rs.verify_signature(msg, msg["signature"], sdk_kp.public_key) is False
    with pytest.raises(ValueError):
        rs.TranscriptVerifier({"a": sdk_kp.public_key}).push(msg)
    with pytest.raises(ValueError):
        rs.TranscriptVerifier({"a": sdk_kp.public_key}).push(json.dumps(msg))
    # A big integer that is its own ECMAScript form means the same everywhere: accepted.
    m = rs.build_envelope(message_type=MessageType.OPEN, session_id="s", sender=AgentIdentity("a"),
                          body={"n": 10**20, "k": 2**53 - 1}, key_pair=sdk_kp)
    assert sdk_signing.verify_signature(m, m["signature"], sdk_kp.public_key)
    rs.TranscriptVerifier({"a": sdk_kp.public_key}).push(m)
    rs.TranscriptVerifier({"a": sdk_kp.public_key}).push(json.dumps(m))


def test_int_subclass_whose_str_is_not_a_literal_is_refused() -> None:
    class Weird(int):
        def __str__(self) -> str:
            return "Weird.ONE"

    with pytest.raises(rs.CanonicalizationError):
        rs.canonical_json({"n": Weird(1)})


@pytest.mark.parametrize("ttl, ok", [(0, True), (60, True), (2**53 - 1, True), (2**53, False), (2**60, False),
                                     (2**64, False), (-1, False), (True, False), (1.5, False), ("60", False)])
def test_envelope_ttl_follows_the_core_envelope(ttl: Any, ok: bool) -> None:
    kp = rs.KeyPair.generate()

    def build() -> Dict[str, Any]:
        return rs.build_envelope(message_type=MessageType.OFFER, session_id="s", sender=AgentIdentity("a"),
                                 body={"x": 1}, key_pair=kp, ttl=ttl)

    if ok:
        m = build()
        assert m["ttl"] == ttl
        assert sdk_signing.verify_signature(m, m["signature"], sdk_signing.public_key_from_b64url(kp.public_key_b64()))
        rs.TranscriptVerifier({"a": kp.public_key}).push(json.dumps(m))
    else:
        with pytest.raises(rs.InvalidArgumentError) as e:
            build()
        assert isinstance(e.value, ValueError)


def test_build_envelope_is_the_sdks_envelope() -> None:
    """Signed by the core's envelope writer, the dict is still the SDK's, member for member."""
    sdk_kp = sdk_signing.KeyPair.generate()
    kw: Dict[str, Any] = dict(message_type=MessageType.COUNTER, session_id="ses_x", sender=AgentIdentity("a", "p"),
                              body={"terms": {"price": {"value": 1.5}}, "t": (1, 2)}, key_pair=sdk_kp,
                              recipients=[AgentIdentity("b"), AgentIdentity("c", "q")], in_reply_to="m0",
                              reasoning="because", ttl=30, prev_hash="sha256:" + "ab" * 32)
    ours = rs.build_envelope(**kw)
    theirs = sdk_message.build_envelope(**kw)
    assert list(ours) == list(theirs)
    for k in ours:
        if k not in ("id", "timestamp", "signature"):
            assert ours[k] == theirs[k], k
    theirs.update(id=ours["id"], timestamp=ours["timestamp"])
    assert ours["signature"] == sdk_signing.sign_message({k: v for k, v in theirs.items() if k != "signature"}, sdk_kp)
    with pytest.raises(ValueError):
        rs.build_envelope(**dict(kw, prev_hash="not-a-digest"))
    with pytest.raises(rs.InvalidArgumentError):
        rs.build_envelope(**dict(kw, sender={"agent_id": "a", "extra": "x"}))


# --- No panic reaches Python -------------------------------------------------------------


def _mutating_int(target: Dict[str, Any]) -> int:
    class Mutating(int):
        def __str__(self) -> str:
            target.clear()
            target.update({f"k{i}": i for i in range(8)})
            return "5"

    return Mutating(5)


def _mutating_key(target: Dict[Any, Any]) -> str:
    class MutatingKey(str):
        def __eq__(self, other: object) -> bool:
            target[f"zz{len(target)}"] = 1
            return str.__eq__(self, other)

        def __ne__(self, other: object) -> bool:
            target[f"zz{len(target)}"] = 1
            return str.__ne__(self, other)

        __hash__ = str.__hash__

    return MutatingKey("a")


def test_a_dict_changed_during_the_walk_raises_runtime_error() -> None:
    kp = rs.KeyPair.generate()
    for f in (rs.canonical_json, rs.compute_hash, lambda m: rs.sign_message(m, kp)):
        d: Dict[str, Any] = {"b": 1}
        d["a"] = _mutating_int(d)
        with pytest.raises(RuntimeError, match="changed size"):
            f(d)
        nested: Dict[str, Any] = {"x": 1}
        nested["y"] = _mutating_int(nested)
        with pytest.raises(RuntimeError):
            f({"outer": nested})
    d = {"b": 1}
    d["a"] = _mutating_int(d)
    assert rs.verify_signature(d, "A" * 86 + "==", kp.public_key) is False


def test_callbacks_in_keys_never_panic() -> None:
    kp = rs.KeyPair.generate()
    for bad_value in (object(), float("nan"), 2**60):
        d: Dict[Any, Any] = {}
        d[_mutating_key(d)] = bad_value
        d["b"] = 1
        for call in (lambda: rs.sign_message(d, kp), lambda: rs.canonical_json(d),
                     lambda: rs.verify_signature(d, "A" * 86 + "==", kp.public_key)):
            try:
                call()
            except BaseException as e:  # noqa: BLE001 - the point is what kind it is
                assert isinstance(e, Exception), f"{type(e).__module__}.{type(e).__name__}: {e}"
                assert type(e).__module__ != "pyo3_runtime"


def test_a_key_object_that_keeps_its_decoded_point_gives_every_verdict_again() -> None:
    """A `PublicKey` decodes its point on its first verification and keeps it: reused for
    good, tampered and foreign signatures in turn, and for a key that is not a valid point,
    it answers as its raw bytes do, every time."""
    kp = rs.KeyPair.generate()
    other = rs.KeyPair.generate()
    msg = {"type": "negotiate.offer", "body": {"price": 10}, "from": {"agent_id": "a"}}
    sig = rs.sign_message(msg, kp)
    foreign = rs.sign_message(msg, other)
    tampered = dict(msg, body={"price": 11})
    pk = kp.public_key
    raw = pk.public_bytes_raw()
    for _ in range(3):
        for data, s, want in [(msg, sig, True), (tampered, sig, False), (msg, foreign, False)]:
            assert rs.verify_signature(data, s, pk) is want
            assert rs.verify_signature(data, s, raw) is want
            assert sdk_signing.verify_signature(data, s, sdk_signing.public_key_from_b64url(pk.to_b64url())) is want
    # The identity point (y = 1): 32 bytes the SDK reads as a key, a small-order point we
    # refuse; the object keeps the refusal.
    small = rs.PublicKey.from_bytes(b"\x01" + b"\x00" * 31)
    for _ in range(3):
        assert rs.verify_signature(msg, sig, small) is False
        with pytest.raises(rs.InvalidSignatureError):
            small.verify(b"\x00" * 64, b"m")
    raw_sig = kp.sign(b"m")
    for _ in range(3):
        pk.verify(raw_sig, b"m")
        with pytest.raises(rs.InvalidSignatureError):
            pk.verify(raw_sig, b"n")
