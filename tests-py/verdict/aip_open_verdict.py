"""One verdict for opening an AIP envelope (issues 32 and 33) on every surface that opens one.

Every surface's open is one call of ``concordia_host::aip::open_envelope``: the signature
under the sender's DID Document, the addressee, the body, then freshness (at the clock by
default) or the replay window. This file sends one corpus of envelopes through

* the CLI (``concordia aip open``, a replay store for the second delivery),
* the C ABI (``concordia_aip_open`` through ctypes, a ``concordia_aip_replay_window``),
* the Python wheel (``concordia_rs.aip.open``, a ``ReplayWindow``),
* UniFFI's Python backend (``aip_open``, an ``AipReplayWindow``; its API takes ``str``, so
  invalid UTF-8 cannot reach it: ``n/a``),

and asserts for each input the same accept/reject and the same reason class everywhere,
and the class the input stands for; in particular that the defaults (no time given)
refuse an envelope created in 2019 on every surface, that a recipient without a DID is
refused unless the addressee check is skipped by name, and that a stale envelope with a
tampered body is a signature failure everywhere (the C ABI once said ``temporal``).

Run by tools/ci/verdict.sh with the surfaces of cross_surface_verdict.py (environment
variables ``CONCORDIA_CLI``, ``CONCORDIA_FFI_LIB``, ``CONCORDIA_UNIFFI_PY``).
"""

from __future__ import annotations

import ctypes
import datetime as dt
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from cross_surface_verdict import ACCEPT, NA, Surfaces, SurfaceMissing, c_verdict  # noqa: E402

ALICE = "did:aip:aigentix.org:alice"
BOB = "did:aip:etagi.ru:bob"
CAROL = "did:aip:etagi.ru:carol"
ETAGI = "did:aip:etagi.ru:etagi"
CREATED = "2026-05-10T14:25:00Z"
NOW = "2026-05-10T14:26:00Z"
NOW_UNIX = 1778423160
UTC = dt.timezone.utc

# C result classes through concordia_result_class; Python reason_class; UniFFI variant;
# the CLI by exit status and the core's Display (one table, below).
CLASSES = ("input", "limit", "schema", "signature", "binding", "temporal", "replay")


class Str(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_char_p), ("len", ctypes.c_size_t)]


class OpenChecks(ctypes.Structure):
    _fields_ = [
        ("recipient_did", Str),
        ("addressee", ctypes.c_uint32),
        ("freshness", ctypes.c_uint32),
        ("now", ctypes.c_int64),
        ("window", ctypes.c_void_p),
    ]


ADDRESSEE_UNCHECKED = 1
FRESHNESS_CLOCK, FRESHNESS_AT = 0, 1


@dataclass
class Agent:
    name: str
    ed: bytes
    x: bytes
    did: Optional[str]  # what the recipient's key file / key pair names (None: no did)


@dataclass
class Case:
    name: str
    envelope: bytes
    sender_doc: bytes
    recipient: Agent
    expect: str  # "accept" or a class
    at_now: bool = True  # False: the surface's defaults (the clock)
    any_recipient: bool = False
    second_delivery: bool = False  # open twice through one replay window; judge the second
    text_only: bool = False  # not a str (UniFFI cannot be given it)
    note: str = ""
    verdicts: dict = field(default_factory=dict)


def _cli_class(proc: subprocess.CompletedProcess) -> str:
    if proc.returncode == 0:
        return ACCEPT
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode == 2:
        return "input"  # usage or malformed input (no limit is reached by this corpus)
    if proc.returncode != 1:
        return f"crash: exit {proc.returncode}: {err[:200]}"
    for needle, cls in (
        ("a replay", "replay"),
        ("signature verification failed", "signature"),
        ("binding check failed", "binding"),
        ("temporal check failed", "temporal"),
        ("schema check failed", "schema"),
    ):
        if needle in err:
            return cls
    return f"unclassified exit 1: {err[:200]}"


class Openers:
    """The four surfaces' open, each returning ACCEPT, a class, or NA."""

    def __init__(self, s: Surfaces, workdir: Path) -> None:
        self.s, self.workdir, self.n = s, workdir, 0
        c = s.c
        vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
        c.concordia_aip_keypair_from_seeds.argtypes = [cp, sz, cp, sz, ctypes.POINTER(vp)]
        c.concordia_aip_keypair_from_seeds.restype = ctypes.c_uint32
        c.concordia_aip_keypair_free.argtypes = [vp]
        c.concordia_aip_keypair_free.restype = None
        c.concordia_aip_open.argtypes = [vp, ctypes.POINTER(OpenChecks), cp, sz, cp, sz, vp, ctypes.c_char_p, sz, ctypes.POINTER(sz)]
        c.concordia_aip_open.restype = ctypes.c_uint32
        c.concordia_result_class.argtypes = [ctypes.c_uint32, ctypes.c_char_p, sz, ctypes.POINTER(sz)]
        c.concordia_result_class.restype = ctypes.c_uint32
        c.concordia_aip_replay_window_new.argtypes = [sz, ctypes.POINTER(vp)]
        c.concordia_aip_replay_window_new.restype = ctypes.c_uint32
        c.concordia_aip_replay_window_free.argtypes = [vp]
        c.concordia_aip_replay_window_free.restype = None
        self.aip = s.rs.aip
        self.uniffi = s.uniffi

    def _file(self, data: bytes) -> Path:
        self.n += 1
        p = self.workdir / f"f{self.n}.json"
        p.write_bytes(data)
        return p

    def key_file(self, a: Agent) -> bytes:
        return self.aip.AipKeyPair.from_seeds(a.ed, a.x, did=a.did).key_file_json().encode()

    # -- the surfaces

    def cli(self, k: Case) -> str:
        key, doc, env = self._file(self.key_file(k.recipient)), self._file(k.sender_doc), self._file(k.envelope)
        args = [self.s.cli, "aip", "open", "--key", str(key), "--from", str(doc)]
        if k.at_now:
            args += ["--now", NOW]
        if k.any_recipient:
            args.append("--any-recipient")
        if k.second_delivery:
            store = self.workdir / f"store{self.n}"
            first = subprocess.run([*args, "--replay-store", str(store), "--new-replay-store", str(env)], capture_output=True)
            assert first.returncode == 0, first.stderr
            args += ["--replay-store", str(store)]
        return _cli_class(subprocess.run([*args, str(env)], capture_output=True))

    def c_abi(self, k: Case) -> str:
        c, a = self.s.c, k.recipient
        kp = ctypes.c_void_p()
        assert c.concordia_aip_keypair_from_seeds(a.ed, 32, a.x, 32, ctypes.byref(kp)) == 0
        w = ctypes.c_void_p()
        try:
            checks = OpenChecks()
            if a.did is not None:
                checks.recipient_did = Str(a.did.encode(), len(a.did))
            if k.any_recipient:
                checks.addressee = ADDRESSEE_UNCHECKED
            if k.at_now:
                checks.freshness, checks.now = FRESHNESS_AT, NOW_UNIX
            out = ctypes.create_string_buffer(1 << 16)
            n = ctypes.c_size_t()

            def open_() -> int:
                return c.concordia_aip_open(kp, ctypes.byref(checks), k.sender_doc, len(k.sender_doc), k.envelope, len(k.envelope), None, out, len(out), ctypes.byref(n))

            if k.second_delivery:
                assert c.concordia_aip_replay_window_new(16, ctypes.byref(w)) == 0
                checks.window = w
                assert open_() == 0
            rc = open_()
        finally:
            c.concordia_aip_keypair_free(kp)
            if w:
                c.concordia_aip_replay_window_free(w)
        return c_verdict(c, rc)

    def _judge(self, fn: Callable[[], object], class_of: Callable[[Exception], str]) -> str:
        try:
            fn()
            return ACCEPT
        except Exception as e:  # noqa: BLE001 - every refusal is judged by its class
            return class_of(e)
        except BaseException as e:  # noqa: BLE001 - a Rust panic
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            return f"crash: {type(e).__name__}: {e}"

    def python(self, k: Case) -> str:
        a = k.recipient
        kp = self.aip.AipKeyPair.from_seeds(a.ed, a.x, did=a.did)
        kw: dict = {"recipient_key": kp, "sender_doc": k.sender_doc, "any_recipient": k.any_recipient}
        if k.at_now:
            kw["now"] = NOW
        if k.second_delivery:
            kw["window"] = self.aip.ReplayWindow(16)
            self.aip.open(k.envelope, **kw)
        return self._judge(lambda: self.aip.open(k.envelope, **kw), lambda e: getattr(e, "reason_class", None) or f"no class: {e!r}")

    def uniffi_open(self, k: Case) -> str:
        if k.text_only:
            return NA
        u, a = self.uniffi, k.recipient
        kp = u.AipKeyPair.from_seeds(a.ed, a.x)
        if a.did is not None:
            kp = kp.with_did(a.did)
        kw: dict = {"any_recipient": k.any_recipient}
        if k.at_now:
            kw["now"] = dt.datetime(2026, 5, 10, 14, 26, tzinfo=UTC)
        if k.second_delivery:
            kw["window"] = u.AipReplayWindow(u.AipReplayCapacity.SMALL)
            u.aip_open(kp, k.sender_doc.decode(), k.envelope.decode(), **kw)
        return self._judge(
            lambda: u.aip_open(kp, k.sender_doc.decode(), k.envelope.decode(), **kw),
            lambda e: type(e).__name__.lower() if isinstance(e, u.AipError) else f"not an AipError: {e!r}",
        )

    def all(self, k: Case) -> dict[str, str]:
        return {"cli": self.cli(k), "c": self.c_abi(k), "python": self.python(k), "uniffi": self.uniffi_open(k)}


def seed(label: str) -> bytes:
    import hashlib

    return hashlib.sha256(b"concordia-rs aip open verdict: " + label.encode()).digest()


def build_corpus(aip) -> list[Case]:
    alice = Agent("alice", seed("alice-ed"), seed("alice-x"), ALICE)
    bob = Agent("bob", seed("bob-ed"), seed("bob-x"), BOB)
    etagi = Agent("etagi", seed("etagi-ed"), seed("etagi-x"), ETAGI)
    eve = Agent("eve", seed("eve-ed"), seed("eve-x"), ALICE)

    def kp(a: Agent, did: Optional[str] = None):
        return aip.AipKeyPair.from_seeds(a.ed, a.x, did=did or a.did)

    def js(d: dict) -> bytes:
        return json.dumps(d).encode()

    alice_doc = js(kp(alice).did_document(ALICE))
    bob_doc = kp(bob).did_document(BOB)
    eve_as_alice_doc = js(kp(eve).did_document(ALICE))
    # Bob's DID Document listing a key Etagi holds (a directory that lies, a reused key).
    bob_doc_etagi_key = kp(etagi).did_document(BOB)
    carol_doc_bob_key = kp(bob).did_document(CAROL)

    def seal(to_doc: dict, created: str = CREATED, msg: Optional[dict] = None) -> dict:
        return aip.seal(msg or {"type": "aip.commerce.offer.request", "item_id": "doc_123"}, recipient_doc=to_doc, sender_key=kp(alice), created_at=created)

    def text(env: dict) -> bytes:
        return json.dumps(env, separators=(",", ":")).encode()

    def flip(s: str, i: int = 10) -> str:
        return s[:i] + ("A" if s[i] != "A" else "B") + s[i + 1 :]

    env = seal(bob_doc)
    old = seal(bob_doc, created="2019-06-01T12:00:00Z")
    future = seal(bob_doc, created="2026-05-10T14:31:01Z")  # 301 s ahead of NOW
    no_did_bob = Agent("bob without did", bob.ed, bob.x, None)
    no_did_etagi = Agent("etagi without did", etagi.ed, etagi.x, None)
    to_etagi_key = seal(bob_doc_etagi_key)
    dup = text(env)
    dup = dup[:-1] + b',"type":' + json.dumps(env["type"]).encode() + b"}"
    bad_utf8 = text(env).replace(b'"aip.commerce', b'"aip.\xffcommerce', 1)
    return [
        Case("valid", text(env), alice_doc, bob, ACCEPT),
        Case("created in 2019, the defaults (the clock)", text(old), alice_doc, bob, "temporal", at_now=False),
        Case("created in 2019, at NOW", text(old), alice_doc, bob, "temporal"),
        Case("301 s in the future", text(future), alice_doc, bob, "temporal"),
        Case("tampered body", text(dict(env, encrypted_body=flip(env["encrypted_body"]))), alice_doc, bob, "signature"),
        Case("tampered signature", text(dict(env, sig=flip(env["sig"]))), alice_doc, bob, "signature"),
        Case("tampered header member", text(dict(env, type="aip.commerce.offer.accept")), alice_doc, bob, "signature"),
        Case("wrong sender document (another DID)", text(env), js(bob_doc), bob, "binding"),
        Case("wrong sender document (the DID, other keys)", text(env), eve_as_alice_doc, bob, "signature"),
        Case("addressed to another agent", text(seal(carol_doc_bob_key)), alice_doc, bob, "binding"),
        Case("addressed to Bob, sealed to Etagi's key, at Etagi", text(to_etagi_key), alice_doc, etagi, "binding"),
        Case("recipient without a DID", text(to_etagi_key), alice_doc, no_did_etagi, "input"),
        Case("recipient without a DID, named opt-out", text(to_etagi_key), alice_doc, no_did_etagi, ACCEPT, any_recipient=True),
        Case("Bob without a DID", text(env), alice_doc, no_did_bob, "input"),
        Case("Bob without a DID, named opt-out", text(env), alice_doc, no_did_bob, ACCEPT, any_recipient=True),
        Case("stale and tampered (the clock)", text(dict(old, encrypted_body=flip(old["encrypted_body"]))), alice_doc, bob, "signature", at_now=False),
        Case("duplicate member names", dup, alice_doc, bob, "input"),
        Case("invalid UTF-8", bad_utf8, alice_doc, bob, "input", text_only=True),
        Case("second delivery through a replay window", text(env), alice_doc, bob, "replay", second_delivery=True),
    ]


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> list[Case]:
    try:
        s = Surfaces(tmp_path_factory.mktemp("aip-open"))
    except SurfaceMissing as e:
        pytest.fail(f"a surface is missing: {e}")
    o = Openers(s, tmp_path_factory.mktemp("aip-open-files"))
    corpus = build_corpus(s.rs.aip)
    for k in corpus:
        k.verdicts = o.all(k)
    return corpus


def _fmt(k: Case) -> str:
    return f"{k.name}: expected {k.expect}, got " + ", ".join(f"{s}={v}" for s, v in k.verdicts.items())


def test_every_surface_gives_the_expected_verdict_and_class(judged: list[Case]) -> None:
    wrong = [_fmt(k) for k in judged if any(v not in (k.expect, NA) for v in k.verdicts.values())]
    assert not wrong, "\n".join(wrong)


def test_every_surface_agrees(judged: list[Case]) -> None:
    split = [_fmt(k) for k in judged if len({v for v in k.verdicts.values() if v != NA}) != 1]
    assert not split, "\n".join(split)


def test_the_defaults_refuse_a_2019_envelope_everywhere(judged: list[Case]) -> None:
    k = next(k for k in judged if k.name.startswith("created in 2019, the defaults"))
    assert set(k.verdicts.values()) == {"temporal"}, _fmt(k)


def test_each_surface_is_judged_on_most_of_the_corpus(judged: list[Case]) -> None:
    for surface in ("cli", "c", "python", "uniffi"):
        judged_here = sum(1 for k in judged if k.verdicts[surface] != NA)
        assert judged_here >= len(judged) - 1, surface
    assert {k.expect for k in judged} >= {ACCEPT, "input", "signature", "binding", "temporal", "replay"}


def test_zz_table(judged: list[Case], capsys: pytest.CaptureFixture) -> None:
    with capsys.disabled():
        print("\nAIP open verdicts (cli, c, python, uniffi):")
        for k in judged:
            print(f"  {k.name:<58} " + " ".join(f"{v:<9}" for v in k.verdicts.values()))
