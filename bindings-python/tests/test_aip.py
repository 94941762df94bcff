"""concordia_rs.aip (issue 17): every function and error, interop both ways with the release
CLI (`concordia aip ...`) on the same key files and DID Documents, tampering refused, and a
replay through one ReplayWindow reported as a duplicate."""

from __future__ import annotations

import base64
import json
import pathlib
import subprocess
import uuid

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

import concordia_rs as c
from concordia_rs import aip

EX = pathlib.Path(__file__).resolve().parents[2] / "examples" / "aip"
ALICE_DID = "did:aip:aigentix.org:alice"
ETAGI_DID = "did:aip:etagi.ru:etagi"
OFFER = json.loads((EX / "offer.json").read_text())
NOW = "2026-05-10T14:25:00Z"
NOW_S = 1778423100


def run(cli: pathlib.Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(cli), *args], input=stdin, capture_output=True, check=False)


@pytest.fixture(scope="module")
def alice() -> aip.AipKeyPair:
    return aip.AipKeyPair.from_key_file((EX / "alice.key.json").read_text())


@pytest.fixture(scope="module")
def etagi() -> aip.AipKeyPair:
    return aip.AipKeyPair.from_key_file(json.loads((EX / "etagi.key.json").read_text()))


def b64url_decode(s: str) -> bytes:
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


# --------------------------------------------------------------------------- handles


@pytest.mark.parametrize("text", ["alice#aigentix.org", "alice%23aigentix.org", "@alice@aigentix.org", ALICE_DID])
def test_handles_in_all_four_forms_match_cli(text: str, concordia_cli: pathlib.Path) -> None:
    h = aip.parse_handle(text)
    cli = json.loads(run(concordia_cli, "aip", "handle", text).stdout)
    assert (h.handle, h.url_form, h.did) == (cli["handle"], cli["url_form"], cli["did"])
    assert (h.name, h.domain, h.at_form) == ("alice", "aigentix.org", "@alice@aigentix.org")
    assert h == aip.Handle("alice", "aigentix.org") and hash(h) == hash(aip.Handle("alice", "aigentix.org"))
    assert str(h) == "alice#aigentix.org" and repr(h) == 'Handle("alice#aigentix.org")'


@pytest.mark.parametrize("text", ["alice", "Alice#aigentix.org", "did:aip:aigentix.org", "@alice", "alice#-bad-.org", ""])
def test_handle_errors(text: str, concordia_cli: pathlib.Path) -> None:
    with pytest.raises(c.ConcordiaError) as e:
        aip.parse_handle(text)
    assert isinstance(e.value, (c.InvalidArgumentError, c.SchemaError))
    assert run(concordia_cli, "aip", "handle", text).returncode != 0
    with pytest.raises(c.ConcordiaError):
        aip.Handle("a b", "example.com")


# --------------------------------------------------------------------------- DID Documents and keys


def test_key_files_are_the_clis(alice: aip.AipKeyPair, concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # The example key file was written by `aip keygen --seed 0101..01`: from_seed makes it
    # byte for byte, and the DID Document `--doc` wrote.
    made = aip.AipKeyPair.from_seed(bytes([1] * 32), did=ALICE_DID)
    assert made.key_file_json() == (EX / "alice.key.json").read_text() == alice.key_file_json()
    assert made.did_document() == json.loads((EX / "alice.doc.json").read_text())
    # A fresh seed through the CLI, with a direct route and an endpoint.
    seed = bytes(range(32))
    doc = tmp_path / "doc.json"
    out = run(concordia_cli, "aip", "keygen", "--did", ETAGI_DID, "--doc", str(doc), "--seed", seed.hex(),
              "--route-mode", "direct", "--endpoint", "https://agent.etagi.ru/aip")
    assert out.returncode == 0, out.stderr
    kp = aip.AipKeyPair.from_seed(seed, did=ETAGI_DID)
    assert kp.key_file_json() == out.stdout.decode()
    assert kp.did_document(route_mode="direct", endpoint="https://agent.etagi.ru/aip") == json.loads(doc.read_text())
    # Read back from every form, the same keys.
    f = json.loads(out.stdout)
    for form in (f, out.stdout, out.stdout.decode(), json.dumps(f)):
        assert aip.AipKeyPair.from_key_file(form).to_key_file() == f
    assert (kp.did, kp.did_key) == (ETAGI_DID, f["did_key"])
    assert kp.ed25519_seed() == seed and kp.x25519_secret() == bytes.fromhex(f["x25519_secret_hex"])
    assert kp.ed25519_public_key == Ed25519PublicKey.from_public_bytes(kp.ed25519_public_key).public_bytes_raw()
    assert kp.signing_key.public_key_bytes() == kp.ed25519_public_key
    # Secrets never in repr or str.
    for shown in (repr(kp), str(kp)):
        assert f["ed25519_seed_hex"] not in shown and f["x25519_secret_hex"] not in shown and ETAGI_DID in shown


def test_key_pair_constructors_and_errors() -> None:
    g = aip.AipKeyPair.generate()
    assert g.did is None and repr(g).startswith("AipKeyPair(did=None")
    assert aip.AipKeyPair.generate().ed25519_seed() != g.ed25519_seed()
    s = aip.AipKeyPair.from_seeds(g.ed25519_seed(), g.x25519_secret() or b"", did=ALICE_DID)
    assert (s.ed25519_public_key, s.x25519_public_key, s.did) == (g.ed25519_public_key, g.x25519_public_key, ALICE_DID)
    with pytest.raises(c.InvalidArgumentError):
        aip.AipKeyPair.from_seed(b"short")
    with pytest.raises(c.InvalidArgumentError):
        aip.AipKeyPair.from_seeds(bytes(32), bytes(31))
    with pytest.raises(c.InvalidArgumentError):
        aip.AipKeyPair.generate(did="did:web:example.com")
    with pytest.raises(c.SchemaError, match="ed25519_seed_hex"):
        aip.AipKeyPair.from_key_file({"did": ALICE_DID})
    with pytest.raises(c.EncodingError):
        aip.AipKeyPair.from_key_file({"ed25519_seed_hex": "zz" * 32})
    with pytest.raises(c.SchemaError):
        aip.AipKeyPair.from_key_file({"ed25519_seed_hex": 5})
    with pytest.raises(c.SchemaError):
        aip.AipKeyPair.from_key_file("[1]")
    with pytest.raises(c.InvalidJsonError):
        aip.AipKeyPair.from_key_file("{")
    # A signing-only key file (`concordia keygen`'s private_key_hex) has no X25519 half.
    signing_only = aip.AipKeyPair.from_key_file({"private_key_hex": "07" * 32})
    assert signing_only.x25519_public_key is None and signing_only.x25519_secret() is None
    with pytest.raises(c.SchemaError):
        signing_only.key_file_json()
    with pytest.raises(c.InvalidArgumentError):
        signing_only.did_document(ALICE_DID)
    with pytest.raises(c.InvalidArgumentError, match="needs a did"):
        g.did_document()
    with pytest.raises(c.InvalidArgumentError, match="route_mode"):
        g.did_document(ALICE_DID, route_mode="pigeon")
    with pytest.raises(c.SchemaError):
        g.did_document(ALICE_DID, endpoint="ftp://x")


def test_did_documents_and_routes(alice: aip.AipKeyPair) -> None:
    doc = json.loads((EX / "alice.doc.json").read_text())
    for form in (doc, json.dumps(doc), json.dumps(doc).encode()):
        d = aip.parse_did_document(form)
        assert (d.id, d.subject.did, d.route_mode, d.endpoint) == (ALICE_DID, ALICE_DID, "relay", doc["endpoint"])
        assert d.signing_keys == [alice.ed25519_public_key] and d.agreement_keys == [alice.x25519_public_key]
    assert "DidDocument(id=" in repr(d)
    assert aip.select_route(doc, True) == ("relay", doc["endpoint"])
    direct = alice.did_document(route_mode="direct", endpoint="https://alice.example/aip")
    assert aip.select_route(direct, True) == ("direct", "https://alice.example/aip")
    assert aip.select_route(direct, False) == ("relay", None)
    with pytest.raises(c.SchemaError):
        aip.parse_did_document(dict(doc, verificationMethod=[]))
    with pytest.raises(c.InvalidArgumentError):
        aip.parse_did_document(dict(doc, id="did:web:example.com"))
    with pytest.raises(c.SchemaError):
        aip.select_route({k: v for k, v in doc.items() if k != "route_mode"}, True)


# --------------------------------------------------------------------------- envelopes


def test_python_seals_cli_opens(alice: aip.AipKeyPair, concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    env = aip.seal(OFFER, recipient_doc=(EX / "etagi.doc.json").read_text(), sender_key=alice, created_at=NOW)
    assert set(env) == {"created_at", "encrypted_body", "from", "id", "sig", "to", "type"}
    assert (env["from"], env["to"], env["type"], env["created_at"]) == (ALICE_DID, ETAGI_DID, OFFER["type"], NOW)
    assert uuid.UUID(env["id"]).version == 4 and str(uuid.UUID(env["id"])) == env["id"]
    path = tmp_path / "env.json"
    path.write_text(json.dumps(env))
    r = run(concordia_cli, "aip", "open", "--key", str(EX / "etagi.key.json"), "--from", str(EX / "alice.doc.json"), "--now", NOW, str(path))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == OFFER
    # The signature is Ed25519 over the envelope without `sig`, canonical (checked with
    # `cryptography`, independently of the core).
    pre = json.dumps({k: v for k, v in env.items() if k != "sig"}, sort_keys=True, separators=(",", ":")).encode()
    Ed25519PublicKey.from_public_bytes(alice.ed25519_public_key).verify(b64url_decode(env["sig"]), pre)


def test_cli_seals_python_opens(alice: aip.AipKeyPair, etagi: aip.AipKeyPair, concordia_cli: pathlib.Path) -> None:
    r = run(concordia_cli, "aip", "seal", "--to", str(EX / "etagi.doc.json"), "--key", str(EX / "alice.key.json"),
            "--created-at", NOW, str(EX / "offer.json"))
    assert r.returncode == 0, r.stderr
    env = json.loads(r.stdout)
    alice_doc = (EX / "alice.doc.json").read_text()
    assert aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now=NOW) == OFFER
    assert aip.open(r.stdout, recipient_key=(EX / "etagi.key.json").read_text(), sender_doc=alice_doc, now=NOW_S + 10) == OFFER
    header = {k: env[k] for k in ("id", "from", "to", "type", "created_at")}
    assert aip.verify_envelope(env, sender_doc=alice_doc) == header
    assert aip.parse_envelope(r.stdout.decode()) == header


def test_seal_defaults_and_options(alice: aip.AipKeyPair, etagi: aip.AipKeyPair) -> None:
    etagi_doc = etagi.did_document()
    env = aip.seal({"item_id": 1}, recipient_doc=etagi_doc, sender_key=alice.key_file_json())
    assert env["type"] == "aip.message"
    # created_at defaults to the clock: fresh now.
    assert aip.open(env, recipient_key=etagi, sender_doc=alice.did_document()) == {"item_id": 1}
    mid = aip.new_message_id()
    assert uuid.UUID(mid).version == 4 and mid != aip.new_message_id()
    env = aip.seal('{"b": [1, 2], "a": "é"}', recipient_doc=etagi_doc, sender_key=alice, type="aip.x", id=mid, created_at=NOW)
    assert (env["type"], env["id"]) == ("aip.x", mid)
    assert aip.open(env, recipient_key=etagi, sender_doc=alice.did_document(), now=NOW) == {"a": "é", "b": [1, 2]}


def test_seal_errors(alice: aip.AipKeyPair, etagi: aip.AipKeyPair) -> None:
    etagi_doc = etagi.did_document()
    with pytest.raises(c.InvalidArgumentError, match="did"):
        aip.seal(OFFER, recipient_doc=etagi_doc, sender_key=aip.AipKeyPair.generate())
    with pytest.raises(c.SchemaError, match="keyAgreement"):
        aip.seal(OFFER, recipient_doc=dict(etagi_doc, keyAgreement=[]), sender_key=alice)
    with pytest.raises(c.ConcordiaError):
        aip.seal(OFFER, recipient_doc=etagi_doc, sender_key=alice, id="not-a-uuid")
    with pytest.raises(c.ConcordiaError):
        aip.seal(OFFER, recipient_doc=etagi_doc, sender_key=alice, type="Bad Type")
    with pytest.raises(c.ConcordiaError):
        aip.seal(OFFER, recipient_doc=etagi_doc, sender_key=alice, created_at="yesterday")
    with pytest.raises(c.InvalidJsonError):
        aip.seal("{", recipient_doc=etagi_doc, sender_key=alice)
    with pytest.raises(c.InvalidArgumentError):
        aip.seal({"x": float("inf")}, recipient_doc=etagi_doc, sender_key=alice)


def tampered(env: dict) -> list[dict]:
    out = []
    for k in ("created_at", "encrypted_body", "from", "id", "sig", "to", "type"):
        t = dict(env)
        v = t[k]
        if k == "id":
            t[k] = str(uuid.uuid4())
        elif k == "created_at":
            t[k] = "2026-05-10T14:25:01Z"
        elif k in ("sig", "encrypted_body"):
            t[k] = ("B" if v[0] == "A" else "A") + v[1:]
        elif k == "from":
            t[k] = "did:aip:aigentix.org:mallory"
        elif k == "to":
            t[k] = "did:aip:etagi.ru:other"
        else:
            t[k] = v + "x"
        out.append(t)
    return out


def test_tampered_envelopes_refused(alice: aip.AipKeyPair, etagi: aip.AipKeyPair, concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    env = aip.seal(OFFER, recipient_doc=etagi.did_document(), sender_key=alice, created_at=NOW)
    alice_doc = alice.did_document()
    w = aip.ReplayWindow()
    for i, t in enumerate(tampered(env)):
        with pytest.raises(c.ConcordiaError) as e:
            aip.open(t, recipient_key=etagi, sender_doc=alice_doc, now=NOW, window=w)
        # from: another sender than the document's (a binding error); the rest do not verify.
        assert isinstance(e.value, (c.InvalidSignatureError, c.BindingError)), (t, e.value)
        with pytest.raises(c.ConcordiaError):
            aip.verify_envelope(t, sender_doc=alice_doc)
        path = tmp_path / f"t{i}.json"
        path.write_text(json.dumps(t))
        r = run(concordia_cli, "aip", "open", "--key", str(EX / "etagi.key.json"), "--from", str(EX / "alice.doc.json"), "--now", NOW, str(path))
        assert r.returncode == 1, (t, r.stderr)
    # Nothing refused was remembered: the untampered envelope is fresh.
    assert len(w) == 0
    assert aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now=NOW, window=w) == OFFER
    with pytest.raises(c.SchemaError):
        aip.parse_envelope({k: v for k, v in env.items() if k != "sig"})
    with pytest.raises(c.SchemaError):
        aip.parse_envelope(dict(env, extra=1))


def test_open_checks_addressee_freshness_and_replay(alice: aip.AipKeyPair, etagi: aip.AipKeyPair) -> None:
    env = aip.seal(OFFER, recipient_doc=etagi.did_document(), sender_key=alice, created_at=NOW)
    alice_doc = alice.did_document()
    # Addressee: the same X25519 key under another did is not the addressee (the CLI's check_to).
    other = aip.AipKeyPair.from_seeds(etagi.ed25519_seed(), etagi.x25519_secret() or b"", did="did:aip:etagi.ru:other")
    with pytest.raises(c.BindingError):
        aip.open(env, recipient_key=other, sender_doc=alice_doc, now=NOW)
    # Issue 32: without a did in the key file the recipient's DID is required (it was not
    # checked at all), or the addressee check is skipped by name.
    no_did = aip.AipKeyPair.from_seeds(etagi.ed25519_seed(), etagi.x25519_secret() or b"")
    with pytest.raises(c.InvalidArgumentError, match="did:aip is required"):
        aip.open(env, recipient_key=no_did, sender_doc=alice_doc, now=NOW)
    assert aip.open(env, recipient_key=no_did, sender_doc=alice_doc, now=NOW, recipient_did=ETAGI_DID) == OFFER
    assert aip.open(env, recipient_key=no_did, sender_doc=alice_doc, now=NOW, any_recipient=True) == OFFER
    with pytest.raises(c.BindingError):
        aip.open(env, recipient_key=no_did, sender_doc=alice_doc, now=NOW, recipient_did="did:aip:etagi.ru:other")
    with pytest.raises(c.InvalidArgumentError):
        aip.open(env, recipient_key=no_did, sender_doc=alice_doc, now=NOW, recipient_did=ETAGI_DID, any_recipient=True)
    with pytest.raises(c.InvalidArgumentError):
        aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now=NOW, recipient_did="did:aip:etagi.ru:other")
    # The named opt-out opens the envelope at another agent's key too: that is what it is for.
    assert aip.open(env, recipient_key=other, sender_doc=alice_doc, now=NOW, any_recipient=True) == OFFER
    # Another recipient's X25519 key cannot open it.
    with pytest.raises(c.InvalidSignatureError):
        aip.open(env, recipient_key=aip.AipKeyPair.from_seeds(bytes(32), bytes(range(32)), did=ETAGI_DID), sender_doc=alice_doc, now=NOW)
    # Another sender's document: its keys do not verify the signature.
    with pytest.raises(c.ConcordiaError):
        aip.open(env, recipient_key=etagi, sender_doc=aip.AipKeyPair.generate().did_document(ALICE_DID), now=NOW)
    # Freshness: at most 300 s ahead, at most 600 s old.
    assert aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now=NOW_S + 600) == OFFER
    with pytest.raises(c.TemporalError):
        aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now=NOW_S + 601)
    with pytest.raises(c.TemporalError):
        aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now=NOW_S - 301)
    with pytest.raises(c.TemporalError):
        aip.open(env, recipient_key=etagi, sender_doc=alice_doc)  # the clock: long after NOW
    assert aip.open(env, recipient_key=etagi, sender_doc=alice_doc, skip_freshness=True) == OFFER
    # Issue 32: stale (at the clock) and tampered is a signature failure, as on every surface.
    body = env["encrypted_body"]
    tampered = dict(env, encrypted_body=body[:10] + ("A" if body[10] != "A" else "B") + body[11:])
    with pytest.raises(c.InvalidSignatureError):
        aip.open(tampered, recipient_key=etagi, sender_doc=alice_doc)
    # Replay through one window: the second delivery is a duplicate.
    w = aip.ReplayWindow(16)
    assert aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now=NOW, window=w) == OFFER
    assert w.contains(env["from"], env["id"]) and len(w) == 1
    with pytest.raises(c.ReplayError, match="replay"):
        aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now=NOW_S + 5, window=w)
    assert w.check(env["from"], env["id"], env["created_at"], NOW_S + 6) == "duplicate"
    # Another window has not seen it.
    assert aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now=NOW, window=aip.ReplayWindow()) == OFFER
    assert aip.ReplayWindow is c.ReplayWindow
    with pytest.raises(c.InvalidArgumentError, match="x25519"):
        aip.open(env, recipient_key={"private_key_hex": "07" * 32}, sender_doc=alice_doc, now=NOW)
    with pytest.raises(TypeError):
        aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now=NOW, window="w")  # type: ignore[arg-type]
    with pytest.raises(c.SchemaError):
        aip.open(env, recipient_key=etagi, sender_doc=alice_doc, now="May 10")


# --------------------------------------------------------------------------- credentials


def credential(issuer: str) -> dict:
    return {"@context": ["https://www.w3.org/ns/credentials/v2"], "type": ["VerifiableCredential", "OrganizationVerification"],
            "id": "urn:uuid:8e0fbd49-0c9f-4a2f-8b59-2b1b0c2e5f10", "issuer": issuer, "validFrom": "2026-01-01T00:00:00Z",
            "credentialSubject": {"id": ETAGI_DID, "legalName": "Etazhi LLC", "verified": True}}


def test_credentials_interop(alice: aip.AipKeyPair, concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    cred = credential(alice.did_key)
    signed = aip.vc_issue(cred, key=alice, created=NOW)
    assert signed["proof"]["cryptosuite"] == "eddsa-jcs-2022" and signed["proof"]["created"] == NOW
    # The CLI issues the same bytes (Ed25519 is deterministic) and verifies ours.
    credf = tmp_path / "cred.json"
    credf.write_text(json.dumps(cred))
    r = run(concordia_cli, "aip", "vc", "issue", "--key", str(EX / "alice.key.json"), "--created", NOW, str(credf))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == signed
    signedf = tmp_path / "signed.json"
    signedf.write_text(json.dumps(signed))
    r = run(concordia_cli, "aip", "vc", "verify", "--now", NOW, str(signedf))
    assert r.returncode == 0 and json.loads(r.stdout) == {"verified": True, "issuer": alice.did_key, "subject": ETAGI_DID}
    want = {"verified": True, "issuer": alice.did_key, "subject": ETAGI_DID}
    assert aip.vc_verify(signed, now=NOW) == want
    assert aip.vc_verify(json.dumps(signed), anchors=[alice.did_key], revoked=[], now=NOW_S) == want
    assert aip.vc_verify(signed) == want  # the clock, inside the validity period
    # Every key form issues the same proof.
    for key in (alice.key_file_json(), alice.to_key_file(), alice.signing_key, c.KeyPair.from_private_bytes(alice.ed25519_seed())):
        assert aip.vc_issue(json.dumps(cred), key=key, created=NOW) == signed
    p = aip.vc_verify_proof(signed)
    assert p["verified"] is True and p["public_key"] == alice.ed25519_public_key
    assert p["verification_method"] == signed["proof"]["verificationMethod"]


def test_credential_refusals(alice: aip.AipKeyPair, concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    signed = aip.vc_issue(credential(alice.did_key), key=alice, created=NOW)
    for path in (("credentialSubject", "legalName"), ("credentialSubject", "verified"), ("validFrom",), ("proof", "created")):
        t = json.loads(json.dumps(signed))
        obj = t
        for k in path[:-1]:
            obj = obj[k]
        v = obj[path[-1]]
        obj[path[-1]] = (not v) if isinstance(v, bool) else ("2026-01-02T00:00:00Z" if "T" in v else v + "x")
        with pytest.raises(c.InvalidSignatureError):
            aip.vc_verify(t, now=NOW)
        with pytest.raises(c.InvalidSignatureError):
            aip.vc_verify_proof(t)
        f = tmp_path / "t.json"
        f.write_text(json.dumps(t))
        assert run(concordia_cli, "aip", "vc", "verify", "--now", NOW, str(f)).returncode == 1
    with pytest.raises(c.ConcordiaError):
        aip.vc_verify(signed, anchors=[aip.AipKeyPair.generate().did_key], now=NOW)
    with pytest.raises(c.ConcordiaError):
        aip.vc_verify(signed, revoked=[signed["id"]], now=NOW)
    with pytest.raises(c.TemporalError):
        aip.vc_verify(signed, now="2025-12-31T00:00:00Z")
    with pytest.raises(TypeError):
        aip.vc_verify(signed, anchors="did:key:z6Mk", now=NOW)  # type: ignore[arg-type]
    with pytest.raises(c.InvalidArgumentError):
        aip.vc_issue(credential("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK"), key=alice)
    with pytest.raises(c.SchemaError):
        aip.vc_issue(signed, key=alice)
    with pytest.raises(TypeError):
        aip.vc_issue(credential(alice.did_key), key=42)


# --------------------------------------------------------------------------- trust and ranking


def test_trust_functions() -> None:
    edges = [("did:a", "did:b"), ("did:b", "did:c", False), ("did:c", "did:d", True)]
    assert aip.trust_ceiling("did:a", edges, ["did:a"]) == 1.0
    assert aip.trust_ceiling("did:b", edges, ["did:a"]) == 0.5
    assert aip.trust_ceiling("did:c", edges, ["did:a"]) == 0.25
    assert aip.trust_ceiling("did:d", edges, ["did:a"]) == 0.0  # only a revoked path
    assert aip.trust_ceiling("did:z", edges, []) == 0.0
    s = aip.trust_update(0.0, 0.5, "success")
    assert s == pytest.approx(0.05 * 0.5)
    assert aip.trust_update(0.4, 1.0, "failure") == pytest.approx(0.2)
    assert aip.trust_update(0.4, 1.0, "revocation") == 0.0
    want = 0.0
    for e in ["success", "success", "failure", "success"]:
        want = aip.trust_update(want, 0.5, e)  # type: ignore[arg-type]
    assert aip.trust_score(0.5, ["success", "success", "failure", "success"]) == want
    with pytest.raises(c.InvalidArgumentError):
        aip.trust_update(0.1, 1.0, "bribe")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        aip.trust_ceiling("did:a", [("did:a",)], [])  # type: ignore[list-item]
    assert aip.rrf(1, 2) == pytest.approx(1 / 61 + 1 / 62)
    assert aip.rrf(fts_rank=3) == pytest.approx(1 / 63) and aip.rrf() == 0.0
    assert aip.final_score(0.5, 0.5) == pytest.approx(0.5 * 1.15)
    for bad in (0, -1, True, 1.5):
        with pytest.raises(c.InvalidArgumentError):
            aip.rrf(bad)  # type: ignore[arg-type]
    with pytest.raises(c.ConcordiaError):
        aip.final_score(0.5, 2.0)


def test_rank_matches_cli(concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    results = [
        {"id": "a", "semantic_rank": 1, "fts_rank": None, "trust_score": 0.1},
        {"id": "b", "semantic_rank": 2, "fts_rank": 1, "trust_score": 0.9},
        {"id": "c", "semantic_rank": None, "fts_rank": 2, "trust_score": 0.5, "extra": [1]},
        {"id": "d", "trust_score": 0.0},
    ]
    f = tmp_path / "r.json"
    f.write_text(json.dumps(results))
    r = run(concordia_cli, "aip", "rank", str(f))
    assert r.returncode == 0, r.stderr
    got = aip.rank(results)
    assert got == json.loads(r.stdout)
    assert [x["id"] for x in got] == ["b", "c", "a", "d"]
    for x in got:
        want = aip.rrf(x.get("semantic_rank"), x.get("fts_rank"))
        assert x["rrf"] == want and x["final"] == aip.final_score(want, x["trust_score"])
    assert results[0].keys() == {"id", "semantic_rank", "fts_rank", "trust_score"}  # inputs untouched
    with pytest.raises(c.InvalidArgumentError, match="trust_score"):
        aip.rank([{"semantic_rank": 1}])
    with pytest.raises(c.InvalidArgumentError, match="ranks"):
        aip.rank([{"semantic_rank": 0, "trust_score": 0.1}])
    assert aip.rank([]) == []


def test_credential_decoded_ids_proof_options_and_the_clock(alice: aip.AipKeyPair) -> None:
    """Issue 32: a revoked id respelled with a JSON escape stays revoked; an escaped subject
    or issuer is refused by name; domain/challenge can be required; the clock by default,
    off only by name."""
    cred = dict(credential(alice.did_key), validUntil="2099-01-01T00:00:00Z")
    signed = json.dumps(aip.vc_issue(cred, key=alice, created=NOW))
    escaped = signed.replace("urn:uuid:8e0f", "urn:uuid:\\u0038e0f", 1)
    assert escaped != signed
    assert aip.vc_verify(escaped)["verified"] is True  # the proof holds over the respelling
    with pytest.raises(c.ConcordiaError, match="credential is revoked"):
        aip.vc_verify(escaped, revoked=["urn:uuid:8e0fbd49-0c9f-4a2f-8b59-2b1b0c2e5f10"])
    with pytest.raises(c.SchemaError, match="credentialSubject.id must be written without JSON escapes"):
        aip.vc_verify(signed.replace(ETAGI_DID, "\\u0064" + ETAGI_DID[1:], 1))
    with pytest.raises(c.SchemaError, match="issuer must be written without JSON escapes"):
        aip.vc_verify(signed.replace('"issuer": "did:', '"issuer": "\\u0064id:', 1))
    for option in ({"domain": "example.org"}, {"challenge": "n-0S6"}):
        with pytest.raises(c.ConcordiaError, match="is missing or not the required one") as e:
            aip.vc_verify(signed, **option)  # type: ignore[arg-type]
        assert e.value.reason_class == "binding"
    expired = json.dumps(aip.vc_issue(dict(cred, validUntil="2026-02-01T00:00:00Z"), key=alice, created="2026-01-10T00:00:00Z"))
    with pytest.raises(c.TemporalError):
        aip.vc_verify(expired)
    assert aip.vc_verify(expired, check_time=False)["verified"] is True
    assert aip.vc_verify(expired, now="2026-01-15T00:00:00Z")["verified"] is True
    with pytest.raises(c.InvalidArgumentError, match="exclude each other"):
        aip.vc_verify(expired, now="2026-01-15T00:00:00Z", check_time=False)
    with pytest.raises(c.TemporalError, match="proof created in the future"):
        aip.vc_verify(signed, now="2026-05-10T14:19:59Z")  # created is NOW, 301 s later
    aip.vc_verify(signed, now="2026-05-10T14:20:00Z")
