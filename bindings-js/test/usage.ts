// Compiled by test/types.test.mjs with `tsc --strict --noEmit` (never run): the README's
// examples, and every export of index.d.ts used once (tools/ci/js_types.mjs checks that
// none is left out), type-check through the package's own name (so package.json's
// `exports` "types" condition is used too).
import {
  AipKeyPair,
  AipReplayWindow,
  BindingError,
  ConcordiaError,
  ConsensusRoom,
  DigestError,
  Es256KeyPair,
  InputError,
  KeyPair,
  LimitError,
  PrivacyError,
  RandomnessError,
  ReplayError,
  SchemaError,
  Session,
  SignatureError,
  TemporalError,
  TranscriptVerifier,
  TransitionError,
  aipDidKey,
  aipFinalScore,
  aipHandle,
  aipNewMessageId,
  aipOpen,
  aipParseDidDocument,
  aipParseEnvelope,
  aipParseHandle,
  aipRank,
  aipRrf,
  aipSeal,
  aipSelectRoute,
  aipTrustCeiling,
  aipTrustScore,
  aipTrustUpdate,
  aipVcIssue,
  aipVcVerify,
  aipVcVerifyProof,
  aipVerifyEnvelope,
  canonicalize,
  consensusBuildCommand,
  consensusMarkdownDigest,
  consensusParseCommand,
  consensusParseInvitation,
  consensusRevisionDigest,
  consensusRoomOutcome,
  consensusValidateInvitation,
  consensusVerifyArtifact,
  consensusVerifyMarkdown,
  consensusVerifyRevision,
  generateAttestation,
  hash,
  profileNames,
  publicKeyToB64url,
  verifyAttestation,
  verifyDetached,
  verifyProfile,
  verifySignature,
  verifySignatureEs256,
  verifyTranscript,
  version,
  type AipRoute,
  type ConsensusOutcome,
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

// Every other export once, with the declared argument and result types.
function everyExport(e: unknown): void {
  const errors = [BindingError, DigestError, LimitError, PrivacyError, RandomnessError, ReplayError, SchemaError];
  const more = [SignatureError, TemporalError, TransitionError];
  const named: string[] = [...errors, ...more].filter((c) => e instanceof c).map((c) => c.name);
  const v: string = version() + hash("{}") + publicKeyToB64url("AAAA") + profileNames().join();
  const es = Es256KeyPair.fromScalar(new Uint8Array(32));
  verifySignatureEs256(es.signObject("{}"), es.publicKeyB64url());
  verifyDetached(kp.publicKeyB64url(), new Uint8Array(1), kp.sign(new Uint8Array(1)));
  const verified: { parties: number; binding: string } = verifyAttestation("{}", "{}", "[]");
  const digest: string = consensusRevisionDigest("{}") + consensusVerifyRevision("{}", "d");
  const md: string = consensusMarkdownDigest("# a") + consensusVerifyMarkdown("# a", "d");
  const inv: boolean = consensusParseInvitation("mail").valid && consensusValidateInvitation("mail", "https://a").valid;
  const parsed: number = consensusParseCommand("{}").revision;
  const artifact: string = consensusVerifyArtifact(new Uint8Array(0), "d", "d", "reached");
  const room = new ConsensusRoom(1, "d", new Date(), [{ id: "p", kind: "agent" }]);
  const applied: { status: number } = room.apply("p", "{}", undefined, Date.now());
  const outcome: ConsensusOutcome = consensusRoomOutcome("{}", new Date()).outcome;
  const handle: string = aipParseHandle("a@example.com").did + aipHandle("a", "example.com").atForm;
  const doc: number = aipParseDidDocument("{}").signingKeys.length;
  const route: AipRoute = aipSelectRoute("{}", true);
  const id: string = aipNewMessageId() + aipDidKey(kp);
  const sealed: string = aipSeal(aip, "{}", { id, from: "f", messageType: "t", createdAt: "c" }, "{}");
  const header: string = aipParseEnvelope(sealed).to + aipVerifyEnvelope("{}", sealed).from;
  const vc: string = aipVcIssue(kp, "{}");
  const checked: string = aipVcVerify(vc, { anchors: [], checkTime: false }).issuer + aipVcVerifyProof(vc).verificationMethod;
  const ceiling: number = aipTrustCeiling("s", [{ issuer: "i", subject: "s" }], ["i"]);
  const score: number = aipTrustUpdate(0.5, ceiling, "success") + aipTrustScore(ceiling, ["failure"]);
  const ranked: number = aipRank([{ semanticRank: 1, trustScore: score }])[0].finalScore + aipFinalScore(aipRrf(1, null), score);
  console.log(named, v, verified, digest, md, inv, parsed, artifact, applied, outcome, handle, doc, route, header, checked, ranked);
}
console.log(everyExport);
