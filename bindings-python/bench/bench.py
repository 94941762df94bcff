"""Compare concordia_rs with the reference SDK (concordia-protocol) in one run.

Each workload is timed for both implementations, interleaved (SDK, Rust, SDK, Rust, ...),
for several rounds; the report gives the min and median time per operation and the
SDK/Rust ratio of each, and is written as Markdown (default: BENCHMARKS.md beside this
file's parent folder).

    python bench/bench.py [--rounds N] [--out PATH] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Tuple

import concordia.message as sdk_message
import concordia.signing as sdk_signing
from concordia.types import AgentIdentity, MessageType

import concordia_rs as rs

GOALS = {"canonical_json": 30.0, "sign_message": 8.0, "verify_signature": 7.0, "chain_100": 13.0, "session_100": 13.0}


def sample_message(target: int = 2048) -> Dict[str, Any]:
    """A parsed offer envelope of about `target` bytes of canonical JSON."""
    kp = sdk_signing.KeyPair.generate()
    terms: Dict[str, Any] = {}
    i = 0
    msg: Dict[str, Any] = {}
    while True:
        terms[f"term_{i:02d}"] = {
            "value": 1000 + i * 37.25 if i % 3 else 1200 + i,
            "unit": "USD" if i % 2 else "units",
            "label": f"Term number {i} — négociable",
            "flexible": i % 2 == 0,
            "range": [i, i * 2.5, None],
        }
        i += 1
        msg = sdk_message.build_envelope(
            message_type=MessageType.OFFER,
            session_id="ses_bench01",
            sender=AgentIdentity("agent_seller_01", "principal_acme"),
            body={"offer_id": "off_0001", "offer_type": "basic", "terms": terms, "valid_until": "2030-01-01T00:00:00Z"},
            key_pair=kp,
            recipients=[AgentIdentity("agent_buyer_02")],
            reasoning="Opening offer with volume discount.",
        )
        if len(sdk_signing.canonical_json(msg)) >= target:
            return msg


def time_op(fn: Callable[[], Any], number: int) -> float:
    """Seconds per call, over `number` calls."""
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def run_pair(sdk: Callable[[], Any], fast: Callable[[], Any], rounds: int, n_sdk: int, n_fast: int) -> Tuple[List[float], List[float]]:
    sdk(), fast()  # warm up
    a: List[float] = []
    b: List[float] = []
    for _ in range(rounds):
        a.append(time_op(sdk, n_sdk))
        b.append(time_op(fast, n_fast))
    return a, b


def chain_workloads() -> Tuple[Callable[[], Any], Callable[[], Any]]:
    sdk_kps = [sdk_signing.KeyPair.generate(), sdk_signing.KeyPair.generate()]
    rs_kps = [rs.KeyPair.from_private_bytes(k.private_key_bytes()) for k in sdk_kps]
    ids = [AgentIdentity("agent_a"), AgentIdentity("agent_b")]
    body = {"terms": {"price": {"value": 1000, "unit": "USD"}, "qty": {"value": 3}}, "note": "bench"}

    def sdk_chain() -> bool:
        msgs: List[Dict[str, Any]] = []
        prev = sdk_message.GENESIS_HASH
        for i in range(100):
            m = sdk_message.build_envelope(
                message_type=MessageType.OFFER, session_id="ses_chain", sender=ids[i % 2],
                body=body, key_pair=sdk_kps[i % 2], prev_hash=prev,
            )
            prev = sdk_message.compute_hash(m)
            msgs.append(m)
        ok = sdk_message.validate_chain(msgs)
        for i, m in enumerate(msgs):
            ok = ok and sdk_signing.verify_signature(m, m["signature"], sdk_kps[i % 2].public_key)
        assert ok
        return ok

    keys = {"agent_a": rs_kps[0].public_key, "agent_b": rs_kps[1].public_key}

    def rs_chain() -> bool:
        verifier = rs.TranscriptVerifier(keys)
        prev = rs.GENESIS_HASH
        for i in range(100):
            m = rs.build_envelope(
                message_type="negotiate.offer", session_id="ses_chain", sender=ids[i % 2],
                body=body, key_pair=rs_kps[i % 2], prev_hash=prev,
            )
            prev = verifier.push(m)
        assert verifier.count == 100
        return True

    return sdk_chain, rs_chain


def session_workloads() -> Tuple[Callable[[], Any], Callable[[], Any]]:
    """The SDK application flow: each message built on the session tip, then applied
    (signature, session binding, prev_hash link, transition) to a Session."""
    import concordia.session as sdk_session
    from concordia.types import PartyRole, TimingConfig

    sdk_kps = {"seller": sdk_signing.KeyPair.generate(), "buyer": sdk_signing.KeyPair.generate()}
    rs_kps = {k: rs.KeyPair.from_private_bytes(v.private_key_bytes()) for k, v in sdk_kps.items()}
    pub = {k: v.public_key for k, v in sdk_kps.items()}
    offer = {"offer_id": "off_1", "offer_type": "basic", "terms": {"price": {"value": 1000, "unit": "USD"}, "qty": {"value": 3}}}
    steps = [("seller", MessageType.OPEN, {"terms": {"price": {"value": 1200}}}), ("buyer", MessageType.ACCEPT_SESSION, {})]
    steps += [("seller" if i % 2 == 0 else "buyer", MessageType.OFFER if i % 2 == 0 else MessageType.COUNTER, offer) for i in range(98)]

    def sdk_flow() -> None:
        s = sdk_session.Session(session_id="ses_flow", timing=TimingConfig(max_rounds=1000))
        s.add_party("seller", PartyRole.INITIATOR, pub["seller"])
        s.add_party("buyer", PartyRole.RESPONDER, pub["buyer"])
        for who, ty, body in steps:
            m = sdk_message.build_envelope(message_type=ty, session_id="ses_flow", sender=AgentIdentity(who),
                                           body=body, key_pair=sdk_kps[who], prev_hash=s.prev_hash)
            s.apply_message(m, pub.get)
        assert len(s.transcript) == 100

    def rs_flow() -> None:
        s = rs.Session(session_id="ses_flow", timing={"max_rounds": 1000})
        s.add_party("seller", "initiator", pub["seller"])
        s.add_party("buyer", "responder", pub["buyer"])
        for who, ty, body in steps:
            m = rs.build_envelope(message_type=ty, session_id="ses_flow", sender=AgentIdentity(who),
                                  body=body, key_pair=rs_kps[who], prev_hash=s.prev_hash)
            s.apply_message(m, pub.get)
        assert s.message_count == 100

    return sdk_flow, rs_flow


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="fewer rounds and calls (smoke run)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "BENCHMARKS.md"))
    args = ap.parse_args()
    rounds = 2 if args.quick else args.rounds
    scale = 0.1 if args.quick else 1.0

    msg = sample_message()
    size = len(sdk_signing.canonical_json(msg))
    assert rs.canonical_json(msg) == sdk_signing.canonical_json(msg)
    kp = sdk_signing.KeyPair.generate()
    rkp = rs.KeyPair.from_private_bytes(kp.private_key_bytes())
    sig = sdk_signing.sign_message(msg, kp)
    assert rs.sign_message(msg, rkp) == sig
    pk = kp.public_key
    rpk = rkp.public_key

    def n(x: float) -> int:
        return max(1, int(x * scale))

    work: List[Tuple[str, str, Callable[[], Any], Callable[[], Any], int, int]] = [
        ("canonical_json", f"~{size} B message", lambda: sdk_signing.canonical_json(msg), lambda: rs.canonical_json(msg), n(300), n(6000)),
        ("sign_message", f"~{size} B message", lambda: sdk_signing.sign_message(msg, kp), lambda: rs.sign_message(msg, rkp), n(200), n(2000)),
        ("verify_signature", f"~{size} B message", lambda: sdk_signing.verify_signature(msg, sig, pk), lambda: rs.verify_signature(msg, sig, rpk), n(200), n(2000)),
    ]
    sdk_chain, rs_chain = chain_workloads()
    work.append(("chain_100", "100 envelopes built, then links (`validate_chain`) and every signature verified", sdk_chain, rs_chain, n(3) or 1, n(20)))
    sdk_flow, rs_flow = session_workloads()
    work.append(("session_100", "100 envelopes built on the session tip and applied to a `Session`", sdk_flow, rs_flow, n(3) or 1, n(20)))

    rows = []
    for name, what, sdk, fast, n_sdk, n_fast in work:
        a, b = run_pair(sdk, fast, rounds, n_sdk, n_fast)
        row = {
            "name": name, "what": what,
            "sdk_min": min(a), "sdk_med": statistics.median(a),
            "rs_min": min(b), "rs_med": statistics.median(b),
        }
        row["ratio_min"] = row["sdk_min"] / row["rs_min"]
        row["ratio_med"] = row["sdk_med"] / row["rs_med"]
        rows.append(row)
        print(f"{name:17s} sdk min {row['sdk_min']*1e6:10.1f} us  med {row['sdk_med']*1e6:10.1f} us | "
              f"rs min {row['rs_min']*1e6:9.2f} us  med {row['rs_med']*1e6:9.2f} us | "
              f"x{row['ratio_min']:.1f} (min) x{row['ratio_med']:.1f} (median), goal x{GOALS[name]:.0f}")

    def us(x: float) -> str:
        return f"{x * 1e3:.2f} ms" if x >= 1e-3 else f"{x * 1e6:.1f} µs"

    lines = [
        "# concordia-rs (Python) vs the reference SDK",
        "",
        f"`bindings-python/bench/bench.py`, {rounds} interleaved rounds per workload, time per operation.",
        f"Python {platform.python_version()}, concordia-protocol 0.10.0, {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start (a shared machine: absolute times vary, the ratios are measured interleaved).",
        "",
        "| workload | what | SDK min | SDK median | concordia_rs min | concordia_rs median | speed-up (min) | speed-up (median) | goal |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| `{r['name']}` | {r['what']} | {us(r['sdk_min'])} | {us(r['sdk_med'])} | {us(r['rs_min'])} | "
            f"{us(r['rs_med'])} | {r['ratio_min']:.1f}x | {r['ratio_med']:.1f}x | {GOALS[r['name']]:.0f}x |"
        )
    lines.append("")
    if not args.quick:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        print(f"wrote {args.out}")
    with open(os.devnull, "w") as _:
        json.dumps(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
