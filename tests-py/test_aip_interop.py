"""AIP interoperability: HPKE bodies and eddsa-jcs-2022 credentials against independent
implementations.

* HPKE (RFC 9180, base mode, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, ChaCha20Poly1305):
  a body sealed by `concordia aip seal` opens with `pyhpke` (PyPI), and an envelope sealed
  and signed here with `pyhpke` + `cryptography` opens with `concordia aip open`. The RFC
  9180 A.2.1 values used by the Rust test are re-derived with `pyhpke`.
* eddsa-jcs-2022: a credential issued by `concordia aip vc issue` verifies with a verifier
  written here directly from the W3C "Data Integrity EdDSA Cryptosuites v1.0" text
  (`rfc8785` + `cryptography` + base58btc written below), and with Digital Bazaar's
  `@digitalbazaar/eddsa-jcs-2022-cryptosuite` (npm, pinned) when node can install it;
  tampering with any member fails; a credential issued here verifies with the CLI.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from pyhpke import AEADId, CipherSuite, KDFId, KEMId

from base58_oracle import b58decode, b58encode
from conftest import REPO_ROOT, concordia_bin

SUITE = CipherSuite.new(KEMId.DHKEM_X25519_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.CHACHA20_POLY1305)
INFO = b"concordia-aip/1 encrypted_body"
NPM_PACKAGE = "@digitalbazaar/eddsa-jcs-2022-cryptosuite@1.0.0"


def b64u(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def unb64u(s: str) -> bytes:
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    exe = concordia_bin()
    if not exe.exists():
        pytest.fail(f"concordia binary not found at {exe} (cargo build --release -p concordia-cli)")
    proc = subprocess.run([str(exe), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if check and proc.returncode != 0:
        pytest.fail(f"concordia {' '.join(args)} exited {proc.returncode}: {proc.stderr.decode()}")
    return proc


@pytest.fixture(scope="module")
def parties(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("aip")
    out = {}
    for name, did in [("alice", "did:aip:aigentix.org:alice"), ("etagi", "did:aip:etagi.ru:etagi")]:
        doc = d / f"{name}.doc.json"
        key = cli("aip", "keygen", "--did", did, "--doc", str(doc)).stdout
        (d / f"{name}.key.json").write_bytes(key)
        out[f"{name}_key"], out[f"{name}_doc"] = d / f"{name}.key.json", doc
    out["dir"] = d
    return out


def header_aad(env: dict) -> bytes:
    return rfc8785.dumps({k: env[k] for k in ("created_at", "from", "id", "to", "type")})


# ---- HPKE ----

def test_rfc9180_a21_values_with_pyhpke() -> None:
    h = bytes.fromhex
    eks = SUITE.kem.derive_key_pair(h("909a9b35d3dc4713a5e72a4da274b55d3d3821a37e5d099e74a647db583a904b"))
    pkr = SUITE.kem.deserialize_public_key(h("4310ee97d88cc1f088a5576c77ab0cf5c3ac797f3d95139c6c84b5429c59662a"))
    enc, ctx = SUITE.create_sender_context(pkr, info=h("4f6465206f6e2061204772656369616e2055726e"), eks=eks)
    assert enc.hex() == "1afa08d3dec047a643885163f1180476fa7ddb54c6a8029ea33f95796bf2ac4a"
    ct = ctx.seal(h("4265617574792069732074727574682c20747275746820626561757479"), aad=h("436f756e742d30"))
    assert ct.hex() == ("1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db"
                        "21993c62ce81883d2dd1b51a28")


def test_core_sealed_body_opens_with_pyhpke(parties: dict[str, Path]) -> None:
    msg = parties["dir"] / "msg.json"
    msg.write_text('{"type": "aip.commerce.offer.request", "item_id": "doc_123", "note": "h\\u00e9llo"}')
    env = json.loads(cli("aip", "seal", "--to", str(parties["etagi_doc"]), "--key", str(parties["alice_key"]), str(msg)).stdout)
    raw = unb64u(env["encrypted_body"])
    enc, ct = raw[:32], raw[32:]
    key = json.loads(parties["etagi_key"].read_text())
    skr = SUITE.kem.deserialize_private_key(bytes.fromhex(key["x25519_secret_hex"]))
    ctx = SUITE.create_recipient_context(enc, skr, info=INFO)
    body = ctx.open(ct, aad=header_aad(env))
    assert json.loads(body) == {"type": "aip.commerce.offer.request", "item_id": "doc_123", "note": "h\u00e9llo"}
    assert body == rfc8785.dumps(json.loads(body))
    # The signature is Ed25519 over the RFC 8785 form of the envelope without `sig`.
    alice = json.loads(parties["alice_key"].read_text())
    pk = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(alice["ed25519_seed_hex"])).public_key()
    pk.verify(unb64u(env["sig"]), rfc8785.dumps({k: v for k, v in env.items() if k != "sig"}))
    # Another header (here: another id) does not open the same body.
    other = dict(env, id="0b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b")
    with pytest.raises(Exception):
        SUITE.create_recipient_context(enc, skr, info=INFO).open(ct, aad=header_aad(other))


def test_pyhpke_sealed_envelope_opens_with_core(parties: dict[str, Path]) -> None:
    etagi_doc = json.loads(parties["etagi_doc"].read_text())
    mb = etagi_doc["keyAgreement"][0]["publicKeyMultibase"]
    raw_pk = b58decode(mb[1:])
    assert raw_pk[:2] == b"\xec\x01"
    alice = json.loads(parties["alice_key"].read_text())
    sk = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(alice["ed25519_seed_hex"]))
    env = {"id": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "from": "did:aip:aigentix.org:alice",
           "to": "did:aip:etagi.ru:etagi", "type": "aip.commerce.offer.response",
           "created_at": "2026-05-10T14:25:00.250Z"}
    body = b'{"price":79000,"currency":"USD"}'
    enc, ctx = SUITE.create_sender_context(SUITE.kem.deserialize_public_key(raw_pk[2:]), info=INFO)
    env["encrypted_body"] = b64u(enc + ctx.seal(body, aad=header_aad(env)))
    env["sig"] = b64u(sk.sign(rfc8785.dumps(env)))
    path = parties["dir"] / "py-env.json"
    path.write_text(json.dumps(env, indent=2))
    # The envelope has a fixed created_at: open it at that time (the default is the clock).
    now = ("--now", "2026-05-10T14:25:01Z")
    out = cli("aip", "open", "--key", str(parties["etagi_key"]), "--from", str(parties["alice_doc"]), *now, str(path))
    assert out.stdout == body
    # Re-signed with a moved header field the body no longer opens (exit 1).
    env2 = dict(env, type="aip.commerce.offer.request")
    del env2["sig"]
    env2["sig"] = b64u(sk.sign(rfc8785.dumps(env2)))
    path.write_text(json.dumps(env2))
    moved = cli("aip", "open", "--key", str(parties["etagi_key"]), "--from", str(parties["alice_doc"]), *now, str(path), check=False)
    assert moved.returncode == 1 and b"temporal" not in moved.stderr, moved.stderr


# ---- eddsa-jcs-2022 ----

def spec_verify(secured: dict) -> bool:
    """Verify Proof (eddsa-jcs-2022), written from the W3C specification text."""
    doc = dict(secured)
    proof = dict(doc.pop("proof"))
    proof_value = proof.pop("proofValue")
    if proof.get("type") != "DataIntegrityProof" or proof.get("cryptosuite") != "eddsa-jcs-2022":
        return False
    if "@context" in proof:
        ctx = proof["@context"] if isinstance(proof["@context"], list) else [proof["@context"]]
        dctx = doc.get("@context")
        dctx = dctx if isinstance(dctx, list) else [dctx]
        if dctx[:len(ctx)] != ctx:
            return False
        doc["@context"] = proof["@context"]
    hash_data = hashlib.sha256(rfc8785.dumps(proof)).digest() + hashlib.sha256(rfc8785.dumps(doc)).digest()
    did, fragment = proof["verificationMethod"].split("#")
    assert did == "did:key:" + fragment and fragment.startswith("z6Mk")
    key = b58decode(fragment[1:])
    assert key[:2] == b"\xed\x01" and len(key) == 34
    assert proof_value.startswith("z")
    try:
        Ed25519PublicKey.from_public_bytes(key[2:]).verify(b58decode(proof_value[1:]), hash_data)
        return True
    except Exception:
        return False


def issued(parties: dict[str, Path]) -> tuple[dict, str]:
    key_json = json.loads(cli("aip", "keygen").stdout)
    keyf = parties["dir"] / "issuer.key.json"
    keyf.write_text(json.dumps(key_json))
    cred = {"@context": ["https://www.w3.org/ns/credentials/v2"], "type": ["VerifiableCredential", "OrganizationVerification"],
            "issuer": key_json["did_key"], "validFrom": "2026-01-01T00:00:00Z",
            "credentialSubject": {"id": "did:aip:aigentix.org:etagi", "legalName": "Etazhi LLC", "inn": "7224052984", "verified": True}}
    credf = parties["dir"] / "cred.json"
    credf.write_text(json.dumps(cred))
    return json.loads(cli("aip", "vc", "issue", "--key", str(keyf), "--created", "2026-05-10T14:25:00Z", str(credf)).stdout), key_json["ed25519_seed_hex"]


def tamperings(signed: dict) -> list[dict]:
    out = []
    for path in [("credentialSubject", "legalName"), ("credentialSubject", "verified"), ("validFrom",), ("type",),
                 ("proof", "created"), ("proof", "proofPurpose"), ("proof", "@context")]:
        t = json.loads(json.dumps(signed))
        obj = t
        for k in path[:-1]:
            obj = obj[k]
        v = obj[path[-1]]
        obj[path[-1]] = (not v) if isinstance(v, bool) else (v + ["x"] if isinstance(v, list) else v + "x")
        out.append(t)
    return out


def test_core_credential_verifies_from_spec(parties: dict[str, Path]) -> None:
    signed, _ = issued(parties)
    assert spec_verify(signed)
    for t in tamperings(signed):
        assert not spec_verify(t)


def test_spec_issued_credential_verifies_with_core(parties: dict[str, Path]) -> None:
    sk = Ed25519PrivateKey.generate()
    pub = sk.public_key().public_bytes_raw()
    mk = "z" + b58encode(b"\xed\x01" + pub)
    did = "did:key:" + mk
    doc = {"@context": ["https://www.w3.org/ns/credentials/v2"], "type": ["VerifiableCredential"], "issuer": {"id": did, "name": "Anchor"},
           "credentialSubject": {"id": "did:aip:aigentix.org:alice", "score": 0.5}}
    proof = {"type": "DataIntegrityProof", "cryptosuite": "eddsa-jcs-2022", "created": "2026-05-10T14:25:00Z",
             "verificationMethod": f"{did}#{mk}", "proofPurpose": "assertionMethod", "@context": doc["@context"]}
    hash_data = hashlib.sha256(rfc8785.dumps(proof)).digest() + hashlib.sha256(rfc8785.dumps(doc)).digest()
    proof["proofValue"] = "z" + b58encode(sk.sign(hash_data))
    f = parties["dir"] / "py-cred.json"
    f.write_text(json.dumps(dict(doc, proof=proof)))
    anchors = parties["dir"] / "py-anchors.json"
    anchors.write_text(json.dumps([did]))
    assert cli("aip", "vc", "verify", "--anchors", str(anchors), str(f)).returncode == 0
    for k, v in [("credentialSubject", {"id": "did:aip:aigentix.org:alice", "score": 0.9}), ("issuer", {"id": did, "name": "Anchr"})]:
        f.write_text(json.dumps(dict(doc, proof=proof, **{k: v})))
        assert cli("aip", "vc", "verify", str(f), check=False).returncode == 1


NODE_VERIFY = r"""
import {createVerifyCryptosuite} from '@digitalbazaar/eddsa-jcs-2022-cryptosuite';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import {readFileSync} from 'node:fs';
const secured = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const {proof, ...document} = secured;
const cryptosuite = createVerifyCryptosuite();
const data = await cryptosuite.createVerifyData({cryptosuite, document, proof: {...proof}});
const [controller, fragment] = proof.verificationMethod.split('#');
const key = await Ed25519Multikey.from({type: 'Multikey', id: proof.verificationMethod, controller, publicKeyMultibase: fragment});
const bytes = (await import('base58-universal')).decode(proof.proofValue.slice(1));
const ok = await key.verifier().verify({data, signature: bytes});
console.log(ok ? 'verified' : 'failed');
"""


def npm_cryptosuite() -> Path | None:
    """node_modules holding the pinned npm cryptosuite, installed once into .cache/."""
    if not shutil.which("node") or not shutil.which("npm"):
        return None
    prefix = Path(os.environ.get("CONCORDIA_NPM_CACHE", REPO_ROOT / ".cache" / "npm-eddsa-jcs"))
    mod = prefix / "node_modules" / "@digitalbazaar" / "eddsa-jcs-2022-cryptosuite"
    if not mod.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", NPM_PACKAGE],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300, check=True)
        except (subprocess.SubprocessError, OSError):
            return None
    return prefix if mod.exists() else None


def test_core_credential_verifies_with_digitalbazaar(parties: dict[str, Path]) -> None:
    prefix = npm_cryptosuite()
    if prefix is None:
        pytest.fail(f"node/npm or {NPM_PACKAGE} not installable here (tools/test.sh checks node, npm and the "
                    "network first)")
    script = prefix / "verify.mjs"
    script.write_text(NODE_VERIFY)
    signed, _ = issued(parties)
    for doc, want in [(signed, "verified")] + [(t, "failed") for t in tamperings(signed)[:4]]:
        f = parties["dir"] / "db-cred.json"
        f.write_text(json.dumps(doc))
        proc = subprocess.run(["node", str(script), str(f)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        got = proc.stdout.decode().strip() if proc.returncode == 0 else "failed"
        assert got == want, proc.stderr.decode()
