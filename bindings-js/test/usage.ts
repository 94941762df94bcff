// Compiled by test/types.test.mjs with `tsc --strict --noEmit`: the README's examples and
// one call of each kind type-check against index.d.ts through the package's own name (so
// package.json's `exports` "types" condition is used too).
import {
  AipKeyPair,
  AipReplayWindow,
  ConcordiaError,
  InputError,
  KeyPair,
  Session,
  TranscriptVerifier,
  aipOpen,
  canonicalize,
  consensusBuildCommand,
  generateAttestation,
  verifyProfile,
  verifySignature,
  verifyTranscript,
  type ErrorClass,
  type SessionState,
} from "concordia-rs";
const REPLAY_FROM = "did:aip:aigentix.org:alice";

const kp: KeyPair = KeyPair.generate();
const signed: string = kp.signObject('{"offer": {"price": 2050}}');
verifySignature(signed, kp.publicKeyB64url());
const summary: { count: number; head: string } = verifyTranscript("[]", "{}");
const v = new TranscriptVerifier("{}");
const n: number = v.count() + summary.count;
try {
  canonicalize('{"a": 1, "a": 2}');
} catch (e) {
  if (e instanceof InputError) {
    const klass: ErrorClass = e.class;
    const offset: number | undefined = e.offset;
    console.log(e.code, klass, offset, e instanceof ConcordiaError);
  }
}
const s = new Session("ses_1", new Date(), { maxRounds: 5 });
s.addParty("a", "initiator");
const state: SessionState = s.state();
const att: string = generateAttestation(
  s,
  { attestationId: "att_1", now: Date.now(), validity: { kind: "relative", from: new Date(), durationSeconds: 60 } },
  [{ agentId: "a", keyPair: kp }],
);
verifyProfile("receipt-v1", "{}", "{}");
const cmd = consensusBuildCommand("agree", "", 1, "0".repeat(64));
const w = new AipReplayWindow("small");
const aip = AipKeyPair.fromSeeds(new Uint8Array(32), new Uint8Array(32)).withDid("did:aip:example.com:a");
const opened: { bodyJson: string } = aipOpen(aip, "{}", "{}", { now: new Date(), window: w, anyRecipient: true });
console.log(n, state, att, cmd.idempotencyKey, opened.bodyJson, aip.did());
