// The public API of `concordia-rs`: the WebAssembly exports (bindings-js/src/, names as
// the UniFFI bindings in camelCase) and the error classes. Both entry points (node.js,
// browser.js) instantiate the module first, then re-export this.
import { aipOpenCheckedNoWindow, aipOpenCheckedWindow } from "./wasm/concordia_wasm.js";

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
  aipOpen,
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
 * Every recipient check of `concordia aip open`, in its order: the signature, the
 * addressee (when `recipient` knows its DID), the body, then freshness at `now` or, with a
 * replay `window`, its replay check (an id it has seen throws a ReplayError).
 */
export function aipOpenChecked(recipient, senderDidDocumentJson, envelopeJson, now, window) {
  return window === undefined || window === null
    ? aipOpenCheckedNoWindow(recipient, senderDidDocumentJson, envelopeJson, now)
    : aipOpenCheckedWindow(recipient, senderDidDocumentJson, envelopeJson, now, window);
}
