// The public API of `concordia-rs`: the WebAssembly exports (bindings-js/src/, names as
// the UniFFI bindings in camelCase) and the error classes. Both entry points (node.js,
// browser.js) instantiate the module first, then re-export this.
import { aipOpenNoWindow, aipOpenWindow } from "./wasm/concordia_wasm.js";

export {
  version,
  canonicalize,
  hash,
  KeyPair,
  verifySignature,
  Es256KeyPair,
  verifySignatureEs256,
  verifyDetached,
  publicKeyToB64url,
  verifyProfile,
  profileNames,
  TranscriptVerifier,
  verifyTranscript,
  Session,
  generateAttestation,
  verifyAttestation,
  consensusRevisionDigest,
  consensusVerifyRevision,
  consensusMarkdownDigest,
  consensusVerifyMarkdown,
  consensusParseInvitation,
  consensusValidateInvitation,
  consensusBuildCommand,
  consensusParseCommand,
  consensusVerifyArtifact,
  consensusRoomOutcome,
  ConsensusRoom,
  aipParseHandle,
  aipHandle,
  aipParseDidDocument,
  aipSelectRoute,
  AipKeyPair,
  aipDidKey,
  aipNewMessageId,
  aipSeal,
  aipParseEnvelope,
  aipVerifyEnvelope,
  AipReplayWindow,
  aipVcIssue,
  aipVcVerify,
  aipVcVerifyProof,
  aipTrustCeiling,
  aipTrustUpdate,
  aipTrustScore,
  aipRrf,
  aipFinalScore,
  aipRank,
} from "./wasm/concordia_wasm.js";
export {
  ConcordiaError,
  InputError,
  LimitError,
  SchemaError,
  SignatureError,
  DigestError,
  BindingError,
  TemporalError,
  PrivacyError,
  TransitionError,
  RandomnessError,
  ReplayError,
} from "./errors.js";

/**
 * Opens an envelope as its recipient, every check of `concordia aip open` in its order:
 * the signature, the addressee (`recipientDid`, else the key pair's DID; without either an
 * InputError, unless `anyRecipient: true` skips the check by name), the body, then
 * freshness at `now` (default: the clock; `skipFreshness: true` skips it by name) or, with
 * a replay `window`, its replay check (an id it has seen throws a ReplayError).
 */
export function aipOpen(recipient, senderDidDocumentJson, envelopeJson, options = {}) {
  const { now, window, recipientDid, anyRecipient, skipFreshness } = options ?? {};
  const args = [recipient, senderDidDocumentJson, envelopeJson, now, recipientDid, anyRecipient === true, skipFreshness === true];
  return window === undefined || window === null ? aipOpenNoWindow(...args) : aipOpenWindow(...args, window);
}
