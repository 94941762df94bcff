"""Bulk verification: verify_many agrees with a loop of verify_signature on valid,
tampered and malformed inputs; TranscriptVerifier.push_many checks on every core and
links in order; one TranscriptVerifier shared by threads."""

from __future__ import annotations

import json
import threading
from typing import Any, Dict, List

import concordia.message as sdk_message
import concordia.signing as sdk_signing
import pytest
from concordia.types import AgentIdentity, MessageType

import concordia_rs as rs


def chain(n: int, session: str = "ses_bulk") -> tuple[List[Dict[str, Any]], Dict[str, Any]]:
    kps = {"a": sdk_signing.KeyPair.generate(), "b": sdk_signing.KeyPair.generate()}
    msgs: List[Dict[str, Any]] = []
    prev = sdk_message.GENESIS_HASH
    for i in range(n):
        who = "ab"[i % 2]
        m = sdk_message.build_envelope(message_type=MessageType.OFFER, session_id=session, sender=AgentIdentity(who),
                                       body={"terms": {"price": {"value": 1000 + i}}, "i": i}, key_pair=kps[who],
                                       prev_hash=prev)
        prev = sdk_message.compute_hash(m)
        msgs.append(m)
    return msgs, {k: v.public_key for k, v in kps.items()}


def loop(messages: List[Any], keys: Dict[str, Any]) -> List[bool]:
    """The oracle: verify_signature on each message with its sender's key."""
    out = []
    for m in messages:
        try:
            if isinstance(m, (bytes, str)):
                m = json.loads(m)
            out.append(bool(rs.verify_signature(m, m["signature"], keys[m["from"]["agent_id"]])))
        except Exception:  # noqa: BLE001 - whatever cannot be looked up or verified is False
            out.append(False)
    return out


def inputs() -> tuple[List[Any], Dict[str, Any]]:
    msgs, keys = chain(12)
    cases: List[Any] = list(msgs)
    # Tampered: a changed body, a changed signature, a swapped sender.
    t1 = json.loads(json.dumps(msgs[0]))
    t1["body"]["i"] = 99
    t2 = dict(msgs[1], signature=msgs[2]["signature"])
    t3 = dict(msgs[2], **{"from": {"agent_id": "b"}})
    # Malformed: no signature, no sender, an unknown sender, a signature that is not base64,
    # a non-string signature, not an object, a NaN, nesting beyond the policy, bad JSON text.
    deep: Any = 1
    for _ in range(200):
        deep = [deep]
    malformed: List[Any] = [
        {k: v for k, v in msgs[3].items() if k != "signature"},
        {k: v for k, v in msgs[3].items() if k != "from"},
        dict(msgs[3], **{"from": {"agent_id": "nobody"}}),
        dict(msgs[3], signature="not base64!"),
        dict(msgs[3], signature=7),
        dict(msgs[3], signature=msgs[3]["signature"].rstrip("=")),
        [msgs[3]],
        5,
        dict(msgs[3], body={"x": float("nan")}),
        dict(msgs[3], body=deep),
        b"{not json",
        b"",
    ]
    as_bytes = [sdk_signing.canonical_json(m) for m in msgs[:4]] + [json.dumps(msgs[5]).encode(), json.dumps(t1).encode()]
    return cases + [t1, t2, t3] + malformed + as_bytes, keys


def test_verify_many_agrees_with_a_loop_of_verify_signature() -> None:
    messages, keys = inputs()
    want = loop(messages, keys)
    assert rs.verify_many(messages, keys) == want
    # The oracle is not trivial: both verdicts occur.
    assert want.count(True) == 12 + 5 and want.count(False) >= 15
    # Keys in another form (raw bytes) and a non-Ed25519 key.
    raw = {k: v.public_bytes_raw() for k, v in keys.items()}
    assert rs.verify_many(messages, raw) == want
    es = sdk_signing.ES256KeyPair.generate().public_key
    only_a = loop(messages, {"a": keys["a"], "b": es})
    assert rs.verify_many(messages, {"a": keys["a"], "b": es}) == only_a
    assert rs.verify_many([], keys) == []
    assert rs.verify_many(iter(messages[:3]), keys) == want[:3]


def test_push_many_checks_in_parallel_and_links_in_order() -> None:
    msgs, keys = chain(40)
    v = rs.TranscriptVerifier(keys)
    mixed = [m if i % 3 else json.dumps(m).encode() for i, m in enumerate(msgs)]
    assert v.push_many(mixed) == 40
    assert v.count == 40 and v.head == sdk_message.compute_hash(msgs[-1])
    # The same as one push at a time, and as verify_transcript.
    w = rs.TranscriptVerifier(keys)
    for m in msgs:
        w.push(m)
    assert (w.count, w.head) == (v.count, v.head)
    assert rs.verify_transcript(json.dumps(msgs).encode(), keys) == (40, v.head)


def test_push_many_stops_at_the_first_failure_with_its_index() -> None:
    msgs, keys = chain(20)
    bad = list(msgs)
    bad[7] = dict(msgs[7], signature=msgs[8]["signature"])
    bad[12] = dict(msgs[12], prev_hash=sdk_message.GENESIS_HASH)
    v = rs.TranscriptVerifier(keys)
    with pytest.raises(rs.InvalidSignatureError) as e:
        v.push_many(bad)
    assert e.value.index == 7 and v.count == 7 and v.head == sdk_message.compute_hash(msgs[6])
    # The one-at-a-time verdict of the failing message is the same.
    w = rs.TranscriptVerifier(keys)
    w.push_many(msgs[:7])
    with pytest.raises(rs.InvalidSignatureError):
        w.push(bad[7])
    # A link error before a signature error in the same message: the link error, as push.
    both = dict(msgs[7], signature=msgs[8]["signature"], prev_hash=sdk_message.GENESIS_HASH)
    with pytest.raises(rs.ChainIntegrityError):
        w.push(both)
    with pytest.raises(rs.ChainIntegrityError) as e2:
        rs.TranscriptVerifier(keys).push_many(msgs[:7] + [both])
    assert e2.value.index == 7
    # A value that cannot be canonicalized: the messages before it are accepted.
    x = rs.TranscriptVerifier(keys)
    with pytest.raises(ValueError) as e3:
        x.push_many(msgs[:3] + [{"n": float("nan")}] + msgs[3:])
    assert e3.value.index == 3 and x.count == 3


def test_a_transcript_verifier_shared_by_threads() -> None:
    msgs, keys = chain(60)
    v = rs.TranscriptVerifier(keys)
    errors: List[BaseException] = []
    lock = threading.Lock()
    nxt = [0]

    def worker() -> None:
        # Each thread takes the next message in order and pushes it (the order of
        # acceptance is the chain's order), while others read count and head.
        try:
            while True:
                with lock:
                    i = nxt[0]
                    if i >= len(msgs):
                        return
                    nxt[0] += 1
                    v.push(msgs[i])
                _ = v.count, v.head
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    def batch_worker() -> None:
        # push_many with the GIL released, concurrently with readers: never a borrow error.
        try:
            for _ in range(20):
                _ = v.count, v.head
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)] + [threading.Thread(target=batch_worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert v.count == 60 and v.head == sdk_message.compute_hash(msgs[-1])

    # Concurrent push_many calls on one verifier: one of them links the chain, the other
    # is refused by the chain rule (never "Already mutably borrowed").
    w = rs.TranscriptVerifier(keys)
    results: List[Any] = []

    def many() -> None:
        try:
            results.append(w.push_many(msgs))
        except rs.ConcordiaError as e:
            results.append(type(e).__name__)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=many) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []
    assert results.count(60) == 1 and w.count == 60


def test_a_session_used_during_its_own_call_raises_runtime_error() -> None:
    # Session is for one thread at a time (README): a call made while another call on the
    # same object runs (here: from its own key resolver) is a RuntimeError, nothing worse.
    kp = rs.KeyPair.generate()
    s = rs.Session(session_id="ses_t", created_at=1_000_000.0)
    s.add_party("a", "initiator", kp.public_key)

    def resolver(agent_id: str) -> Any:
        _ = s.state
        return kp.public_key

    m = rs.build_envelope(message_type="negotiate.open", session_id="ses_t", sender="a", body={"terms": {}}, key_pair=kp)
    with pytest.raises(RuntimeError, match="[Bb]orrowed"):
        s.apply_message(m, resolver, now=1_000_001.0)
    assert s.message_count == 0
