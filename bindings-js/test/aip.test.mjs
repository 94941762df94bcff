// AIP: handles, DID Documents, key pairs, sealed envelopes (interop with the CLI both
// ways), the replay window, eddsa-jcs-2022 credentials (the CLI verifies them), trust.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import * as c from "../node.js";
import { ROOT, SEED, cli, derive, fromHex, hex } from "./helpers.mjs";
const REPLAY_FROM = "did:aip:aigentix.org:alice";

const ALICE_DID = "did:aip:aigentix.org:alice";
const BOB_DID = "did:aip:etagi.ru:bob";
const AIP_NOW = new Date("2026-05-10T14:25:00Z");
const AIP_CREATED = "2026-05-10T14:25:00Z";
const plus = (date, s) => new Date(date.getTime() + s * 1000);
// RFC 7748 §6.1: Alice's X25519 private and public keys.
const RFC7748_SECRET = fromHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
const RFC7748_PUBLIC = fromHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const aipKeys = (label) => c.AipKeyPair.fromSeeds(derive("aip-ed25519-" + label), derive("aip-x25519-" + label));

function didDoc(did, kp, { routeMode = "relay", endpoint, ...extra } = {}) {
  const [, , domain, name] = did.split(":");
  return JSON.stringify({
    "@context": ["https://www.w3.org/ns/did/v1"],
    id: did,
    route_mode: routeMode,
    endpoint: endpoint ?? `https://hub.${domain}/relay/${name}`,
    verificationMethod: [{ id: did + "#key-1", type: "Multikey", controller: did, publicKeyMultibase: kp.ed25519Multibase() }],
    keyAgreement: [{ id: did + "#x25519-1", type: "Multikey", controller: did, publicKeyMultibase: kp.x25519Multibase() }],
    ...extra,
  });
}

const sealHeader = (fields = {}) => ({
  id: c.aipNewMessageId(),
  from: ALICE_DID,
  messageType: "aip.commerce.offer.request",
  createdAt: AIP_CREATED,
  ...fields,
});

test("handles", () => {
  const h = c.aipParseHandle("alice#aigentix.org");
  assert.deepEqual(h, {
    name: "alice",
    domain: "aigentix.org",
    handle: "alice#aigentix.org",
    urlForm: "alice%23aigentix.org",
    atForm: "@alice@aigentix.org",
    did: ALICE_DID,
  });
  for (const spelling of ["alice%23aigentix.org", "%61lice%23aigentix%2Eorg", "@alice@aigentix.org", ALICE_DID]) {
    assert.deepEqual(c.aipParseHandle(spelling), h);
  }
  assert.deepEqual(c.aipHandle("alice", "aigentix.org"), h);
  for (const bad of ["Alice#aigentix.org", "alice#localhost", "alice", "-a#x.org", "did:aip:x.org", "alice%2523aigentix.org"]) {
    assert.throws(() => c.aipParseHandle(bad), { name: "InputError" }, bad);
  }
  assert.throws(() => c.aipParseHandle("alice%2zaigentix.org"), { name: "InputError", message: /percent/ });
  assert.throws(() => c.aipHandle("", "aigentix.org"), { name: "InputError", message: /name/ });
});

test("AipKeyPair", () => {
  const kp = aipKeys("alice");
  assert.deepEqual(kp.ed25519Seed(), derive("aip-ed25519-alice"));
  assert.deepEqual(kp.x25519Secret(), derive("aip-x25519-alice"));
  assert.deepEqual(kp.ed25519PublicKey(), c.KeyPair.fromSeed(kp.ed25519Seed()).publicKey());
  assert.match(kp.ed25519Multibase(), /^z6Mk/);
  assert.match(kp.x25519Multibase(), /^z6LS/);
  assert.equal(kp.didKey(), "did:key:" + kp.ed25519Multibase());
  const signer = kp.signingKey();
  assert.deepEqual(signer.publicKey(), kp.ed25519PublicKey());
  assert.equal(c.aipDidKey(signer), kp.didKey());
  assert.deepEqual(c.AipKeyPair.fromSeeds(SEED, RFC7748_SECRET).x25519PublicKey(), RFC7748_PUBLIC);
  const a = c.AipKeyPair.generate();
  const b = c.AipKeyPair.generate();
  assert.notDeepEqual(a.ed25519Seed(), b.ed25519Seed());
  assert.notDeepEqual(a.x25519Secret(), b.x25519Secret());
  assert.equal(a.x25519PublicKey().length, 32);
  assert.throws(() => c.AipKeyPair.fromSeeds(new Uint8Array(31), new Uint8Array(32)), { name: "InputError", message: /32 bytes/ });
  assert.throws(() => c.AipKeyPair.fromSeeds(new Uint8Array(32), new Uint8Array(33)), { name: "InputError", message: /32 bytes/ });
});

test("DID Documents written and read; routes", () => {
  const kp = aipKeys("bob");
  for (const [mode, endpoint] of [["relay", "https://hub.etagi.ru/relay/bob"], ["direct", "wss://bob.etagi.ru/aip"]]) {
    const text = kp.didDocument(BOB_DID, mode, endpoint);
    const want = JSON.parse(didDoc(BOB_DID, kp, { routeMode: mode, endpoint }));
    delete want["@context"];
    assert.equal(text, c.canonicalize(JSON.stringify(want)));
    const doc = c.aipParseDidDocument(text);
    assert.deepEqual([doc.id, doc.routeMode, doc.endpoint], [BOB_DID, mode, endpoint]);
    assert.deepEqual(doc.signingKeys, [kp.ed25519PublicKey()]);
    assert.deepEqual(doc.agreementKeys, [kp.x25519PublicKey()]);
    assert.deepEqual(doc.subject, c.aipParseHandle("bob#etagi.ru"));
  }
  assert.throws(() => kp.didDocument(BOB_DID, "direct", "ftp://etagi.ru/bob"), { name: "SchemaError", message: /endpoint/ });
  assert.throws(() => kp.didDocument(BOB_DID, "pigeon", "https://etagi.ru/bob"), { name: "InputError", message: /routeMode/ });
  assert.throws(() => kp.didDocument("did:web:etagi.ru", "relay", "https://hub.etagi.ru/relay/bob"), {
    name: "InputError",
    message: /did:aip/,
  });
  const relay = didDoc(BOB_DID, kp);
  const direct = didDoc(BOB_DID, kp, { routeMode: "direct", endpoint: "https://bob.etagi.ru/aip" });
  for (const reachable of [true, false]) {
    assert.deepEqual(c.aipSelectRoute(relay, reachable), { mode: "relay", endpoint: "https://hub.etagi.ru/relay/bob" });
  }
  assert.deepEqual(c.aipSelectRoute(direct, true), { mode: "direct", endpoint: "https://bob.etagi.ru/aip" });
  assert.deepEqual(c.aipSelectRoute(direct, false), { mode: "relay", endpoint: undefined });
  assert.throws(() => c.aipParseDidDocument(didDoc(BOB_DID, kp, { routeMode: "carrier-pigeon" })), {
    name: "SchemaError",
    message: /route_mode/,
  });
  assert.throws(() => c.aipParseDidDocument(didDoc(BOB_DID, kp, { verificationMethod: [] })), {
    name: "SchemaError",
    message: /no Ed25519/,
  });
  const five = Array.from({ length: 5 }, (_, i) => ({
    id: `${BOB_DID}#key-${i}`,
    controller: BOB_DID,
    type: "Multikey",
    publicKeyMultibase: kp.ed25519Multibase(),
  }));
  assert.throws(() => c.aipParseDidDocument(didDoc(BOB_DID, kp, { verificationMethod: five })), { name: "LimitError" });
  assert.throws(() => c.aipParseDidDocument(didDoc(BOB_DID, kp).replace(kp.ed25519Multibase(), kp.x25519Multibase())), {
    name: "InputError",
    message: /multikey/,
  });
  assert.throws(() => c.aipParseDidDocument('{"id": '), { name: "InputError", message: /malformed JSON/ });
});

test("message ids are UUID v4", () => {
  const ids = new Set(Array.from({ length: 64 }, () => c.aipNewMessageId()));
  assert.equal(ids.size, 64);
  for (const id of ids) assert.match(id, UUID_V4);
});

test("seal, verify and open; tampering", () => {
  const [alice, bob, eve] = [aipKeys("alice"), aipKeys("bob"), aipKeys("eve")];
  const [aliceDoc, bobDoc] = [didDoc(ALICE_DID, alice), didDoc(BOB_DID, bob)];
  const body = '{"sku": "cam-1", "qty": 2, "note": "caf\\u00e9", "price": {"amount": 1.50, "currency": "EUR"}}';
  const header = sealHeader();
  const env = c.aipSeal(alice, bobDoc, header, body);
  const obj = JSON.parse(env);
  assert.deepEqual(Object.keys(obj), ["created_at", "encrypted_body", "from", "id", "sig", "to", "type"]);
  assert.equal(env, c.canonicalize(env));
  const expected = { id: header.id, from: ALICE_DID, to: BOB_DID, messageType: header.messageType, createdAt: AIP_CREATED };
  assert.deepEqual(c.aipParseEnvelope(env), expected);
  assert.deepEqual(c.aipVerifyEnvelope(aliceDoc, env), expected);
  assert.deepEqual(c.aipOpen(bob, aliceDoc, env, { now: AIP_NOW, recipientDid: BOB_DID }), { header: expected, bodyJson: c.canonicalize(body) });
  assert.notEqual(JSON.parse(c.aipSeal(alice, bobDoc, header, body)).encrypted_body, obj.encrypted_body);
  const big = JSON.stringify({ blob: "x".repeat(100_000) });
  assert.equal(c.aipOpen(bob, aliceDoc, c.aipSeal(alice, bobDoc, sealHeader(), big), { now: AIP_NOW, recipientDid: BOB_DID }).bodyJson, big);
  const flipped = obj.encrypted_body.slice(0, 10) + (obj.encrypted_body[10] === "A" ? "B" : "A") + obj.encrypted_body.slice(11);
  for (const t of [{ ...obj, encrypted_body: flipped }, { ...obj, type: "aip.commerce.offer.accept" }]) {
    assert.throws(() => c.aipOpen(bob, aliceDoc, JSON.stringify(t), { now: AIP_NOW, recipientDid: BOB_DID }), { name: "SignatureError", code: "CONCORDIA_SIGNATURE" });
    assert.throws(() => c.aipVerifyEnvelope(aliceDoc, JSON.stringify(t)), { name: "SignatureError" });
  }
  assert.throws(() => c.aipOpen(eve, aliceDoc, env, { now: AIP_NOW, anyRecipient: true }), { name: "SignatureError" });
  assert.throws(() => c.aipOpen(bob, bobDoc, env, { now: AIP_NOW, recipientDid: BOB_DID }), { name: "BindingError", message: /from/ });
  assert.throws(() => c.aipParseEnvelope("{}"), { name: "SchemaError" });
  assert.throws(() => c.aipParseEnvelope(JSON.stringify({ ...obj, x: 1 })), { name: "SchemaError", message: /unknown envelope member/ });
  assert.throws(() => c.aipParseEnvelope(JSON.stringify({ ...obj, id: obj.id.toUpperCase() })), { name: "SchemaError", message: /UUID/ });
  assert.throws(() => c.aipOpen(bob, aliceDoc, env.slice(0, -1), { now: AIP_NOW, recipientDid: BOB_DID }), { name: "InputError", message: /malformed JSON/ });
  assert.throws(() => c.aipSeal(alice, bobDoc, sealHeader({ id: "not-a-uuid" }), "{}"), { name: "SchemaError", message: /UUID/ });
  assert.throws(() => c.aipSeal(alice, bobDoc, sealHeader({ createdAt: "2026-05-10 14:25:00" }), "{}"), {
    name: "SchemaError",
    message: /RFC 3339/,
  });
  assert.throws(() => c.aipSeal(alice, bobDoc, sealHeader({ messageType: "Offer" }), "{}"), { name: "SchemaError", message: /type/ });
  assert.throws(() => c.aipSeal(alice, bobDoc, sealHeader({ from: "alice#aigentix.org" }), "{}"), { name: "InputError" });
  assert.throws(() => c.aipSeal(alice, didDoc(BOB_DID, bob, { keyAgreement: [] }), sealHeader(), "{}"), {
    name: "SchemaError",
    message: /keyAgreement/,
  });
  assert.throws(() => c.aipSeal(alice, bobDoc, sealHeader(), '{"a":1,"a":2}'), { name: "InputError", message: /malformed JSON/ });
  assert.throws(() => c.aipSeal(alice, bobDoc, { ...sealHeader(), messageType: undefined }, "{}"), {
    name: "InputError",
    message: /header.messageType/,
  });
});

test("envelopes interoperate with the CLI both ways", () => {
  const dir = mkdtempSync(join(tmpdir(), "concordia-js-aip-"));
  const [alice, bob] = [aipKeys("alice"), aipKeys("bob")];
  for (const [name, did, kp] of [["alice", ALICE_DID, alice], ["bob", BOB_DID, bob]]) {
    writeFileSync(
      join(dir, `${name}.key.json`),
      JSON.stringify({ did, ed25519_seed_hex: hex(kp.ed25519Seed()), x25519_secret_hex: hex(kp.x25519Secret()) }),
    );
    writeFileSync(join(dir, `${name}.did.json`), didDoc(did, kp));
  }
  const body = '{"offer": {"amount": 2200, "currency": "EUR"}}';
  writeFileSync(join(dir, "env1.json"), c.aipSeal(alice, didDoc(BOB_DID, bob), sealHeader(), body));
  const opened = cli(["aip", "open", "--key", join(dir, "bob.key.json"), "--from", join(dir, "alice.did.json"), "--now", AIP_CREATED, join(dir, "env1.json")]);
  assert.equal(opened.trim(), c.canonicalize(body));
  writeFileSync(join(dir, "body.json"), body);
  const env = cli(["aip", "seal", "--to", join(dir, "alice.did.json"), "--key", join(dir, "bob.key.json"), "--type", "aip.reply", join(dir, "body.json")]);
  const o = c.aipOpen(alice, didDoc(BOB_DID, bob), env, { recipientDid: ALICE_DID });
  assert.equal(o.bodyJson, c.canonicalize(body));
  assert.deepEqual([o.header.from, o.header.to, o.header.messageType], [BOB_DID, ALICE_DID, "aip.reply"]);
});

test("replay window: verdicts, bounds, capacity", () => {
  const w = new c.AipReplayWindow("small");
  assert.deepEqual([w.capacity(), w.len(), w.isEmpty()], [1024, 0, true]);
  const [a, b] = [c.aipNewMessageId(), c.aipNewMessageId()];
  assert.equal(w.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW), "fresh");
  assert.equal(w.check(REPLAY_FROM, a, AIP_CREATED, plus(AIP_NOW, 5)), "duplicate");
  assert.ok(w.contains(REPLAY_FROM, a) && !w.contains(REPLAY_FROM, b) && w.len() === 1 && !w.isEmpty());
  assert.equal(w.check(REPLAY_FROM, b, "2026-05-10T14:30:05Z", plus(AIP_NOW, 5)), "fresh");
  assert.throws(() => w.check(REPLAY_FROM, c.aipNewMessageId(), "2026-05-10T14:30:06Z", plus(AIP_NOW, 5)), {
    name: "TemporalError",
    message: /future/,
  });
  assert.throws(() => w.check(REPLAY_FROM, c.aipNewMessageId(), "2026-05-10T14:14:59Z", plus(AIP_NOW, 1)), {
    name: "TemporalError",
    message: /older/,
  });
  const later = plus(AIP_NOW, 601);
  assert.throws(() => w.check(REPLAY_FROM, a, AIP_CREATED, later), { name: "TemporalError" });
  assert.ok(w.contains(REPLAY_FROM, a));
  assert.equal(w.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW), "duplicate");
  assert.equal(w.check(REPLAY_FROM, c.aipNewMessageId(), "2026-05-10T14:30:00Z", later), "fresh");
  assert.ok(!w.contains(REPLAY_FROM, a) && w.contains(REPLAY_FROM, b));
  const full = new c.AipReplayWindow("small");
  for (let i = 0; i < 1024; i++) {
    assert.equal(full.check(REPLAY_FROM, `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`, AIP_CREATED, AIP_NOW), "fresh");
  }
  assert.throws(() => full.check(REPLAY_FROM, c.aipNewMessageId(), AIP_CREATED, AIP_NOW), { name: "LimitError", code: "CONCORDIA_LIMIT_CAPACITY" });
  assert.equal(full.len(), 1024);
  assert.throws(() => w.contains(REPLAY_FROM, "not-a-uuid"), { name: "SchemaError", message: /UUID/ });
  assert.throws(() => w.check(REPLAY_FROM, c.aipNewMessageId(), "yesterday", AIP_NOW), { name: "SchemaError", message: /RFC 3339/ });
  assert.throws(() => new c.AipReplayWindow("huge"), { name: "InputError", message: /capacity/ });
  assert.equal(new c.AipReplayWindow("medium").capacity(), 16384);
  assert.equal(new c.AipReplayWindow("large").capacity(), 65536);
});

test("replay window: snapshot, restore, cold start", () => {
  const w = new c.AipReplayWindow("small");
  const a = c.aipNewMessageId();
  assert.equal(w.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW), "fresh");
  const snap = w.snapshot();
  assert.ok(snap instanceof Uint8Array && snap.length === 76 + 28);
  let r = new c.AipReplayWindow("small");
  r.restore(snap, AIP_NOW);
  assert.equal(r.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW), "duplicate");
  assert.equal(r.isColdStarted(), false);
  assert.deepEqual(r.snapshot().slice(16, -32), snap.slice(16, -32));
  for (const bad of [snap.subarray(0, -1), Uint8Array.of(snap[0] ^ 1, ...snap.subarray(1)), new Uint8Array(), new Uint8Array(200)]) {
    r = new c.AipReplayWindow("small");
    assert.throws(() => r.restore(bad, AIP_NOW), { name: "InputError", message: /snapshot/ });
    assert.ok(r.isColdStarted() && r.len() === 0);
    assert.throws(() => r.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW), { name: "TemporalError", message: /cold-start guard/ });
  }
  r = new c.AipReplayWindow("small");
  r.coldStart(AIP_NOW);
  assert.throws(() => r.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW), { name: "TemporalError" });
  r.endColdStart();
  assert.equal(r.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW), "fresh");
});

test("replay window: sender keys, sealed snapshots (issue 32)", () => {
  const w = new c.AipReplayWindow("small");
  const a = c.aipNewMessageId();
  assert.equal(w.check("did:aip:evil.example:mallory", a, AIP_CREATED, AIP_NOW), "fresh");
  assert.equal(w.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW), "fresh", "another sender's copy of an id is not a replay");
  const key = Uint8Array.from({ length: 32 }, (_, i) => i);
  const me = new TextEncoder().encode("did:web:me");
  const old = w.snapshotSealed(key, me);
  const cur = w.snapshotSealed(key, me);
  assert.equal(w.generation(), 2);
  const edited = Uint8Array.from(cur);
  edited[40] ^= 1;
  for (const [snap, owner, min] of [[old, me, 2], [cur, new TextEncoder().encode("did:web:other"), 0], [w.snapshot(), me, 0], [edited, me, 0]]) {
    const r = new c.AipReplayWindow("small");
    assert.throws(() => r.restoreSealed(snap, AIP_NOW, key, owner, min), { name: "BindingError" });
    assert.ok(r.isColdStarted() && r.len() === 0);
  }
  const r = new c.AipReplayWindow("small");
  r.restoreSealed(cur, AIP_NOW, key, me, 2);
  assert.equal(r.check(REPLAY_FROM, a, AIP_CREATED, AIP_NOW), "duplicate");
  r.coldStart(AIP_NOW);
  assert.throws(() => r.check(REPLAY_FROM, a, "2026-05-10T14:30:00Z", AIP_NOW), { name: "TemporalError" });
});

const credential = (issuer, extra = {}) =>
  JSON.stringify({
    "@context": ["https://www.w3.org/ns/credentials/v2"],
    id: "urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33",
    type: ["VerifiableCredential", "AgentMembershipCredential"],
    issuer,
    validFrom: "2026-01-01T00:00:00Z",
    validUntil: "2099-01-01T00:00:00Z",
    credentialSubject: { id: ALICE_DID, memberOf: "aigentix.org" },
    ...extra,
  });

test("eddsa-jcs-2022 credentials; the CLI verifies them", () => {
  const issuer = aipKeys("registry").signingKey();
  const did = c.aipDidKey(issuer);
  const signed = c.aipVcIssue(issuer, credential(did), "2026-01-01T00:00:00Z");
  const proof = JSON.parse(signed).proof;
  assert.deepEqual([proof.type, proof.cryptosuite, proof.proofPurpose], ["DataIntegrityProof", "eddsa-jcs-2022", "assertionMethod"]);
  assert.equal(proof.verificationMethod, did + "#" + did.slice("did:key:".length));
  assert.equal(signed, c.canonicalize(signed));
  const v = c.aipVcVerify(signed, { anchors: [did], revoked: [], now: AIP_NOW });
  assert.deepEqual(v, { issuer: did, subject: ALICE_DID, publicKey: issuer.publicKey() });
  assert.deepEqual(c.aipVcVerify(signed), v);
  assert.notEqual(c.aipVcIssue(issuer, credential(did)), signed);
  const dir = mkdtempSync(join(tmpdir(), "concordia-js-vc-"));
  writeFileSync(join(dir, "vc.json"), signed);
  cli(["aip", "vc", "verify", "--now", "2026-05-10T14:25:00Z", join(dir, "vc.json")]);
  assert.throws(() => c.aipVcVerify(signed, { anchors: [c.aipDidKey(aipKeys("other").signingKey())] }), {
    name: "BindingError",
    message: /anchor/,
  });
  assert.throws(() => c.aipVcVerify(signed, { revoked: ["urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33"] }), {
    name: "BindingError",
    message: /revoked/,
  });
  assert.throws(() => c.aipVcVerify(signed, { now: new Date("2099-01-01T00:00:01Z") }), { name: "TemporalError", message: /expired/ });
  assert.throws(() => c.aipVcVerify(signed, { now: new Date("2025-12-31T00:00:00Z") }), {
    name: "TemporalError",
    message: /not yet valid/,
  });
  const tampered = JSON.parse(signed);
  tampered.credentialSubject.id = BOB_DID;
  assert.throws(() => c.aipVcVerify(JSON.stringify(tampered)), { name: "SignatureError" });
  assert.throws(() => c.aipVcVerify(credential(did)), { name: "SchemaError", message: /proof/ });
  assert.throws(() => c.aipVcIssue(issuer, signed), { name: "SchemaError", message: /already has a proof/ });
  assert.throws(() => c.aipVcIssue(issuer, credential(c.aipDidKey(aipKeys("other").signingKey()))), {
    name: "InputError",
    message: /issuer/,
  });
  assert.throws(() => c.aipVcVerify("{"), { name: "InputError", message: /malformed JSON/ });
  assert.throws(() => c.aipVcVerify(signed, { anchors: "x" }), { name: "InputError", message: /anchors/ });
});

test("issue 32: decoded revoked ids, escaped subjects, domain/challenge, the clock by default", () => {
  const issuer = aipKeys("registry").signingKey();
  const did = c.aipDidKey(issuer);
  const signed = c.aipVcIssue(issuer, credential(did), "2026-01-01T00:00:00Z");
  const escaped = signed.replace("urn:uuid:5", "urn:uuid:\\u0035");
  assert.notEqual(escaped, signed);
  assert.equal(c.aipVcVerify(escaped).subject, ALICE_DID); // the proof holds over the respelling
  assert.throws(() => c.aipVcVerify(escaped, { revoked: ["urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33"] }), {
    name: "BindingError",
    message: /revoked/,
  });
  assert.throws(() => c.aipVcVerify(signed.replace(ALICE_DID, "\\u0064" + ALICE_DID.slice(1))), {
    name: "SchemaError",
    message: /credentialSubject\.id must be written without JSON escapes/,
  });
  assert.throws(() => c.aipVcVerify(signed, { domain: "example.org" }), { name: "BindingError", message: /domain/ });
  assert.throws(() => c.aipVcVerify(signed, { challenge: "n-0S6" }), { name: "BindingError", message: /challenge/ });
  assert.throws(() => c.aipVcVerify(signed, { domain: 5 }), { name: "InputError", message: /domain/ });
  const expired = c.aipVcIssue(issuer, credential(did, { validUntil: "2026-02-01T00:00:00Z" }), "2026-01-01T00:00:00Z");
  assert.throws(() => c.aipVcVerify(expired), { name: "TemporalError", message: /expired/ }); // the clock
  assert.equal(c.aipVcVerify(expired, { checkTime: false }).issuer, did);
  assert.equal(c.aipVcVerify(expired, { now: new Date("2026-01-15T00:00:00Z") }).issuer, did);
  assert.throws(() => c.aipVcVerify(expired, { now: new Date("2026-01-15T00:00:00Z"), checkTime: false }), {
    name: "InputError",
    message: /exclude each other/,
  });
});

test("trust and ranking", () => {
  const [anchor, mid, leaf] = ["did:aip:aigentix.org:registry", "did:aip:aigentix.org:broker", ALICE_DID];
  const edges = [{ issuer: anchor, subject: mid }, { issuer: mid, subject: leaf }];
  assert.equal(c.aipTrustCeiling(anchor, edges, [anchor]), 1);
  assert.equal(c.aipTrustCeiling(mid, edges, [anchor]), 0.5);
  assert.equal(c.aipTrustCeiling(leaf, edges, [anchor]), 0.25);
  assert.equal(c.aipTrustCeiling(leaf, [edges[0], { issuer: mid, subject: leaf, revoked: true }], [anchor]), 0);
  assert.equal(c.aipTrustCeiling(leaf, edges, []), 0);
  assert.throws(() => c.aipTrustCeiling(leaf, Array(129).fill(edges).flat(), [anchor]), { name: "LimitError" });
  const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-12, `${a} != ${b}`);
  close(c.aipTrustUpdate(0, 0.5, "success"), 0.025);
  close(c.aipTrustUpdate(0.4, 0.5, "failure"), 0.2);
  assert.equal(c.aipTrustUpdate(0.4, 0.5, "revocation"), 0);
  assert.equal(c.aipTrustUpdate(0.9, 0.5, "success"), 0.5);
  close(c.aipTrustScore(0.5, ["success", "success", "failure"]), (0.025 + 0.05 * (0.5 - 0.025)) * 0.5);
  assert.equal(c.aipTrustScore(0.5, []), 0);
  assert.throws(() => c.aipTrustUpdate(0.4, 0.5, "bribe"), { name: "InputError", message: /trust event/ });
  close(c.aipRrf(1, 1), 2 / 61);
  close(c.aipRrf(undefined, 3), 1 / 63);
  assert.equal(c.aipRrf(), 0);
  close(c.aipFinalScore(2 / 61, 0.5), (2 / 61) * 1.15);
  assert.throws(() => c.aipRrf(0, 1), { name: "InputError", message: /ranks start at 1/ });
  assert.throws(() => c.aipFinalScore(0.1, 1.5), { name: "InputError", message: /trust_score/ });
  const ranked = c.aipRank([
    { semanticRank: 2, trustScore: 0 },
    { semanticRank: 1, ftsRank: 1, trustScore: 0 },
    { semanticRank: 2, ftsRank: null, trustScore: 1 },
    { trustScore: 0.5 },
  ]);
  assert.deepEqual(ranked.map((r) => r.index), [1, 2, 0, 3]);
  close(ranked[0].rrf, 2 / 61);
  close(ranked[0].finalScore, 2 / 61);
  close(ranked[1].finalScore, (1 / 62) * 1.3);
  assert.equal(ranked[3].finalScore, 0);
  assert.deepEqual(c.aipRank([]), []);
  assert.throws(() => c.aipRank([{ semanticRank: 1, trustScore: NaN }]), { name: "InputError" });
});

const EXAMPLES = join(ROOT, "examples");

test("key files are the CLI's", () => {
  const text = readFileSync(join(EXAMPLES, "aip", "alice.key.json"), "utf8");
  const kp = c.AipKeyPair.fromKeyFile(text);
  assert.equal(kp.did(), ALICE_DID);
  assert.equal(kp.keyFileJson(), text);
  assert.equal(c.AipKeyPair.fromKeygenSeed(new Uint8Array(32).fill(1), ALICE_DID).keyFileJson(), text);
  const doc = JSON.parse(readFileSync(join(EXAMPLES, "aip", "alice.doc.json"), "utf8"));
  assert.deepEqual(JSON.parse(kp.didDocument(kp.did(), "relay", doc.endpoint)), doc);
  const out = cli(["aip", "keygen", "--seed", hex(SEED)]);
  const noDid = c.AipKeyPair.fromKeygenSeed(SEED);
  assert.equal(noDid.did(), undefined);
  assert.equal(noDid.keyFileJson(), out);
  assert.deepEqual(c.AipKeyPair.fromKeyFile(out).ed25519Seed(), SEED);
  assert.equal(noDid.withDid(BOB_DID).did(), BOB_DID);
  assert.equal(noDid.did(), undefined);
  assert.throws(() => c.AipKeyPair.fromKeyFile('{"did": "did:aip:etagi.ru:bob"}'), { name: "SchemaError", message: /ed25519_seed_hex/ });
  assert.throws(() => c.AipKeyPair.fromKeyFile(JSON.stringify({ ed25519_seed_hex: hex(SEED) })), {
    name: "SchemaError",
    message: /x25519_secret_hex/,
  });
  assert.throws(() => c.AipKeyPair.fromKeyFile(JSON.stringify({ ed25519_seed_hex: "zz", x25519_secret_hex: hex(SEED) })), {
    name: "InputError",
    message: /hex/,
  });
  assert.throws(() => c.AipKeyPair.fromKeygenSeed(new Uint8Array(5)), { name: "InputError" });
  assert.throws(() => noDid.withDid("did:web:example.com"), { name: "InputError" });
  assert.throws(() => c.AipKeyPair.fromKeygenSeed(SEED, "alice#aigentix.org"), { name: "InputError" });
});

test("aipOpen checks the addressee as the CLI does", () => {
  const dir = mkdtempSync(join(tmpdir(), "concordia-js-addressee-"));
  const [alice, bob] = [aipKeys("alice"), aipKeys("bob")];
  const [aliceDoc, bobDoc] = [didDoc(ALICE_DID, alice), didDoc(BOB_DID, bob)];
  const env = c.aipSeal(alice, bobDoc, sealHeader(), '{"offer": 1}');
  assert.equal(c.aipOpen(bob.withDid(BOB_DID), aliceDoc, env, { now: AIP_NOW }).bodyJson, '{"offer":1}');
  assert.throws(() => c.aipOpen(bob.withDid("did:aip:etagi.ru:carol"), aliceDoc, env, { now: AIP_NOW }), { name: "BindingError" });
  writeFileSync(join(dir, "env.json"), env);
  writeFileSync(join(dir, "alice.doc.json"), aliceDoc);
  for (const [did, ok] of [[BOB_DID, true], ["did:aip:etagi.ru:carol", false]]) {
    writeFileSync(join(dir, "key.json"), bob.withDid(did).keyFileJson());
    const args = ["aip", "open", "--key", join(dir, "key.json"), "--from", join(dir, "alice.doc.json"), "--now", AIP_CREATED, join(dir, "env.json")];
    if (ok) cli(args, { stdio: "pipe" });
    else assert.throws(() => cli(args, { stdio: "pipe" }), { status: 1 });
  }
});

test("aipOpen: freshness and replay", () => {
  const [alice, bob] = [aipKeys("alice"), aipKeys("bob").withDid(BOB_DID)];
  const [aliceDoc, bobDoc] = [didDoc(ALICE_DID, alice), didDoc(BOB_DID, bob)];
  const env = c.aipSeal(alice, bobDoc, sealHeader(), '{"offer": 2}');
  const opened = c.aipOpen(bob, aliceDoc, env, { now: AIP_NOW });
  assert.deepEqual(opened, c.aipOpen(bob, aliceDoc, env, { skipFreshness: true }));
  assert.equal(c.aipOpen(bob, aliceDoc, env, { now: plus(AIP_NOW, 600) }).bodyJson, '{"offer":2}');
  assert.throws(() => c.aipOpen(bob, aliceDoc, env, { now: plus(AIP_NOW, 601) }), { name: "TemporalError" });
  assert.throws(() => c.aipOpen(bob, aliceDoc, env, { now: plus(AIP_NOW, -301) }), { name: "TemporalError" });
  const w = new c.AipReplayWindow("small");
  const obj = JSON.parse(env);
  assert.throws(() => c.aipOpen(bob, aliceDoc, JSON.stringify({ ...obj, type: "aip.other" }), { now: AIP_NOW, window: w }), {
    name: "SignatureError",
  });
  assert.equal(w.len(), 0);
  assert.deepEqual(c.aipOpen(bob, aliceDoc, env, { now: AIP_NOW, window: w }), opened);
  assert.throws(() => c.aipOpen(bob, aliceDoc, env, { now: plus(AIP_NOW, 5), window: w }), (e) =>
    e instanceof c.ReplayError &&
    e instanceof c.ConcordiaError &&
    e.code === "CONCORDIA_AIP_REPLAY" &&
    e.class === "replay" &&
    /replay/.test(e.message),
  );
  assert.ok(w.contains(REPLAY_FROM, obj.id) && w.len() === 1);
  // The window stays the caller's, usable after the call.
  assert.equal(w.check(REPLAY_FROM, obj.id, AIP_CREATED, AIP_NOW), "duplicate");
  assert.throws(() => c.aipOpen(bob.withDid("did:aip:etagi.ru:carol"), aliceDoc, env, { now: AIP_NOW }), { name: "BindingError" });
});

test("aipOpen: safe defaults, named opt-outs, one order (issue 32)", () => {
  const [alice, bob] = [aipKeys("alice"), aipKeys("bob")];
  const [aliceDoc, bobDoc] = [didDoc(ALICE_DID, alice), didDoc(BOB_DID, bob)];
  const old = c.aipSeal(alice, bobDoc, sealHeader({ createdAt: "2019-06-01T12:00:00Z" }), '{"offer": 3}');
  // The recipient's DID is required (it was skipped when the key pair had none).
  assert.throws(() => c.aipOpen(bob, aliceDoc, old), { name: "InputError", message: /did:aip is required/ });
  // Freshness at the clock by default: a 2019 envelope is refused.
  assert.throws(() => c.aipOpen(bob, aliceDoc, old, { recipientDid: BOB_DID }), { name: "TemporalError" });
  assert.throws(() => c.aipOpen(bob.withDid(BOB_DID), aliceDoc, old), { name: "TemporalError" });
  assert.equal(c.aipOpen(bob, aliceDoc, old, { recipientDid: BOB_DID, skipFreshness: true }).bodyJson, '{"offer":3}');
  assert.equal(c.aipOpen(bob, aliceDoc, old, { anyRecipient: true, skipFreshness: true }).bodyJson, '{"offer":3}');
  assert.throws(() => c.aipOpen(bob, aliceDoc, old, { recipientDid: BOB_DID, anyRecipient: true }), { name: "InputError" });
  const obj = JSON.parse(old);
  const eb = obj.encrypted_body;
  const tampered = JSON.stringify({ ...obj, encrypted_body: eb.slice(0, 10) + (eb[10] === "A" ? "B" : "A") + eb.slice(11) });
  // Stale and tampered: the signature is checked first, as on every surface.
  assert.throws(() => c.aipOpen(bob, aliceDoc, tampered, { recipientDid: BOB_DID }), { name: "SignatureError", code: "CONCORDIA_SIGNATURE" });
});

test("aipVcVerifyProof", () => {
  const issuer = aipKeys("registry").signingKey();
  const did = c.aipDidKey(issuer);
  const signed = c.aipVcIssue(issuer, credential(did), "2026-01-01T00:00:00Z");
  assert.deepEqual(c.aipVcVerifyProof(signed), {
    verificationMethod: JSON.parse(signed).proof.verificationMethod,
    publicKey: issuer.publicKey(),
  });
  const tampered = JSON.parse(signed);
  tampered.validFrom = "2026-01-02T00:00:00Z";
  assert.throws(() => c.aipVcVerifyProof(JSON.stringify(tampered)), { name: "SignatureError" });
  assert.throws(() => c.aipVcVerifyProof(credential(did)), { name: "SchemaError" });
});
