// Issue 32 classes 10 and 12 on the npm package: no inspection or error shows a secret, and
// an invitation whose exchange URL carries a query or fragment is shown redacted.
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { test } from "node:test";

import * as c from "../node.js";

const INV_ID = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f";
const SECRET = "6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA";
const HREF = `https://consensus.md/api/v1/agent/invitations/${INV_ID}/exchange`;

function email(href) {
  const block = JSON.stringify({
    schema: "https://consensus.md/schemas/invitation-email/v1",
    invitation_id: INV_ID,
    invite_uri: `https://consensus.md/i/${INV_ID}#secret=${SECRET}`,
    agent_exchange: { method: "POST", href },
    agent_claim: { email_proof: "ep_private_proof_123" },
  });
  return `---BEGIN CONSENSUS INVITATION V1---\n${block}\n---END CONSENSUS INVITATION V1---\n`;
}

test("an exchange URL with a query or fragment is redacted", () => {
  for (const [tail, shown] of [
    [`?secret=${SECRET}`, "?<redacted>"],
    [`#secret=${SECRET}`, "#<redacted>"],
    [`?a=1#secret=${SECRET}`, "?<redacted>#<redacted>"],
  ]) {
    const s = c.consensusParseInvitation(email(HREF + tail));
    assert.equal(s.checks.noQuery, false);
    assert.equal(s.exchangeHref, HREF + shown);
    assert.ok(!JSON.stringify(s).includes(SECRET));
    assert.throws(() => c.consensusValidateInvitation(email(HREF + tail)), (e) => e.name === "PrivacyError" && !String(e.message).includes(SECRET));
  }
});

const hex = (b) => Buffer.from(b).toString("hex");

test("no inspection or key file error shows a secret", () => {
  const seed = new Uint8Array(32).map((_, i) => i + 1);
  const kp = c.AipKeyPair.fromSeeds(seed, seed);
  const ed = c.KeyPair.fromSeed(seed);
  for (const o of [kp, ed, c.AipKeyPair.generate()]) {
    for (const shown of [inspect(o, { showHidden: true, depth: 5 }), String(o), JSON.stringify(o) ?? ""]) {
      assert.ok(!shown.includes(hex(seed)) && !shown.includes(hex(seed).slice(0, 16)), shown);
    }
  }
  const file = JSON.parse(kp.keyFileJson());
  const bad = { ...file, x25519_secret_hex: file.x25519_secret_hex.slice(0, -2) + "zz" };
  assert.throws(() => c.AipKeyPair.fromKeyFile(JSON.stringify(bad)), (e) => !String(e.message).includes(file.x25519_secret_hex.slice(0, 16)));
  // The keys still read back after the arguments were erased on the Rust side.
  assert.deepEqual(c.AipKeyPair.fromKeyFile(kp.keyFileJson()).x25519Secret(), seed);
  assert.deepEqual(c.KeyPair.fromSeed(seed).seed(), seed);
});
