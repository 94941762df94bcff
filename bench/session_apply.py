"""Apply + verify a 1,000-message session: the reference SDK's Session.apply_message
against the core's Session::apply (through `concordia session replay`), same transcript,
interleaved and repeated.

    .venv/bin/python bench/session_apply.py [--messages 1000] [--repeat 7]

The SDK builds and signs the transcript once (open, accept_session, then offers and
counters with numeric terms, so concession tracking runs on every round). Each repetition
then times, in turn: a fresh SDK Session applying every message (signature, binding, chain
link, transition, behaviour), and one `concordia session replay` process doing the same
(the process time includes reading and parsing the 1,000 messages). Reported: min and
median seconds and messages per second, and the ratio of medians.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from concordia.message import build_envelope
from concordia.offer import BasicOffer
from concordia.session import Session
from concordia.signing import KeyPair
from concordia.types import AgentIdentity, MessageType, PartyRole, TimingConfig
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ROOT = Path(__file__).resolve().parent.parent
A, B = "did:concordia:agent:bench-a", "did:concordia:agent:bench-b"


def kp(byte: int) -> KeyPair:
    p = Ed25519PrivateKey.from_private_bytes(bytes([byte]) * 32)
    return KeyPair(private_key=p, public_key=p.public_key())


def build(n: int) -> tuple[list[dict], str, dict]:
    keys = {A: kp(1), B: kp(2)}
    timing = TimingConfig(max_rounds=n)
    s = Session(timing=timing)
    s.add_party(A, PartyRole.INITIATOR, keys[A].public_key)
    s.add_party(B, PartyRole.RESPONDER, keys[B].public_key)
    resolve = lambda a: keys[a].public_key
    def send(who: str, t: MessageType, body: dict) -> None:
        m = build_envelope(message_type=t, session_id=s.session_id, sender=AgentIdentity(who), body=body,
                           key_pair=keys[who], prev_hash=s.prev_hash, reasoning="step")
        s.apply_message(m, resolve)
    send(A, MessageType.OPEN, {"terms": {"price": {"type": "numeric"}, "qty_units": {"type": "numeric"}}})
    send(B, MessageType.ACCEPT_SESSION, {})
    for i in range(n - 2):
        who = A if i % 2 == 0 else B
        price = 2200 - i if who == A else 1500 + i
        offer = BasicOffer(terms={"price": {"value": price, "currency": "USD"}, "units": {"value": 10 + i % 3}},
                           offer_id=f"off_{i}").to_body()
        send(who, MessageType.OFFER if i == 0 else MessageType.COUNTER, offer)
    spec = {
        "session_id": s.session_id,
        "created_at": s.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "timing": {"session_ttl": 86400, "offer_ttl": 3600, "max_rounds": n},
        "parties": [
            {"agent_id": A, "role": "initiator", "public_key_b64url": keys[A].public_key_b64()},
            {"agent_id": B, "role": "responder", "public_key_b64url": keys[B].public_key_b64()},
        ],
    }
    return s.transcript, s.session_id, {"spec": spec, "keys": keys, "timing": timing}


def sdk_apply(transcript: list[dict], session_id: str, ctx: dict) -> None:
    keys = ctx["keys"]
    s = Session(session_id=session_id, timing=ctx["timing"])
    s.add_party(A, PartyRole.INITIATOR, keys[A].public_key)
    s.add_party(B, PartyRole.RESPONDER, keys[B].public_key)
    resolve = lambda a: keys[a].public_key
    for m in transcript:
        s.apply_message(m, resolve)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--bin", default=str(ROOT / "target/release/concordia"))
    args = ap.parse_args()
    transcript, session_id, ctx = build(args.messages)
    with tempfile.TemporaryDirectory() as d:
        sp, tp = Path(d, "s.json"), Path(d, "t.json")
        sp.write_text(json.dumps(ctx["spec"]))
        tp.write_text(json.dumps(transcript))
        cmd = [args.bin, "session", "replay", "--session", str(sp), str(tp)]
        out = subprocess.run(cmd, capture_output=True, check=True).stdout.decode().splitlines()
        assert len(out) == args.messages and out[-1].endswith("active"), out[-3:]
        sdk_t, core_t = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter(); sdk_apply(transcript, session_id, ctx); sdk_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter(); subprocess.run(cmd, capture_output=True, check=True); core_t.append(time.perf_counter() - t0)
    n = args.messages
    for name, ts in (("reference SDK Session.apply_message", sdk_t), ("concordia session replay (process)", core_t)):
        print(f"{name:40s} min {min(ts)*1e3:8.1f} ms  median {statistics.median(ts)*1e3:8.1f} ms  "
              f"{n / statistics.median(ts):10.0f} msg/s (median)")
    print(f"ratio of medians (SDK / core): {statistics.median(sdk_t) / statistics.median(core_t):.1f}x")


if __name__ == "__main__":
    main()
