"""Compare concordia_rs with the reference SDK (concordia-protocol), orjson and the Rust core
alone in one run.

Each workload times its contenders in turn (SDK, orjson, concordia_rs, the core from
bytes, SDK, ...) for several rounds; the report gives the min and median time per
operation, the speed-up over the first contender and each goal's ratio, and is written as
Markdown (default: BENCHMARKS.md beside this file's parent folder).

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
import orjson
from concordia.types import AgentIdentity, MessageType

import concordia_rs as rs


def orjson_canonical(obj: Any) -> bytes:
    """orjson with sorted keys: the fastest Python-object-to-JSON writer, as the yardstick."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


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


# (name, function, calls per round); a function with calls 0 times itself and returns
# seconds per operation (the Rust core's own loop, `_native._core_time`).
Contender = Tuple[str, Callable[[], Any], int]


def run_interleaved(contenders: List[Contender], rounds: int) -> Dict[str, List[float]]:
    """Each round times every contender once, one after another (A, B, C, A, B, C, ...)."""
    for _, fn, _ in contenders:
        fn()  # warm up
    times: Dict[str, List[float]] = {name: [] for name, _, _ in contenders}
    for _ in range(rounds):
        for name, fn, n in contenders:
            times[name].append(float(fn()) if n == 0 else time_op(fn, n))
    return times


def chain_messages(n: int = 100) -> Tuple[List[Dict[str, Any]], List[Any], Dict[str, Any], Dict[str, Any]]:
    """An SDK-built chain of `n` offers between two agents: the messages, the SDK key
    pairs, the SDK public keys and the concordia_rs key pairs, by agent id."""
    sdk_kps = [sdk_signing.KeyPair.generate(), sdk_signing.KeyPair.generate()]
    ids = ["agent_a", "agent_b"]
    body = {"terms": {"price": {"value": 1000, "unit": "USD"}, "qty": {"value": 3}}, "note": "bench"}
    msgs: List[Dict[str, Any]] = []
    prev = sdk_message.GENESIS_HASH
    for i in range(n):
        m = sdk_message.build_envelope(
            message_type=MessageType.OFFER, session_id="ses_chain", sender=AgentIdentity(ids[i % 2]),
            body=body, key_pair=sdk_kps[i % 2], prev_hash=prev,
        )
        prev = sdk_message.compute_hash(m)
        msgs.append(m)
    pub = {ids[0]: sdk_kps[0].public_key, ids[1]: sdk_kps[1].public_key}
    rs_kps = {ids[k]: rs.KeyPair.from_private_bytes(sdk_kps[k].private_key_bytes()) for k in range(2)}
    return msgs, sdk_kps, pub, rs_kps


def chain_build(sdk_kps: List[Any], rs_kps: Dict[str, Any]) -> Tuple[Callable[[], Any], Callable[[], Any]]:
    """Building 100 envelopes, each linked to the one before (bound by signing)."""
    ids = [AgentIdentity("agent_a"), AgentIdentity("agent_b")]
    body = {"terms": {"price": {"value": 1000, "unit": "USD"}, "qty": {"value": 3}}, "note": "bench"}

    def sdk_build() -> None:
        prev = sdk_message.GENESIS_HASH
        for i in range(100):
            m = sdk_message.build_envelope(message_type=MessageType.OFFER, session_id="ses_chain", sender=ids[i % 2],
                                           body=body, key_pair=sdk_kps[i % 2], prev_hash=prev)
            prev = sdk_message.compute_hash(m)

    def rs_build() -> None:
        prev = rs.GENESIS_HASH
        for i in range(100):
            m = rs.build_envelope(message_type="negotiate.offer", session_id="ses_chain", sender=ids[i % 2],
                                  body=body, key_pair=rs_kps[ids[i % 2].agent_id], prev_hash=prev)
            prev = rs.compute_hash(m)

    return sdk_build, rs_build


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


def fmt_time(x: float) -> str:
    return f"{x * 1e3:.2f} ms" if x >= 1e-3 else f"{x * 1e6:.2f} µs"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="fewer rounds and calls (smoke run)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "BENCHMARKS.md"))
    args = ap.parse_args()
    rounds = 2 if args.quick else args.rounds
    scale = 0.02 if args.quick else 1.0
    load = os.getloadavg()[0]

    def n(x: float) -> int:
        return max(1, int(x * scale))

    msg = sample_message(2400)
    text = sdk_signing.canonical_json(msg)
    size = len(text)
    # orjson is the yardstick for speed only: its number text is not RFC 8785's (1200.0).
    assert rs.canonical_json(msg) == text
    kp = sdk_signing.KeyPair.generate()
    rkp = rs.KeyPair.from_private_bytes(kp.private_key_bytes())
    sig = sdk_signing.sign_message(msg, kp)
    assert rs.sign_message(msg, rkp) == sig
    pk, rpk = kp.public_key, rkp.public_key
    signed = dict(msg, signature=sig)
    signed_text = sdk_signing.canonical_json(signed)
    sender = signed["from"]["agent_id"]
    assert rs.verify_signature(signed, sig, rpk)

    msgs, sdk_kps, pub, rs_kps = chain_messages(100)
    chain_text = json.dumps(msgs).encode()
    sdk_chain_ok = sdk_message.validate_chain(msgs) and all(
        sdk_signing.verify_signature(m, m["signature"], pub[m["from"]["agent_id"]]) for m in msgs)
    assert sdk_chain_ok and rs.TranscriptVerifier(pub).push_many(msgs) == 100
    assert rs.verify_many(msgs, pub) == [True] * 100

    def sdk_chain_verify() -> bool:
        ok = sdk_message.validate_chain(msgs)
        for m in msgs:
            ok = sdk_signing.verify_signature(m, m["signature"], pub[m["from"]["agent_id"]]) and ok
        return ok

    def sdk_verify_loop() -> List[bool]:
        return [sdk_signing.verify_signature(m, m["signature"], pub[m["from"]["agent_id"]]) for m in msgs]

    def rs_verify_loop() -> List[bool]:
        return [rs.verify_signature(m, m["signature"], pub[m["from"]["agent_id"]]) for m in msgs]

    def rs_push_loop() -> str:
        v = rs.TranscriptVerifier(pub)
        for m in msgs:
            head = v.push(m)
        return head

    sdk_build, rs_build = chain_build(sdk_kps, rs_kps)
    sdk_flow, rs_flow = session_workloads()
    core = rs._native._core_time

    # ES256 (issue 24): the SDK's ES256KeyPair on both sides; both verify the SDK's signature
    # (random nonce), and each verifies the other's.
    es_kp = sdk_signing.ES256KeyPair.generate()
    es_sig = sdk_signing.sign_message(msg, es_kp, alg="ES256")
    assert rs.verify_signature(msg, es_sig, es_kp.public_key, alg="ES256")
    assert sdk_signing.verify_signature(msg, rs.sign_message(msg, es_kp, alg="ES256"), es_kp.public_key, alg="ES256")
    es_rkp = rs.ES256KeyPair.from_sdk(es_kp)
    es_rpk = es_rkp.public_key

    # (workload, what, baseline, [(contender, fn, calls per round)], goals {contender: (against, ratio)})
    work: List[Tuple[str, str, List[Contender], Dict[str, Tuple[str, float]]]] = [
        ("canonical_json", f"{size} B negotiation message (a parsed dict)", [
            ("SDK", lambda: sdk_signing.canonical_json(msg), n(200)),
            ("orjson OPT_SORT_KEYS", lambda: orjson_canonical(msg), n(20000)),
            ("concordia_rs", lambda: rs.canonical_json(msg), n(20000)),
            ("Rust core from bytes", lambda: core("canonical", text, n(20000)), 0),
        ], {"concordia_rs": ("orjson OPT_SORT_KEYS", 0.6)}),
        ("compute_hash", f"{size} B message", [
            ("SDK", lambda: sdk_message.compute_hash(msg), n(200)),
            ("concordia_rs", lambda: rs.compute_hash(msg), n(10000)),
        ], {}),
        ("sign_message", f"{size} B message (Ed25519)", [
            ("SDK", lambda: sdk_signing.sign_message(msg, kp), n(200)),
            ("concordia_rs", lambda: rs.sign_message(msg, rkp), n(2000)),
            ("Rust core from bytes", lambda: core("sign", text, n(2000), key_pair=rkp), 0),
        ], {"concordia_rs": ("Rust core from bytes", 1 / 1.1)}),
        ("verify_signature", f"{size} B message (Ed25519)", [
            ("SDK", lambda: sdk_signing.verify_signature(signed, sig, pk), n(200)),
            ("concordia_rs", lambda: rs.verify_signature(signed, sig, rpk), n(2000)),
            ("Rust core from bytes", lambda: core("verify", signed_text, n(2000), public_keys={sender: rpk}), 0),
        ], {"concordia_rs": ("Rust core from bytes", 1 / 1.1)}),
        ("sign_message_es256", f"{size} B message (ES256)", [
            ("SDK", lambda: sdk_signing.sign_message(msg, es_kp, alg="ES256"), n(200)),
            ("concordia_rs", lambda: rs.sign_message(msg, es_rkp, alg="ES256"), n(1000)),
        ], {}),
        ("verify_signature_es256", f"{size} B message (ES256)", [
            ("SDK", lambda: sdk_signing.verify_signature(msg, es_sig, es_kp.public_key, alg="ES256"), n(200)),
            ("concordia_rs", lambda: rs.verify_signature(msg, es_sig, es_rpk, alg="ES256"), n(1000)),
        ], {}),
        ("chain_100_verify", "100 SDK-built envelopes: every link and every signature", [
            ("SDK", sdk_chain_verify, n(5)),
            ("concordia_rs push_many", lambda: rs.TranscriptVerifier(pub).push_many(msgs), n(50)),
            ("concordia_rs push", rs_push_loop, n(50)),
            ("Rust core from bytes, one thread", lambda: core("chain", chain_text, n(50), public_keys=pub), 0),
        ], {"concordia_rs push_many": ("SDK", 13.0), "concordia_rs push": ("Rust core from bytes, one thread", 1 / 1.1)}),
        ("verify_many_100", "100 signatures under their senders' keys", [
            ("SDK loop", sdk_verify_loop, n(5)),
            ("concordia_rs loop", rs_verify_loop, n(50)),
            ("concordia_rs verify_many", lambda: rs.verify_many(msgs, pub), n(50)),
        ], {}),
        ("chain_100_build", "100 envelopes built and hashed, each on the one before (bound by signing)", [
            ("SDK", sdk_build, n(5)),
            ("concordia_rs", rs_build, n(50)),
        ], {}),
        ("session_100", "100 envelopes built on the session tip and applied to a `Session`", [
            ("SDK", sdk_flow, n(5)),
            ("concordia_rs", rs_flow, n(50)),
        ], {}),
    ]

    rows = []
    for name, what, contenders, goals in work:
        t = run_interleaved(contenders, rounds)
        stats = {c: (min(v), statistics.median(v)) for c, v in t.items()}
        base = contenders[0][0]
        for c, _, _ in contenders:
            mn, med = stats[c]
            row = {"workload": name, "what": what, "contender": c, "min": mn, "median": med,
                   "x_base_min": stats[base][0] / mn, "x_base_med": stats[base][1] / med, "goal": ""}
            if c in goals:
                against, ratio = goals[c]
                got_min, got_med = stats[against][0] / mn, stats[against][1] / med
                met = "met" if got_min >= ratio and got_med >= ratio else "**not met**"
                row["goal"] = f"vs {against}: {got_min:.2f}x (min) {got_med:.2f}x (median), goal >= {ratio:.2f}x: {met}"
            rows.append(row)
            print(f"{name:17s} {c:34s} min {fmt_time(mn):>10s}  med {fmt_time(med):>10s}  "
                  f"x{row['x_base_min']:.2f}/x{row['x_base_med']:.2f} vs {base} {row['goal']}")

    lines = [
        "# concordia-rs (Python) vs the reference SDK, orjson and the Rust core",
        "",
        f"`python bindings-python/bench/bench.py --rounds {rounds}`: every contender of a workload timed in turn, "
        f"{rounds} interleaved rounds; time per operation, min and median over the rounds. "
        f"Python {platform.python_version()}, concordia-protocol 0.10.0, orjson {orjson.__version__}, "
        f"{platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f} at the start (a shared machine: "
        "absolute times vary; the ratios are measured side by side). \"Rust core from bytes\" is the core alone doing "
        "the same work from JSON text, timed in the same process (`_native._core_time`, GIL released).",
        "",
        "| workload | what | contender | min | median | speed-up vs first (min) | vs first (median) | goal |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(f"| `{r['workload']}` | {r['what']} | {r['contender']} | {fmt_time(r['min'])} | {fmt_time(r['median'])} | "
                     f"{r['x_base_min']:.2f}x | {r['x_base_med']:.2f}x | {r['goal']} |")
    lines.append("")
    if not args.quick:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
