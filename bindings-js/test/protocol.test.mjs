// Profiles (the whole conformance suite), transcripts, sessions and attestations, on the
// output of the release CLI's `concordia demo`, and interop with the CLI both ways.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { readFileSync } from "node:fs";

import * as c from "../node.js";
import { BUYER, ROOT, SELLER, START, at, cli, demo, derive, hex, rawMember } from "./helpers.mjs";

let d;
before(() => {
  d = demo();
});

const demoKeyPair = (label) => c.KeyPair.fromSeed(derive(label));
const GENESIS = "sha256:" + "0".repeat(64);

test("the conformance suite through verifyProfile: the Rust runner's summary line", () => {
  const names = c.profileNames();
  assert.equal(names.length, 22);
  assert.equal(names[0], "decision-object-v1");
  const manifest = JSON.parse(readFileSync(join(ROOT, "conformance/vectors/manifest.json"), "utf8"));
  const counts = { positive: 0, mutation: 0, canary: 0 };
  let ok = 0;
  let fail = 0;
  let withClass = 0;
  let classAgree = 0;
  const misses = [];
  for (const section of ["positive", "mutation", "canary"]) {
    for (const rel of manifest.files[section]) {
      counts[section]++;
      const text = readFileSync(join(ROOT, rel), "utf8");
      const vector = JSON.parse(text);
      let got = "accept";
      let klass;
      try {
        // The vector's own bytes, as the Rust runner reads them.
        c.verifyProfile(vector.verification_profile, rawMember(text, "input"), rawMember(text, "context"));
      } catch (e) {
        assert.ok(e instanceof c.ConcordiaError, String(e));
        got = "reject";
        klass = e.class;
      }
      if (got === vector.expected) ok++;
      else {
        fail++;
        misses.push(`[FAIL] ${vector.id} expected=${vector.expected} got=${got}`);
      }
      if (got === "reject" && vector.expected_reason_class) {
        withClass++;
        if (klass === vector.expected_reason_class) classAgree++;
      }
    }
  }
  const line = `[SUMMARY] positive=${counts.positive} mutation=${counts.mutation} canary=${counts.canary} ok=${ok} fail=${fail}`;
  for (const m of misses) console.log(m);
  console.log(line);
  console.log(`[CLASSES] rejections with expected_reason_class=${withClass} agreeing=${classAgree}`);
  // The Rust runner's line (`concordia conformance`), computed in the same run.
  const rust = cli(["conformance", join(ROOT, "conformance/vectors")]).trim().split("\n").at(-1);
  assert.equal(line, rust);
  assert.equal(line, "[SUMMARY] positive=53 mutation=1488 canary=5 ok=1546 fail=0");
  assert.throws(() => c.verifyProfile("no-such-profile-v1", "{}", "{}"), {
    name: "InputError",
    code: "CONCORDIA_INVALID_ARGUMENT",
    message: /unknown verification profile/,
  });
});

test("TranscriptVerifier on the demo transcript", () => {
  const att = JSON.parse(d.attestation);
  const v = new c.TranscriptVerifier(d.keys);
  assert.equal(v.count(), 0);
  assert.equal(v.head(), GENESIS);
  const hashes = d.messages.map((m) => v.push(m));
  assert.deepEqual(hashes, d.messages.map((m) => c.hash(m)));
  assert.equal(v.count(), 6);
  assert.equal(att.message_count, 6);
  assert.equal(v.head(), att.chain_head);
  // A failed push leaves the verifier unchanged.
  assert.throws(() => v.push(d.messages[0]), {
    name: "BindingError",
    code: "CONCORDIA_BINDING",
    sdkException: "ChainIntegrityError",
  });
  assert.equal(v.count(), 6);
  assert.deepEqual(c.verifyTranscript(d.transcript, d.keys), { count: 6, head: att.chain_head });
  assert.deepEqual(c.verifyTranscript(`{"messages": ${d.transcript}}`, d.keys), { count: 6, head: att.chain_head });
  assert.deepEqual(c.verifyTranscript("[]", d.keys), { count: 0, head: GENESIS });
  const swapped = `[${d.messages[0]},${d.messages[2]}]`;
  assert.throws(() => c.verifyTranscript(swapped, d.keys), { name: "BindingError", message: /^message 1: / });
  assert.throws(() => new c.TranscriptVerifier("[]"), { name: "SchemaError", message: /keys must be an object/ });
  assert.throws(() => c.verifyTranscript('{"messages": 1}', d.keys), { name: "SchemaError" });
  assert.throws(() => c.verifyTranscript(d.transcript + ",", d.keys), {
    name: "InputError",
    offset: Buffer.byteLength(d.transcript),
  });
  // Each error class a transcript can raise.
  assert.throws(() => new c.TranscriptVerifier(d.keys).push('{"a":'), { name: "InputError" });
  assert.throws(() => new c.TranscriptVerifier(d.keys).push("{}"), { name: "SchemaError" });
  assert.throws(() => new c.TranscriptVerifier(d.keys).push(d.messages[0].replace("2200", "2100")), {
    name: "SignatureError",
    code: "CONCORDIA_SIGNATURE",
  });
  assert.throws(() => new c.TranscriptVerifier("{}").push(d.messages[0]), {
    name: "SignatureError",
    code: "CONCORDIA_UNKNOWN_KEY",
    message: /no public key/,
  });
});

test("signEnvelope reproduces the demo's first message byte for byte", () => {
  const first = JSON.parse(d.messages[0]);
  const env = {
    messageType: first.type,
    id: first.id,
    sessionId: first.session_id,
    timestamp: first.timestamp,
    from: { agentId: first.from.agent_id },
    to: first.to.map((p) => ({ agentId: p.agent_id })),
    body: JSON.stringify(first.body),
    reasoning: first.reasoning,
  };
  assert.equal(demoKeyPair("seller").signEnvelope(env), d.messages[0]);
  const env2 = {
    messageType: "negotiate.signal",
    id: "msg_x",
    sessionId: "ses_x",
    timestamp: "2026-01-02T03:04:05Z",
    from: { agentId: "a", principalId: "p" },
    body: "{}",
    prevHash: c.hash(d.messages[0]),
    inReplyTo: "msg_y",
    ttl: 60,
    concordia: "0.1.0",
  };
  const msg = JSON.parse(demoKeyPair("seller").signEnvelope(env2));
  assert.deepEqual(msg.from, { agent_id: "a", principal_id: "p" });
  assert.equal(msg.ttl, 60);
  assert.equal(msg.prev_hash, c.hash(d.messages[0]));
  assert.ok(!("to" in msg) && !("reasoning" in msg));
  c.verifySignature(JSON.stringify(msg), demoKeyPair("seller").publicKeyB64url());
  assert.throws(() => demoKeyPair("seller").signEnvelope({ ...env2, prevHash: "sha256:xyz" }), { code: "CONCORDIA_ENCODING" });
  assert.throws(() => demoKeyPair("seller").signEnvelope({ ...env2, ttl: 2 ** 60 }), { code: "CONCORDIA_INVALID_ARGUMENT" });
  assert.throws(() => demoKeyPair("seller").signEnvelope({ ...env2, id: 7 }), { name: "InputError", message: /envelope.id/ });
  assert.throws(() => demoKeyPair("seller").signEnvelope({ ...env2, body: "{" }), { name: "InputError" });
});

function replay(registerKeys) {
  const sid = JSON.parse(d.messages[0]).session_id;
  const s = new c.Session(sid, START, { sessionTtl: 86400, offerTtl: 3600, maxRounds: 20 });
  s.addParty(SELLER, "initiator", registerKeys ? demoKeyPair("seller").publicKeyB64url() : undefined);
  s.addParty(BUYER, "responder", registerKeys ? demoKeyPair("buyer").publicKeyB64url() : undefined);
  const states = d.messages.map((m, i) => s.apply(m, at(i), registerKeys ? undefined : d.keys));
  return { s, states };
}

test("Session replays the demo", () => {
  const att = JSON.parse(d.attestation);
  for (const register of [true, false]) {
    const { s, states } = replay(register);
    assert.deepEqual(states, ["proposed", "active", "active", "active", "active", "agreed"]);
    assert.equal(s.state(), "agreed");
    assert.equal(s.roundCount(), 3);
    assert.equal(s.messageCount(), 6);
    assert.equal(s.tip(), att.chain_head);
    assert.match(s.transcriptHash(), /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(s.transcriptHash(), s.tip());
    assert.deepEqual(s.timing(), { sessionTtl: 86400, offerTtl: 3600, maxRounds: 20 });
    assert.deepEqual(s.createdAt(), START);
    assert.deepEqual(s.concludedAt(), at(5));
    assert.equal(s.isReactivatable(), false);
    const [seller, buyer] = s.parties();
    assert.equal(seller.agentId, SELLER);
    assert.equal(seller.role, "initiator");
    assert.equal(buyer.role, "responder");
    assert.equal(seller.offersMade, 2);
    assert.equal(buyer.offersMade, 1);
    assert.equal(buyer.reasoningProvided, true);
    assert.equal(seller.publicKey !== undefined, register);
    assert.deepEqual([seller.concessions, buyer.concessions, seller.concessionMagnitude], [0, 0, 0]);
    assert.equal(buyer.withdrawal, false);
    // A message after AGREED is refused and leaves the session as it was.
    assert.throws(() => s.apply(d.messages[5], at(6), d.keys), c.ConcordiaError);
    assert.equal(s.messageCount(), 6);
  }
});

test("Session errors, expiry and dormancy", () => {
  const s = new c.Session("ses_exp", START);
  assert.deepEqual(s.timing(), { sessionTtl: 86400, offerTtl: 3600, maxRounds: 20 });
  assert.equal(s.concludedAt(), undefined);
  assert.equal(s.id(), "ses_exp");
  s.addParty(SELLER, "mediator");
  s.addParty(SELLER, "initiator");
  assert.deepEqual(s.parties().map((p) => p.role), ["initiator"]);
  s.expire(new Date(START.getTime() + 2 * 86400_000));
  assert.equal(s.state(), "expired");
  s.makeDormant();
  assert.equal(s.state(), "dormant");
  assert.equal(s.isReactivatable(), true);
  assert.throws(() => s.expire(START), { name: "TransitionError", code: "CONCORDIA_TRANSITION" });
  assert.throws(() => new c.Session("x".repeat(129), START), { name: "InputError", message: /too long/ });
  assert.throws(() => s.addParty("x", "witness", "not a key"), { name: "InputError" });
  assert.throws(() => s.addParty("x", "judge"), { name: "InputError", message: /role/ });
  assert.throws(() => new c.Session("s", "yesterday"), { name: "InputError", message: /Date/ });
  assert.throws(() => new c.Session("s", START, { maxRounds: -1 }), { name: "InputError" });
  // Limit: a ninth party.
  const full = new c.Session("ses_limit", START);
  for (let i = 0; i < 8; i++) full.addParty(`agent-${i}`, "witness");
  assert.throws(() => full.addParty("agent-8", "witness"), { name: "LimitError", code: "CONCORDIA_LIMIT_CAPACITY" });
  // Temporal: the open applied after the session TTL; a time given as milliseconds.
  const t = new c.Session(JSON.parse(d.messages[0]).session_id, START);
  assert.throws(() => t.apply(d.messages[0], START.getTime() + 2 * 86400_000, d.keys), {
    name: "TemporalError",
    message: /session expired/,
  });
  // Transition: max_rounds (1 round: the offer passes, the first counter does not).
  const r = new c.Session(JSON.parse(d.messages[0]).session_id, START, { maxRounds: 1 });
  for (let i = 0; i < 3; i++) r.apply(d.messages[i], at(i), d.keys);
  assert.equal(JSON.parse(d.messages[3]).type, "negotiate.counter");
  assert.throws(() => r.apply(d.messages[3], at(3), d.keys), {
    name: "TransitionError",
    code: "CONCORDIA_MAX_ROUNDS",
    sdkException: "MaxRoundsExceededError",
  });
  assert.throws(() => r.apply(d.messages[2], at(2), "[]"), { name: "SchemaError", message: /keys must be an object/ });
});

function demoParams() {
  const end = new Date(START.getTime() + 45_000 * 7);
  return {
    attestationId: "att_" + hex(derive("attestation").subarray(0, 4)),
    now: end,
    validity: { kind: "absolute", from: end, until: new Date(end.getTime() + 90 * 86400_000) },
    resolutionMechanism: "direct",
    category: "electronics.cameras",
    valueRange: "1000-5000_USD",
  };
}

test("generateAttestation matches the CLI's byte for byte", () => {
  const { s } = replay(true);
  const signers = [
    { agentId: SELLER, keyPair: demoKeyPair("seller") },
    { agentId: BUYER, keyPair: demoKeyPair("buyer") },
  ];
  const att = c.generateAttestation(s, demoParams(), signers);
  assert.equal(att, d.attestation.replace(/\n$/, ""));
  assert.deepEqual(c.verifyAttestation(att, d.keys, d.transcript), { parties: 2, countersignatures: 2, binding: "bound" });
  // The signers' key pairs are still theirs.
  assert.equal(signers[0].keyPair.publicKeyB64url(), demoKeyPair("seller").publicKeyB64url());
  const half = JSON.parse(c.generateAttestation(s, demoParams(), signers.slice(0, 1)));
  assert.deepEqual(Object.keys(half.countersignatures).sort(), [SELLER]);
  for (const validity of [
    { kind: "relative", from: at(6), durationSeconds: 3600 },
    { kind: "window", start: at(6), end: new Date(at(6).getTime() + 30 * 86400_000), durationSeconds: 86400 },
  ]) {
    c.verifyAttestation(c.generateAttestation(s, { ...demoParams(), validity }, signers), d.keys);
  }
  assert.throws(() => c.generateAttestation(s, { ...demoParams(), attestationId: "att $2050" }, signers), {
    name: "PrivacyError",
    code: "CONCORDIA_PRIVACY",
  });
  assert.throws(() => c.generateAttestation(s, { ...demoParams(), resolutionMechanism: "coin-toss" }, signers), {
    name: "InputError",
  });
  assert.throws(() => c.generateAttestation(s, { ...demoParams(), validity: { kind: "forever" } }, signers), {
    name: "InputError",
    message: /validity.kind/,
  });
  assert.throws(() => c.generateAttestation(s, demoParams(), [{ agentId: SELLER, keyPair: {} }]), {
    name: "InputError",
    message: /signer/,
  });
  const open = new c.Session("ses_open", START);
  assert.throws(() => c.generateAttestation(open, demoParams(), signers), {
    name: "TransitionError",
    message: /concluded/,
    sdkException: "ValueError",
  });
});

test("verifyAttestation on the demo's attestation", () => {
  assert.equal(c.verifyAttestation(d.attestation, d.keys, d.transcript).binding, "bound");
  assert.deepEqual(c.verifyAttestation(d.attestation, d.keys), { parties: 2, countersignatures: 2, binding: "unchecked" });
  const legacy = JSON.parse(d.attestation);
  legacy.concordia_attestation = "0.2.0";
  assert.throws(() => c.verifyAttestation(JSON.stringify(legacy), d.keys), c.ConcordiaError);
  const short = `[${d.messages.slice(0, 5).join(",")}]`;
  assert.throws(() => c.verifyAttestation(d.attestation, d.keys, short), { name: "BindingError" });
  const tampered = JSON.parse(d.attestation);
  tampered.message_count = 7;
  assert.throws(() => c.verifyAttestation(JSON.stringify(tampered), d.keys), { name: "SignatureError" });
  assert.throws(() => c.verifyAttestation("{}", d.keys), { name: "SchemaError" });
  assert.throws(() => c.verifyAttestation(d.attestation, "[]"), { name: "SchemaError" });
});

test("a digest mismatch is a DigestError (a mutation vector of that class)", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "conformance/vectors/manifest.json"), "utf8"));
  for (const rel of manifest.files.mutation) {
    const text = readFileSync(join(ROOT, rel), "utf8");
    const v = JSON.parse(text);
    if (v.expected_reason_class !== "digest") continue;
    try {
      c.verifyProfile(v.verification_profile, rawMember(text, "input"), rawMember(text, "context"));
    } catch (e) {
      if (e instanceof c.DigestError) {
        assert.equal(e.code, "CONCORDIA_DIGEST");
        return;
      }
    }
  }
  assert.fail("no mutation vector is rejected with class digest");
});

test("interop with the CLI: signed here, verified there; signed there, verified here", () => {
  const kp = c.KeyPair.fromSeed(derive("interop"));
  const signed = kp.signObject('{"offer": {"price": 2050}, "note": "caf\\u00e9"}');
  const file = join(d.dir, "signed-by-js.json");
  writeFileSync(file, signed);
  assert.match(cli(["verify", "--public-key", kp.publicKeyB64url(), file]), /^ok: signature valid/);
  assert.equal(cli(["hash", file]).trim(), c.hash(signed));
  assert.equal(cli(["jcs", file]), c.canonicalize(signed));
  // The CLI's key and signature, checked here.
  const keyFile = join(d.dir, "cli-key.json");
  writeFileSync(keyFile, cli(["keygen", "--seed", hex(derive("cli"))]));
  const key = JSON.parse(readFileSync(keyFile, "utf8"));
  const input = join(d.dir, "to-sign.json");
  writeFileSync(input, '{"b": [1, 2.5, "x"], "a": null}');
  const byCli = cli(["sign", "--key", keyFile, input]);
  const pub = Object.values(key).find((v) => typeof v === "string" && v.length === 44 && v.endsWith("="));
  assert.equal(pub, c.KeyPair.fromSeed(derive("cli")).publicKeyB64url());
  c.verifySignature(byCli, pub);
  assert.equal(byCli.trim(), c.KeyPair.fromSeed(derive("cli")).signObject('{"b": [1, 2.5, "x"], "a": null}'));
  // The CLI verifies the transcript and attestation this package reproduces.
  const transcriptFile = join(d.dir, "transcript-js.json");
  writeFileSync(transcriptFile, `[${replayMessages().join(",")}]`);
  assert.match(cli(["chain", "verify", "--keys", join(d.dir, "keys.json"), transcriptFile]), /^ok: 6 messages/);
});

/** The demo's messages re-signed here from their fields (same keys: the same bytes). */
function replayMessages() {
  return d.messages.map((text, i) => {
    const m = JSON.parse(text);
    return demoKeyPair(m.from.agent_id === SELLER ? "seller" : "buyer").signEnvelope({
      messageType: m.type,
      id: m.id,
      sessionId: m.session_id,
      timestamp: m.timestamp,
      from: { agentId: m.from.agent_id },
      to: (m.to ?? []).map((p) => ({ agentId: p.agent_id })),
      body: JSON.stringify(m.body),
      prevHash: i === 0 ? undefined : m.prev_hash,
      inReplyTo: m.in_reply_to,
      reasoning: m.reasoning,
    });
  });
}
