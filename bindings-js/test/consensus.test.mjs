// Consensus venue primitives: digests (node:crypto and the canonicalize package as
// oracles), invitations, room commands, artifacts, and every error class they raise.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import canonicalizeOracle from "canonicalize";

import * as c from "../node.js";
import { CLI, ROOT, sha256Hex } from "./helpers.mjs";

const INV_ID = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f";
const SECRET = "6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA";
const PROOF = "ep_private_proof_123";

function email(inviteUri, href) {
  const block = JSON.stringify(
    {
      schema: "https://consensus.md/schemas/invitation-email/v1",
      invitation_id: INV_ID,
      invite_uri: inviteUri ?? `https://consensus.md/i/${INV_ID}#secret=${SECRET}`,
      agent_exchange: { method: "POST", href: href ?? `https://consensus.md/api/v1/agent/invitations/${INV_ID}/exchange` },
      agent_claim: { email_proof: PROOF, meaning: "A private proof." },
    },
    null,
    2,
  );
  return `Hello agent,\r\n\r\n---BEGIN CONSENSUS INVITATION V1---\r\n${block}\r\n---END CONSENSUS INVITATION V1---\r\n\r\n-- Consensus\r\n`;
}

test("revision and Markdown digests", () => {
  const rev = '{"title": "Lease", "clauses": [{"n": 1, "text": "Rent 1200"}], "revision": 3}';
  const d = c.consensusRevisionDigest(rev);
  assert.equal(d, sha256Hex(canonicalizeOracle(JSON.parse(rev))));
  assert.equal(c.consensusVerifyRevision(rev, d), d);
  assert.equal(c.consensusVerifyRevision(rev, "sha256:" + d), d);
  // RFC 8785's number domain: a big integer is read as the nearest double, as JavaScript does.
  assert.equal(c.consensusRevisionDigest("[9007199254740993]"), sha256Hex(canonicalizeOracle(JSON.parse("[9007199254740993]"))));
  const md = "# Agreement\r\n\nRent: 1200\n";
  assert.equal(c.consensusMarkdownDigest(md), sha256Hex(md));
  assert.equal(c.consensusVerifyMarkdown(md, c.consensusMarkdownDigest(md)), sha256Hex(md));
  assert.throws(() => c.consensusVerifyRevision(rev, "0".repeat(64)), { name: "DigestError", code: "CONCORDIA_DIGEST", message: /revision/ });
  assert.throws(() => c.consensusVerifyMarkdown(md + " ", c.consensusMarkdownDigest(md)), { name: "DigestError", message: /markdown/ });
  assert.throws(() => c.consensusVerifyRevision(rev, d.toUpperCase()), { name: "DigestError" });
  assert.throws(() => c.consensusVerifyMarkdown(md, "xyz"), { name: "InputError" });
  assert.throws(() => c.consensusRevisionDigest('{"a":1,"a":2}'), { name: "InputError", message: /malformed JSON/ });
});

test("invitations: checks, no secrets, every refusal", () => {
  const s = c.consensusParseInvitation(email());
  assert.deepEqual(s, {
    invitationId: INV_ID,
    exchangeHref: `https://consensus.md/api/v1/agent/invitations/${INV_ID}/exchange`,
    checks: { https: true, origin: true, noQuery: true, uuids: true, secret: true },
    valid: true,
  });
  assert.ok(!JSON.stringify(s).includes(SECRET) && !JSON.stringify(s).includes(PROOF));
  assert.deepEqual(c.consensusValidateInvitation(email(), "https://consensus.md"), s);
  const http = email(`http://consensus.md/i/${INV_ID}#secret=${SECRET}`);
  assert.equal(c.consensusParseInvitation(http).checks.https, false);
  assert.throws(() => c.consensusValidateInvitation(http), { name: "BindingError", message: /https/ });
  assert.throws(() => c.consensusValidateInvitation(email(), "https://example.org"), { name: "BindingError", message: /origin/ });
  const query = email(undefined, `https://consensus.md/api/v1/agent/invitations/${INV_ID}/exchange?x=1`);
  assert.throws(() => c.consensusValidateInvitation(query), { name: "PrivacyError", code: "CONCORDIA_PRIVACY", message: /query/ });
  const nosecret = email(`https://consensus.md/i/${INV_ID}#secret=a`);
  assert.equal(c.consensusParseInvitation(nosecret).valid, false);
  assert.throws(() => c.consensusValidateInvitation(nosecret), { name: "InputError", message: /secret/ });
  assert.throws(() => c.consensusParseInvitation("no invitation here"), { name: "SchemaError", message: /markers/ });
  assert.throws(() => c.consensusParseInvitation("x".repeat(256 * 1024 + 1)), { name: "LimitError" });
  assert.throws(() => c.consensusParseInvitation(email(), "ftp://consensus.md"), { name: "InputError", message: /origin/ });
});

test("room commands and their idempotency keys", () => {
  const d = sha256Hex("# Agreement\n");
  const agree = c.consensusBuildCommand("agree", "", 1, d);
  assert.equal(agree.action, "agree");
  assert.equal(agree.revision, 1);
  assert.equal(agree.wireBody, JSON.stringify({ action: "agree", body: "", digest: d, revision: 1 }));
  assert.match(agree.idempotencyKey, /^cns1:[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(c.consensusBuildCommand("agree", "", 1, "sha256:" + d), agree);
  assert.deepEqual(c.consensusParseCommand(agree.wireBody), agree);
  const comment = c.consensusBuildCommand("comment", "Looks good, é", 2, d);
  assert.notEqual(comment.idempotencyKey, agree.idempotencyKey);
  assert.deepEqual(c.consensusParseCommand(comment.wireBody), comment);
  for (const action of ["question", "change_request"]) c.consensusBuildCommand(action, "why?", 1, d);
  for (const action of ["disagree", "abstain"]) c.consensusBuildCommand(action, "", 1, d);
  assert.throws(() => c.consensusBuildCommand("approve", "", 1, d), { name: "SchemaError", message: /action/ });
  assert.throws(() => c.consensusBuildCommand("agree", "yes", 1, d), { name: "SchemaError", message: /empty body/ });
  assert.throws(() => c.consensusBuildCommand("comment", "x".repeat(4001), 1, d), { name: "SchemaError", message: /4000/ });
  assert.throws(() => c.consensusBuildCommand("comment", "x", 0, d), { name: "SchemaError", message: /revision/ });
  assert.throws(() => c.consensusBuildCommand("comment", "x", 1.5, d), { name: "InputError" });
  assert.throws(() => c.consensusBuildCommand("comment", "x", 1, "abc"), { name: "InputError" });
  assert.throws(() => c.consensusParseCommand(`{"action":"agree","body":"","digest":"${d}","revision":1,"x":1}`), {
    name: "SchemaError",
    message: /unknown member/,
  });
  assert.throws(() => c.consensusParseCommand(" ".repeat(30000)), { name: "LimitError" });
});

test("CONSENSUS.md artifacts", () => {
  const body = new TextEncoder().encode("# CONSENSUS\n\nReached on revision 3.\n");
  const digest = createHash("sha256").update(body).digest();
  const field = `sha-256=:${digest.toString("base64")}:`;
  assert.equal(c.consensusVerifyArtifact(body, field, digest.toString("hex"), "reached"), digest.toString("hex"));
  assert.equal(c.consensusVerifyArtifact(body, "md5=:AAAA:, " + field, digest.toString("hex"), "reached"), digest.toString("hex"));
  for (const outcome of ["pending", "disagreed", "no_consensus", "expired"]) {
    assert.throws(() => c.consensusVerifyArtifact(body, field, digest.toString("hex"), outcome), {
      name: "TransitionError",
    });
  }
  const more = new Uint8Array([...body, 32]);
  assert.throws(() => c.consensusVerifyArtifact(more, field, digest.toString("hex"), "reached"), {
    name: "DigestError",
    message: /content-digest/,
  });
  assert.throws(() => c.consensusVerifyArtifact(body, "md5=:AAAA:", digest.toString("hex"), "reached"), { name: "SchemaError" });
  assert.throws(() => c.consensusVerifyArtifact(body, field, digest.toString("hex").toUpperCase(), "reached"), {
    name: "InputError",
  });
  assert.throws(() => c.consensusVerifyArtifact(body, field, digest.toString("hex"), "done"), { name: "SchemaError" });
});

/** The example room log, the same cut short (expired at `now`), and one with refused events
 * (a stale digest, an unknown participant, a malformed command), each with the time it is judged at. */
function roomCases() {
  const room = JSON.parse(readFileSync(join(ROOT, "examples", "consensus", "room.json"), "utf8"));
  const stale = structuredClone(room);
  stale.events[3].digest = "0".repeat(64);
  stale.events.push({ participant: "ghost", action: "agree", body: "", revision: 1, digest: room.digest, at: "2026-09-06T12:08:00Z" });
  stale.events.push({ participant: "dana", action: "agree" });
  return [
    [room, "2026-09-07T00:00:00Z"],
    [{ ...room, events: room.events.slice(0, 2) }, "2026-09-11T00:00:00Z"],
    [stale, "2026-09-07T00:00:00Z"],
  ];
}

test("consensusRoomOutcome matches `concordia consensus outcome`", () => {
  const dir = mkdtempSync(join(tmpdir(), "concordia-js-room-"));
  let got;
  for (const [r, now] of roomCases()) {
    writeFileSync(join(dir, "room.json"), JSON.stringify(r));
    const out = spawnSync(CLI, ["consensus", "outcome", join(dir, "room.json"), "--now", now], { encoding: "utf8" });
    got = c.consensusRoomOutcome(JSON.stringify(r), new Date(now));
    assert.equal(got.outcome, out.stdout.trim());
    assert.deepEqual(
      got.refused.map((e) => `event ${e.index}: ${e.message}`),
      out.stderr.split("\n").filter((l) => l.startsWith("event ")),
    );
  }
  assert.deepEqual(got.refused[0], { index: 3, status: 409, reason: "stale_digest", message: "409 stale_digest" });
  assert.equal(got.outcome, "pending");
  assert.equal(got.accepted, 3);
  assert.throws(() => c.consensusRoomOutcome(JSON.stringify({ ...roomCases()[0][0], events: {} }), new Date()), { name: "SchemaError" });
  assert.throws(() => c.consensusRoomOutcome("[", new Date()), { name: "InputError" });
});

test("ConsensusRoom: command by command, as consensusRoomOutcome and `concordia consensus outcome` replay it", () => {
  const dir = mkdtempSync(join(tmpdir(), "concordia-js-live-room-"));
  for (const [doc, now] of roomCases()) {
    const live = new c.ConsensusRoom(doc.revision, doc.digest, new Date(doc.deadline), doc.roster);
    const refused = [];
    doc.events.forEach((ev, i) => {
      const wire = JSON.stringify(Object.fromEntries(["action", "body", "revision", "digest"].filter((k) => k in ev).map((k) => [k, ev[k]])));
      const r = live.apply(ev.participant, wire, ev.idempotency_key, new Date(ev.at ?? "2026-09-06T12:00:00Z"));
      if (r.refused !== undefined) {
        assert.equal(r.event, undefined);
        assert.ok(r.refused.startsWith(String(r.status)));
        refused.push(i);
      }
    });
    const want = c.consensusRoomOutcome(JSON.stringify(doc), new Date(now));
    writeFileSync(join(dir, "room.json"), JSON.stringify(doc));
    const cli = spawnSync(CLI, ["consensus", "outcome", join(dir, "room.json"), "--now", now], { encoding: "utf8" });
    assert.equal(live.outcome(new Date(now)), want.outcome);
    assert.equal(want.outcome, cli.stdout.trim());
    assert.deepEqual(refused, want.refused.map((e) => e.index));
    assert.equal(live.eventCount(), want.accepted);
    live.free();
  }
});

test("ConsensusRoom: statuses and refusals as the venue answers them", () => {
  const D = "a39a0a21abf129e36aac6299298167f0f0ee3f6dbca6bbecc8079ec894131099";
  const roster = [{ id: "dana", kind: "human" }, { id: "bot", kind: "agent" }];
  const room = new c.ConsensusRoom(1, D, new Date("2026-09-10T00:00:00Z"), roster);
  const agree = c.consensusBuildCommand("agree", "", 1, D);
  const t = new Date("2026-09-06T12:00:00Z");
  assert.deepEqual(room.apply("dana", agree.wireBody, undefined, t), { status: 201, event: 0, outcome: "pending" });
  assert.deepEqual(room.apply("dana", agree.wireBody, agree.idempotencyKey, t), { status: 200, event: 0, outcome: "pending" });
  const disagree = c.consensusBuildCommand("disagree", "", 1, D);
  assert.equal(room.apply("dana", disagree.wireBody, undefined, t).refused, "409 duplicate_decision");
  assert.equal(room.apply("eve", agree.wireBody, undefined, t).refused, "404 not_found");
  assert.equal(room.apply("bot", '{"action":"agree"}', undefined, t).status, 400);
  assert.equal(room.apply("bot", c.consensusBuildCommand("agree", "", 1, "0".repeat(64)).wireBody, undefined, t).refused, "409 stale_digest");
  assert.equal(room.eventCount(), 1); // refusals changed nothing
  assert.deepEqual(room.apply("bot", agree.wireBody, undefined, t), { status: 201, event: 1, outcome: "reached" });
  assert.equal(room.outcome(t), "reached");
  const late = new c.ConsensusRoom(1, D, new Date("2026-09-10T00:00:00Z"), roster);
  assert.equal(late.outcome(new Date("2026-09-09T23:59:59Z")), "pending");
  assert.equal(late.apply("dana", agree.wireBody, undefined, new Date("2026-09-10T00:00:00Z")).refused, "409 expired");
  assert.equal(late.outcome(new Date("2026-09-10T00:00:00Z")), "expired");
  assert.equal(late.eventCount(), 0);
  const deadline = new Date(0);
  assert.throws(() => new c.ConsensusRoom(1, D, deadline, [{ id: "bot", kind: "agent" }, { id: "bot2", kind: "agent" }]), { name: "SchemaError" });
  assert.throws(() => new c.ConsensusRoom(1, D, deadline, [{ id: "dana", kind: "robot" }, roster[1]]), { name: "SchemaError" });
  assert.throws(() => new c.ConsensusRoom(0, D, deadline, roster), { name: "SchemaError" });
  assert.throws(() => new c.ConsensusRoom(1, "xyz", deadline, roster), { name: "InputError", code: "CONCORDIA_ENCODING" });
  assert.throws(() => new c.ConsensusRoom(1.5, D, deadline, roster), { name: "InputError" });
  assert.throws(() => new c.ConsensusRoom(1, D, deadline, "dana"), { name: "InputError" });
  assert.throws(() => new c.ConsensusRoom(1, D, deadline, [{ id: "dana" }, roster[1]]), { name: "InputError" });
  room.free();
  assert.throws(() => room.outcome(t));
});
