"""Interop with the reference SDK (concordia-protocol 0.10.0 from PyPI), both ways.

* `concordia demo` output validates under the SDK: validate_chain, verify_signature for
  every message, verify_attestation (set-bound to the transcript), and every
  countersignature.
* An attestation and transcript produced by the SDK verify under `concordia attestation
  verify` and `concordia chain verify`.
* Objects signed by either side verify under the other.
* A session driven by the SDK, including refused messages (wrong state, bad signature,
  max rounds, another session, a forked link, an unknown sender), replays through the
  core's state machine (`concordia session replay`) with the same state or the same
  error at every message, and the same behaviour summaries.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import subprocess
from pathlib import Path

import pytest

from concordia.agent import Agent
from concordia.attestation import (
    generate_attestation,
    verify_attestation,
    verify_attestation_countersignature,
)
from concordia.message import GENESIS_HASH, build_envelope, compute_hash, validate_chain
from concordia.offer import BasicOffer
from concordia.session import Session
from concordia.signing import KeyPair, public_key_from_b64url, sign_message, verify_signature
from concordia.types import AgentIdentity, MessageType, PartyRole, TimingConfig
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from conftest import REPO_ROOT, concordia_bin

SELLER = "did:concordia:agent:seller-sdk"
BUYER = "did:concordia:agent:buyer-sdk"


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(concordia_bin()), *args], input=stdin, capture_output=True)


def keypair(seed_byte: int) -> KeyPair:
    private = Ed25519PrivateKey.from_private_bytes(bytes([seed_byte]) * 32)
    return KeyPair(private_key=private, public_key=private.public_key())


def test_demo_output_validates_under_the_reference_sdk(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    r = run("demo", "--out", str(out), "--seed", "07" * 32, "--now", "2026-03-21T14:00:00Z")
    assert r.returncode == 0, r.stderr.decode()
    transcript = json.loads((out / "transcript.json").read_text())
    keys = {k: public_key_from_b64url(v) for k, v in json.loads((out / "keys.json").read_text()).items()}
    attestation = json.loads((out / "attestation.json").read_text())
    assert len(transcript) == 6
    assert validate_chain(transcript)
    for m in transcript:
        assert verify_signature(m, m["signature"], keys[m["from"]["agent_id"]])
    result = verify_attestation(attestation, keys, transcript)
    assert result.valid, result.errors
    assert result.set_binding_state == "bound"
    assert sorted(result.verified_parties) == sorted(keys)
    assert attestation["chain_head"] == compute_hash(transcript[-1])
    for agent_id, sig in attestation["countersignatures"].items():
        assert verify_attestation_countersignature(attestation, sig, keys[agent_id])
    # Tampering with the outcome breaks the countersignatures under the SDK as well.
    forged = copy.deepcopy(attestation)
    forged["outcome"]["rounds"] += 1
    assert not any(
        verify_attestation_countersignature(forged, s, keys[a]) for a, s in forged["countersignatures"].items()
    )
    # The same seed and time give the same bytes.
    again = tmp_path / "again"
    run("demo", "--out", str(again), "--seed", "07" * 32, "--now", "2026-03-21T14:00:00Z")
    for name in ("transcript.json", "keys.json", "attestation.json"):
        assert (again / name).read_bytes() == (out / name).read_bytes()


def sdk_session(tmp_path: Path) -> tuple[Session, list[dict], dict[str, KeyPair]]:
    seller, buyer = Agent(SELLER, keypair(1)), Agent(BUYER, keypair(2))
    terms = {"price": {"value": 2200, "currency": "USD"}, "item": {"value": "Canon EOS R5"}}
    session = seller.open_session(AgentIdentity(BUYER), terms, reasoning="selling")
    buyer.join_session(session)
    buyer.accept_session()
    seller.send_offer(BasicOffer(terms={"price": {"value": 2200, "currency": "USD"}}))
    buyer.send_counter(BasicOffer(terms={"price": {"value": 1900, "currency": "USD"}}), reasoning="fair")
    seller.send_counter(BasicOffer(terms={"price": {"value": 2050, "currency": "USD"}}))
    buyer.accept_offer()
    return session, session.transcript, {SELLER: seller.key_pair, BUYER: buyer.key_pair}


def test_sdk_attestation_and_transcript_verify_under_the_cli(tmp_path: Path) -> None:
    session, transcript, key_pairs = sdk_session(tmp_path)
    attestation = generate_attestation(session, key_pairs, category="electronics.cameras")
    keys = {a: kp.public_key_b64() for a, kp in key_pairs.items()}
    (tmp_path / "k.json").write_text(json.dumps(keys))
    (tmp_path / "t.json").write_text(json.dumps(transcript))
    (tmp_path / "a.json").write_text(json.dumps(attestation))
    r = run("chain", "verify", "--keys", str(tmp_path / "k.json"), str(tmp_path / "t.json"))
    assert r.returncode == 0, r.stderr.decode()
    r = run("attestation", "verify", "--json", "--keys", str(tmp_path / "k.json"), "--transcript", str(tmp_path / "t.json"), str(tmp_path / "a.json"))
    assert r.returncode == 0, r.stderr.decode() + r.stdout.decode()
    assert json.loads(r.stdout)["set_binding"] == "bound"
    # A truncated transcript no longer matches the attestation's binding.
    (tmp_path / "short.json").write_text(json.dumps(transcript[:-1]))
    r = run("attestation", "verify", "--keys", str(tmp_path / "k.json"), "--transcript", str(tmp_path / "short.json"), str(tmp_path / "a.json"))
    assert r.returncode == 1
    # A forged party signature is refused.
    forged = copy.deepcopy(attestation)
    forged["parties"][0]["behavior"]["concessions"] += 1
    (tmp_path / "f.json").write_text(json.dumps(forged))
    r = run("attestation", "verify", "--keys", str(tmp_path / "k.json"), str(tmp_path / "f.json"))
    assert r.returncode == 1


def test_signatures_verify_both_ways(tmp_path: Path) -> None:
    kp = keypair(9)
    doc = {"offer": {"price": 2050.5, "note": "ünïcode ✓ 😀", "n": [1, 1e21, 0.1]}, "signature": "stale"}
    # SDK signs, CLI verifies.
    signed = dict(doc, signature=sign_message(doc, kp))
    r = run("verify", "--public-key", kp.public_key_b64(), stdin=json.dumps(signed).encode())
    assert r.returncode == 0, r.stderr.decode()
    # CLI signs, SDK verifies.
    keyfile = tmp_path / "key.json"
    keyfile.write_text(run("keygen", "--seed", "09" * 32).stdout.decode())
    r = run("sign", "--key", str(keyfile), stdin=json.dumps(doc).encode())
    assert r.returncode == 0
    ours = json.loads(r.stdout)
    assert verify_signature(ours, ours["signature"], kp.public_key)
    assert json.loads(keyfile.read_text())["public_key_b64url"] == kp.public_key_b64()


def attempt(session: Session, sender: str, kp: KeyPair, mtype: MessageType, body: dict,
            log: list, *, session_id: str | None = None, prev_hash: str | None = None, tamper=None) -> None:
    """Build and sign a message as the SDK does, apply it to the SDK session, and record the
    message and the SDK's verdict (new state, or the exception's name)."""
    msg = build_envelope(
        message_type=mtype,
        session_id=session_id or session.session_id,
        sender=AgentIdentity(sender),
        body=body,
        key_pair=kp,
        prev_hash=session.prev_hash if prev_hash is None else prev_hash,
        reasoning="because" if mtype is MessageType.COUNTER else None,
    )
    if tamper:
        tamper(msg)
    keys = session._party_keys
    try:
        state = session.apply_message(msg, lambda a: keys.get(a))
        log.append((msg, {"ok": True, "state": state.value}))
    except Exception as exc:  # the SDK's verdict is the exception's type
        log.append((msg, {"ok": False, "error": type(exc).__name__}))


def test_sdk_driven_session_replays_identically_through_the_core(tmp_path: Path) -> None:
    seller_kp, buyer_kp, mallory_kp = keypair(1), keypair(2), keypair(3)
    session = Session(timing=TimingConfig(max_rounds=3))
    session.add_party(SELLER, PartyRole.INITIATOR, seller_kp.public_key)
    session.add_party(BUYER, PartyRole.RESPONDER, buyer_kp.public_key)
    offer = lambda p: BasicOffer(terms={"price": {"value": p, "currency": "USD"}, "item": {"value": "R5"}}).to_body()
    log: list = []
    M = MessageType
    attempt(session, SELLER, seller_kp, M.OPEN, {"terms": {"price": {"type": "numeric"}}}, log)
    attempt(session, BUYER, buyer_kp, M.OFFER, offer(1800), log)  # wrong state
    attempt(session, BUYER, buyer_kp, M.ACCEPT_SESSION, {}, log, tamper=lambda m: m["body"].update(x=1))  # bad signature
    attempt(session, BUYER, buyer_kp, M.ACCEPT_SESSION, {}, log)
    attempt(session, SELLER, seller_kp, M.OFFER, offer(2200), log)
    attempt(session, BUYER, buyer_kp, M.COUNTER, offer(1900), log)
    attempt(session, SELLER, seller_kp, M.COUNTER, offer(2050), log)
    attempt(session, BUYER, buyer_kp, M.COUNTER, offer(2000), log)  # max rounds
    attempt(session, BUYER, buyer_kp, M.SIGNAL, {}, log, session_id="ses_other")  # another session
    attempt(session, BUYER, buyer_kp, M.SIGNAL, {}, log, prev_hash=GENESIS_HASH)  # forked link
    attempt(session, "did:concordia:agent:mallory", mallory_kp, M.SIGNAL, {}, log)  # unknown sender
    attempt(session, BUYER, buyer_kp, M.SIGNAL, {"priority_ranking": ["price"]}, log)
    attempt(session, BUYER, buyer_kp, M.ACCEPT, {"offer_id": "x"}, log)
    attempt(session, SELLER, seller_kp, M.REJECT, {}, log)  # terminal
    verdicts = [v for _, v in log]
    assert [v.get("error") for v in verdicts if not v["ok"]] == [
        "InvalidTransitionError", "InvalidSignatureError", "MaxRoundsExceededError", "SessionBindingError",
        "ChainIntegrityError", "InvalidSignatureError", "InvalidTransitionError",
    ]

    spec = {
        "session_id": session.session_id,
        "created_at": session.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "timing": {"session_ttl": 86400, "offer_ttl": 3600, "max_rounds": 3},
        "parties": [
            {"agent_id": SELLER, "role": "initiator", "public_key_b64url": seller_kp.public_key_b64()},
            {"agent_id": BUYER, "role": "responder", "public_key_b64url": buyer_kp.public_key_b64()},
        ],
    }
    (tmp_path / "s.json").write_text(json.dumps(spec))
    (tmp_path / "m.json").write_text(json.dumps([m for m, _ in log]))
    r = run("session", "replay", "--json", "--session", str(tmp_path / "s.json"), str(tmp_path / "m.json"))
    assert r.returncode == 1  # some messages were refused
    lines = [json.loads(l) for l in r.stdout.decode().splitlines()]
    ours, final = lines[:-1], lines[-1]
    for i, (sdk, core) in enumerate(zip(verdicts, ours)):
        if sdk["ok"]:
            assert core == {"index": i, "ok": True, "state": sdk["state"]}, (i, sdk, core)
        else:
            assert not core["ok"] and core["error"] == sdk["error"], (i, sdk, core)
    assert len(ours) == len(verdicts)
    # Same counters and behaviour summaries as the SDK's BehaviorRecord.to_dict().
    assert final["state"] == session.state.value
    assert final["round_count"] == session.round_count
    assert final["message_count"] == len(session.transcript)
    for p in final["parties"]:
        assert p["behavior"] == session.get_behavior(p["agent_id"]).to_dict(), p["agent_id"]
