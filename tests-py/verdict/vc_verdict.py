"""One verdict for credential verification (issue 32): a cross-surface and differential test.

One corpus of `eddsa-jcs-2022` credentials (valid; a tampered member; a revoked id respelled
with a JSON escape; an escaped issuer and subject; a wrong issuer; an issuer that is not an
anchor; expired and not yet valid; a proof past its `expires`, created in the future, or
expiring before it was created; a required domain or challenge missing or different;
duplicate member names; invalid UTF-8; the clock as the default time) goes through every
concordia-rs surface that verifies credentials:

* the CLI (``concordia aip vc verify``),
* the C ABI (``concordia_aip_vc_verify``) through ctypes,
* the Python wheel (``concordia_rs.aip.vc_verify``),
* UniFFI's Python backend (``aip_vc_verify``),

and asserts (a) the same accept/reject **and the same error class** on every surface, (b)
that verdict is the one written next to each case, and (c) against an independent oracle
for the proof, written here from the W3C "Data Integrity EdDSA Cryptosuites v1.0" text
(``rfc8785`` + ``cryptography`` recomputing ``hashData``): no surface accepts a credential
whose proof the oracle rejects, and every case whose verdict does not depend on a rule
beyond the proof has the oracle's proof verdict as its own cause (a signature failure
exactly when the oracle rejects the proof).

Run by tools/ci/verdict.sh with ``CONCORDIA_CLI``, ``CONCORDIA_FFI_LIB`` and
``CONCORDIA_UNIFFI_PY`` as for cross_surface_verdict.py. A missing surface fails the test.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

# tests-py/ holds the base58 oracle shared with the AIP interop tests.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from base58_oracle import b58decode, b58encode  # noqa: E402

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from cross_surface_verdict import c_verdict, uniffi_module  # noqa: E402

ACCEPT = "accept"
UTC = dt.timezone.utc
NOW = "2026-06-01T00:00:00Z"
REVOKED_ID = "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e"
SUBJECT = "did:aip:aigentix.org:etagi"
SURFACES = ("cli", "c", "python", "uniffi")




def did_key(public: bytes) -> str:
    return "did:key:z" + b58encode(b"\xed\x01" + public)


def unix(text: str) -> int:
    return int(dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


def rfc3339(secs: int) -> str:
    return dt.datetime.fromtimestamp(secs, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------- the oracle


def oracle_proof(text: bytes) -> str:
    """The cryptosuite's verification written from the specification: the proof's
    configuration is the proof without ``proofValue``; ``hashData`` = SHA-256(JCS(config))
    || SHA-256(JCS(document without proof)); the signature is base58btc after ``z``, the
    key the did:key of ``verificationMethod``. ``accept`` or ``reject`` (the proof alone)."""
    import rfc8785
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        doc = json.loads(text.decode("utf-8"))
        proof = dict(doc.pop("proof"))
        pv = proof.pop("proofValue")
        vm = proof["verificationMethod"]
        did, fragment = vm.split("#")
        assert did == "did:key:" + fragment and fragment.startswith("z")
        raw = b58decode(fragment[1:])
        assert raw[:2] == b"\xed\x01" and len(raw) == 34
        assert pv.startswith("z")
        data = hashlib.sha256(rfc8785.dumps(proof)).digest() + hashlib.sha256(rfc8785.dumps(doc)).digest()
        Ed25519PublicKey.from_public_bytes(raw[2:]).verify(b58decode(pv[1:]), data)
        return ACCEPT
    except Exception:
        return "reject"


# --------------------------------------------------------------------------- the corpus


@dataclass
class Policy:
    anchors: Optional[list[str]] = None
    revoked: list[str] = field(default_factory=list)
    now: Optional[str] = NOW  # None: the clock (every surface's default)
    check_time: bool = True
    domain: Optional[str] = None
    challenge: Optional[str] = None


@dataclass
class Case:
    name: str
    text: bytes
    policy: Policy
    expect: str  # "accept" or the error class every surface must report
    # True when the verdict is about the proof alone, so the oracle decides it.
    proof_only: bool = False


class Signer:
    def __init__(self, label: bytes) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        self.key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(label).digest())
        self.public = self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        self.did = did_key(self.public)

    def sign(self, doc: dict[str, Any], **options: Any) -> dict[str, Any]:
        """`doc` with an eddsa-jcs-2022 proof whose configuration has `options` (created,
        expires, domain, challenge) besides the required members."""
        import rfc8785

        vm = self.did + "#" + self.did[len("did:key:"):]
        config = {"type": "DataIntegrityProof", "cryptosuite": "eddsa-jcs-2022", "proofPurpose": "assertionMethod",
                  "verificationMethod": vm, **options}
        if "@context" in doc:
            config["@context"] = doc["@context"]
        data = hashlib.sha256(rfc8785.dumps(config)).digest() + hashlib.sha256(rfc8785.dumps(doc)).digest()
        return dict(doc, proof=dict(config, proofValue="z" + b58encode(self.key.sign(data))))


def text_of(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc, ensure_ascii=False).encode()


def respell(text: bytes, plain: str, escaped: str) -> bytes:
    out = text.replace(plain.encode(), escaped.encode(), 1)
    assert out != text, plain
    return out


def corpus() -> list[Case]:
    alice = Signer(b"vc verdict: alice")
    other = Signer(b"vc verdict: other")
    base = {"@context": ["https://www.w3.org/ns/credentials/v2"], "id": REVOKED_ID,
            "type": ["VerifiableCredential"], "issuer": alice.did, "validFrom": "2026-01-01T00:00:00Z",
            "validUntil": "2099-01-01T00:00:00Z",
            "credentialSubject": {"id": SUBJECT, "legalName": "Etazhi LLC"}}
    created = {"created": "2026-05-01T00:00:00Z"}
    valid = text_of(alice.sign(base, **created))
    anchored = Policy(anchors=[alice.did])
    revoked = Policy(anchors=[alice.did], revoked=[REVOKED_ID])
    n = unix(NOW)
    cases = [
        Case("valid", valid, anchored, ACCEPT, True),
        Case("valid, no options at all, the clock", valid, Policy(now=None), ACCEPT, True),
        Case("tampered member", valid.replace(b"Etazhi LLC", b"Etazhi LLD"), anchored, "signature", True),
        Case("tampered proof created", valid.replace(b"2026-05-01T00:00:00Z", b"2026-05-01T00:00:01Z"), anchored,
             "signature", True),
        Case("revoked", valid, revoked, "binding"),
        Case("escaped id, revoked", respell(valid, "urn:uuid:0f8f", "urn:uuid:\\u0030f8f"), revoked, "binding"),
        Case("escaped id (\\/ and \\u), revoked",
             respell(valid, "urn:uuid:0f8fad5b-", "\\u0075rn:uuid:0f8fad5b\\u002d"), revoked, "binding"),
        Case("escaped id, not revoked", respell(valid, "urn:uuid:0f8f", "urn:uuid:\\u0030f8f"), anchored, ACCEPT, True),
        Case("escaped issuer", respell(valid, '"issuer": "did:key', '"issuer": "did:\\u006bey'), anchored, "schema"),
        Case("escaped subject", respell(valid, SUBJECT, "\\u0064" + SUBJECT[1:]), anchored, "schema"),
        Case("escaped validFrom, decoded", respell(valid, '"validFrom": "2026-', '"validFrom": "2026\\u002d'),
             anchored, ACCEPT, True),
        Case("wrong issuer (signed by another key)", text_of(other.sign(base, **created)), Policy(), "binding"),
        Case("not an anchor", valid, Policy(anchors=[other.did]), "binding"),
        Case("expired", text_of(alice.sign(dict(base, validUntil="2026-05-31T23:59:59Z"), **created)), anchored,
             "temporal"),
        Case("expired at the clock (the default time)",
             text_of(alice.sign(dict(base, validUntil="2026-02-01T00:00:00Z"), created="2026-01-10T00:00:00Z")),
             Policy(now=None), "temporal"),
        Case("expired, time off by name",
             text_of(alice.sign(dict(base, validUntil="2026-02-01T00:00:00Z"), created="2026-01-10T00:00:00Z")),
             Policy(now=None, check_time=False), ACCEPT, True),
        Case("not yet valid", text_of(alice.sign(dict(base, validFrom="2026-06-01T00:00:01Z"), **created)), anchored,
             "temporal"),
        Case("proof expired", text_of(alice.sign(base, expires="2026-05-31T23:59:59Z", **created)), anchored,
             "temporal"),
        Case("proof expires at now", text_of(alice.sign(base, expires=NOW, **created)), anchored, ACCEPT, True),
        Case("proof created 301 s ahead", text_of(alice.sign(base, created=rfc3339(n + 301))), anchored, "temporal"),
        Case("proof created 300 s ahead", text_of(alice.sign(base, created=rfc3339(n + 300))), anchored, ACCEPT,
             True),
        Case("proof expires before created",
             text_of(alice.sign(base, created="2026-05-02T00:00:00Z", expires="2026-05-01T00:00:00Z")), anchored,
             "temporal"),
        Case("proof expires before created, time off",
             text_of(alice.sign(base, created="2026-05-02T00:00:00Z", expires="2026-05-01T00:00:00Z")),
             Policy(now=None, check_time=False), "temporal"),
        Case("domain required, missing", valid, Policy(domain="example.org"), "binding"),
        Case("domain required, wrong", text_of(alice.sign(base, domain="example.com", **created)),
             Policy(domain="example.org"), "binding"),
        Case("domain required, present", text_of(alice.sign(base, domain="example.org", **created)),
             Policy(domain="example.org"), ACCEPT, True),
        Case("domain required, in a set", text_of(alice.sign(base, domain=["a.example", "example.org"], **created)),
             Policy(domain="example.org"), ACCEPT, True),
        Case("domain present, not required", text_of(alice.sign(base, domain="example.org", **created)), Policy(),
             ACCEPT, True),
        Case("challenge required, missing", valid, Policy(challenge="n-0S6_WzA2Mj"), "binding"),
        Case("challenge required, wrong", text_of(alice.sign(base, challenge="n-0S6_WzA2Mk", **created)),
             Policy(challenge="n-0S6_WzA2Mj"), "binding"),
        Case("challenge required, escaped but equal",
             respell(text_of(alice.sign(base, challenge="n-0S6_WzA2Mj", **created)), "WzA2Mj", "WzA2M\\u006a"),
             Policy(challenge="n-0S6_WzA2Mj"), ACCEPT, True),
        Case("domain and challenge required, present",
             text_of(alice.sign(base, domain="example.org", challenge="n-0S6_WzA2Mj", **created)),
             Policy(domain="example.org", challenge="n-0S6_WzA2Mj"), ACCEPT, True),
        Case("duplicate member name", valid.replace(b'"id": "urn', b'"id": "urn:uuid:x", "id": "urn', 1), anchored,
             "input"),
        Case("invalid UTF-8", valid.replace(b"Etazhi LLC", b"Etazhi \xff LLC"), anchored, "input"),
        Case("not JSON", b"{\"proof\": ", Policy(), "input"),
    ]
    names = [c.name for c in cases]
    assert len(names) == len(set(names))
    return cases


CASES = corpus()

# --------------------------------------------------------------------------- the surfaces


class SurfaceMissing(Exception):
    pass


CLI_CLASSES = (("malformed JSON", "input"), ("invalid encoding", "input"), ("invalid argument", "input"),
               ("schema check failed", "schema"), ("signature verification failed", "signature"),
               ("binding check failed", "binding"), ("temporal check failed", "temporal"))


class Surfaces:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        missing = []
        try:
            from concordia_rs import aip as rs_aip
        except ImportError as e:
            raise SurfaceMissing(f"concordia_rs: {e} (run in the wheel's venv: tools/ci/verdict.sh)")
        self.rs_aip = rs_aip
        self.cli = os.environ.get("CONCORDIA_CLI", "")
        if not self.cli or not os.access(self.cli, os.X_OK):
            missing.append(f"CONCORDIA_CLI={self.cli!r} is not an executable")
        lib = os.environ.get("CONCORDIA_FFI_LIB", "")
        self.c: Any = None
        if not lib or not Path(lib).is_file():
            missing.append(f"CONCORDIA_FFI_LIB={lib!r} is not a file")
        else:
            self.c = ctypes.CDLL(lib)
            self.c.concordia_aip_vc_verify.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                                                       ctypes.c_void_p]
            self.c.concordia_aip_vc_verify.restype = ctypes.c_uint32
            self.c.concordia_result_class.argtypes = [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t,
                                                      ctypes.POINTER(ctypes.c_size_t)]
            self.c.concordia_result_class.restype = ctypes.c_uint32
        self.uniffi: Any = uniffi_module(missing)
        if missing:
            raise SurfaceMissing("; ".join(missing))

    def _file(self, data: bytes) -> str:
        fd, p = tempfile.mkstemp(dir=self.workdir, suffix=".json")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return p

    def run_cli(self, case: Case) -> str:
        p = case.policy
        args = [self.cli, "aip", "vc", "verify"]
        if p.anchors is not None:
            args += ["--anchors", self._file(json.dumps(p.anchors).encode())]
        if p.revoked:
            args += ["--revoked", self._file(json.dumps(p.revoked).encode())]
        if p.now is not None:
            args += ["--now", p.now]
        if not p.check_time:
            args += ["--no-time-check"]
        if p.domain is not None:
            args += ["--domain", p.domain]
        if p.challenge is not None:
            args += ["--challenge", p.challenge]
        proc = subprocess.run(args + [self._file(case.text)], stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=60)
        if proc.returncode == 0:
            assert json.loads(proc.stdout)["verified"] is True
            return ACCEPT
        err = proc.stderr.decode("utf-8", "replace")
        cls = next((c for prefix, c in CLI_CLASSES if prefix in err), f"unknown: {err.strip()}")
        want_exit = 2 if cls in ("input", "limit") else 1
        assert proc.returncode == want_exit, (case.name, proc.returncode, err)
        return cls

    def run_c(self, case: Case) -> str:
        p = case.policy

        class Str(ctypes.Structure):
            _fields_ = [("ptr", ctypes.c_char_p), ("len", ctypes.c_size_t)]

        class Options(ctypes.Structure):
            _fields_ = [("time", ctypes.c_uint32), ("now", ctypes.c_int64), ("check_anchors", ctypes.c_uint8),
                        ("anchors", ctypes.POINTER(Str)), ("anchor_count", ctypes.c_size_t),
                        ("revoked", ctypes.POINTER(Str)), ("revoked_count", ctypes.c_size_t),
                        ("domain", Str), ("challenge", Str)]

        def strs(items: list[str]) -> Any:
            arr = (Str * max(len(items), 1))()
            for i, s in enumerate(items):
                b = s.encode()
                arr[i] = Str(b, len(b))
            return arr

        def opt(s: Optional[str]) -> Str:
            return Str(None, 0) if s is None else Str(s.encode(), len(s.encode()))

        anchors, revoked = strs(p.anchors or []), strs(p.revoked)
        o = Options()
        o.time = 2 if not p.check_time else (0 if p.now is None else 1)
        o.now = unix(p.now) if p.now is not None else 0
        o.check_anchors = int(p.anchors is not None)
        o.anchors, o.anchor_count = anchors, len(p.anchors or [])
        o.revoked, o.revoked_count = revoked, len(p.revoked)
        o.domain, o.challenge = opt(p.domain), opt(p.challenge)
        verified = ctypes.create_string_buffer(128)  # concordia_aip_vc_verified is 72 bytes
        code = self.c.concordia_aip_vc_verify(case.text, len(case.text), ctypes.byref(o), verified)
        return c_verdict(self.c, code)

    def run_python(self, case: Case) -> str:
        p = case.policy
        try:
            r = self.rs_aip.vc_verify(case.text, anchors=p.anchors, revoked=p.revoked, now=p.now,
                                      check_time=p.check_time, domain=p.domain, challenge=p.challenge)
        except Exception as e:  # noqa: BLE001 - the class is the answer
            return getattr(e, "reason_class", None) or f"unknown: {type(e).__name__}: {e}"
        assert r["verified"] is True
        return ACCEPT

    def run_uniffi(self, case: Case) -> str:
        p = case.policy
        try:
            text = case.text.decode("utf-8")
        except UnicodeDecodeError:
            return "n/a"  # a Swift/Kotlin String cannot hold it
        now = None if p.now is None else dt.datetime.fromtimestamp(unix(p.now), UTC)
        try:
            self.uniffi.aip_vc_verify(text, p.anchors, p.revoked, now, p.check_time, p.domain, p.challenge)
        except self.uniffi.AipError as e:
            return type(e).__name__.lower()
        return ACCEPT

    def verdicts(self, case: Case) -> dict[str, str]:
        run: dict[str, Callable[[Case], str]] = {"cli": self.run_cli, "c": self.run_c, "python": self.run_python,
                                                 "uniffi": self.run_uniffi}
        return {s: run[s](case) for s in SURFACES}


@pytest.fixture(scope="module")
def surfaces(tmp_path_factory: pytest.TempPathFactory) -> Surfaces:
    try:
        return Surfaces(tmp_path_factory.mktemp("vc-verdict"))
    except SurfaceMissing as e:
        pytest.fail(f"a surface is missing: {e}")


def test_the_oracle_agrees_with_its_own_signer() -> None:
    by = {c.name: c for c in CASES}
    assert oracle_proof(by["valid"].text) == ACCEPT
    assert oracle_proof(by["tampered member"].text) == "reject"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_one_verdict_and_one_error_class(surfaces: Surfaces, case: Case) -> None:
    got = surfaces.verdicts(case)
    classes = {v for v in got.values() if v != "n/a"}
    assert len(classes) == 1, f"{case.name}: the surfaces disagree: {got}"
    assert classes == {case.expect}, f"{case.name}: {got}, expected {case.expect}"
    oracle = oracle_proof(case.text)
    if case.expect == ACCEPT:
        assert oracle == ACCEPT, f"{case.name}: accepted, but the oracle rejects the proof"
    if case.proof_only or case.expect == "signature":
        assert (oracle == ACCEPT) == (case.expect == ACCEPT), f"{case.name}: oracle {oracle}, ours {case.expect}"
