// Type declarations of the npm package `concordia-rs`: the WebAssembly build of
// concordia-core (bindings-js/src/), names as the UniFFI bindings in camelCase. Times are
// `Date`s (or milliseconds since the epoch); bytes are `Uint8Array`s; JSON crosses as
// text, exactly as signed and hashed.

/** A `Date` or milliseconds since the epoch. */
export type Time = Date | number;

// ------------------------------------------------------------------ errors

/** The core's reason classes (`Error::class()`), plus `internal` for a WebCrypto failure. */
export type ErrorClass =
  | "input"
  | "limit"
  | "schema"
  | "signature"
  | "digest"
  | "binding"
  | "temporal"
  | "privacy"
  | "transition"
  | "internal"
  | "replay";

/** Every error the package throws. */
export class ConcordiaError extends Error {
  constructor(message: string, code: string, klass: ErrorClass, offset?: number, sdkException?: string);
  /** The C ABI's result code name, e.g. `CONCORDIA_JSON_DUPLICATE_KEY` (include/concordia.h). */
  readonly code: string;
  /** The reason class. */
  readonly class: ErrorClass;
  /** Byte offset in the UTF-8 input, for malformed JSON and limits. */
  readonly offset?: number;
  /** The reference SDK's exception class name for the same refusal (`InvalidSignatureError`, ...). */
  readonly sdkException?: string;
}
export class InputError extends ConcordiaError {}
export class LimitError extends ConcordiaError {}
export class SchemaError extends ConcordiaError {}
export class SignatureError extends ConcordiaError {}
export class DigestError extends ConcordiaError {}
export class BindingError extends ConcordiaError {}
export class TemporalError extends ConcordiaError {}
export class PrivacyError extends ConcordiaError {}
export class TransitionError extends ConcordiaError {}
export class RandomnessError extends ConcordiaError {}
/** `aipOpen` with a replay window: an id it has seen (code `CONCORDIA_AIP_REPLAY`, class `replay`). */
export class ReplayError extends ConcordiaError {}

// ------------------------------------------------------------------ JSON, keys

/** The library version. */
export function version(): string;
/** The RFC 8785 canonical form of strict JSON text. */
export function canonicalize(json: string): string;
/** `sha256:<hex>` of the canonical form. */
export function hash(json: string): string;

export interface Party {
  agentId: string;
  principalId?: string;
}

/** A message envelope (SPEC §4.1) for `KeyPair.signEnvelope`. */
export interface Envelope {
  messageType: string;
  id: string;
  sessionId: string;
  /** ISO 8601 UTC (the library reads no clock). */
  timestamp: string;
  from: Party;
  /** The body as JSON text. */
  body: string;
  to?: Party[];
  /** `sha256:<hex>`; absent: the genesis hash. */
  prevHash?: string;
  inReplyTo?: string;
  reasoning?: string;
  ttl?: number;
  concordia?: string;
}

/** An Ed25519 key pair. */
export class KeyPair {
  private constructor();
  /** A key pair from 32 bytes of WebCrypto randomness. */
  static generate(): KeyPair;
  /** The key pair of a 32-byte seed (RFC 8032). */
  static fromSeed(seed: Uint8Array): KeyPair;
  publicKey(): Uint8Array;
  /** Padded base64url, 44 characters. */
  publicKeyB64url(): string;
  seed(): Uint8Array;
  sign(message: Uint8Array): Uint8Array;
  /** Signs a JSON object (top-level `signature`), returns it canonical. */
  signObject(json: string): string;
  /** Builds, signs and returns a message envelope as canonical JSON. */
  signEnvelope(envelope: Envelope): string;
  /** Frees the WebAssembly memory now (otherwise the garbage collector does). */
  free(): void;
}

/** Throws unless the top-level `signature` of `json` verifies under `publicKey` (base64/base64url). */
export function verifySignature(json: string, publicKey: string): void;
/** An ES256 (ECDSA P-256) key pair, as the reference SDK's `ES256KeyPair`. */
export class Es256KeyPair {
  private constructor();
  /** A key pair from WebCrypto randomness. */
  static generate(): Es256KeyPair;
  /** The key pair of a 32-byte big-endian private scalar (0 < d < n). */
  static fromScalar(scalar: Uint8Array): Es256KeyPair;
  /** The uncompressed X9.62 point, 65 bytes. */
  publicKey(): Uint8Array;
  /** Padded base64url, 88 characters. */
  publicKeyB64url(): string;
  scalar(): Uint8Array;
  /** Signs a JSON object (top-level `signature`, DER, low S, RFC 6979), returns it canonical. */
  signObject(json: string): string;
  /** Frees the WebAssembly memory now (otherwise the garbage collector does). */
  free(): void;
}

/** Throws unless the top-level ES256 `signature` of `json` verifies under `publicKey` (base64/base64url of the X9.62 point). */
export function verifySignatureEs256(json: string, publicKey: string): void;
/** Throws unless `signature` (64 bytes) signs `message` under `publicKey`. */
export function verifyDetached(publicKey: string, message: Uint8Array, signature: Uint8Array): void;
/** Any base64 spelling of a key as padded base64url. */
export function publicKeyToB64url(publicKey: string): string;

// ------------------------------------------------------------------ protocol

/** Throws unless `input` passes the conformance profile `name` with `context` (JSON texts). */
export function verifyProfile(name: string, input: string, context: string): void;
/** The 22 profile names, in the contract's order. */
export function profileNames(): string[];

export interface TranscriptSummary {
  count: number;
  /** The last message's hash (`sha256:<hex>`; the genesis hash when empty). */
  head: string;
}

/** Checks a transcript one message at a time. */
export class TranscriptVerifier {
  /** `keysJson`: `{"agent_id": "<base64url key>", ...}`. */
  constructor(keysJson: string);
  /** Checks and accepts the next message; returns its hash. */
  push(messageJson: string): string;
  count(): number;
  head(): string;
  free(): void;
}

/** Verifies a JSON array of signed messages (or `{"messages": [...]}`). */
export function verifyTranscript(transcriptJson: string, keysJson: string): TranscriptSummary;

export type SessionState = "proposed" | "active" | "agreed" | "rejected" | "expired" | "dormant";
export type Role = "initiator" | "responder" | "mediator" | "witness";

export interface Timing {
  sessionTtl: number;
  offerTtl: number;
  maxRounds: number;
}

export interface PartyInfo {
  agentId: string;
  role: Role;
  publicKey?: string;
  offersMade: number;
  concessions: number;
  concessionMagnitude: number;
  reasoningProvided: boolean;
  withdrawal: boolean;
}

/** A negotiation session (SPEC §5): up to 8 parties, fixed size. */
export class Session {
  constructor(id: string, createdAt: Time, timing?: Partial<Timing>);
  addParty(agentId: string, role: Role, publicKey?: string): void;
  /** Applies a signed message at `now`; `keysJson` (if given) is the only key source. */
  apply(messageJson: string, now: Time, keysJson?: string): SessionState;
  expire(now: Time): void;
  makeDormant(): void;
  id(): string;
  state(): SessionState;
  timing(): Timing;
  roundCount(): number;
  messageCount(): number;
  tip(): string;
  transcriptHash(): string;
  createdAt(): Date;
  concludedAt(): Date | undefined;
  isReactivatable(): boolean;
  parties(): PartyInfo[];
  free(): void;
}

export type Validity =
  | { kind: "absolute"; from: Time; until: Time }
  | { kind: "relative"; from: Time; durationSeconds: number }
  | { kind: "window"; start: Time; end: Time; durationSeconds: number };

export interface AttestationParams {
  attestationId: string;
  now: Time;
  validity: Validity;
  /** `direct` (default), `split`, `foa`, `tradeoff`, `escalation` or `none`. */
  resolutionMechanism?: string;
  category?: string;
  valueRange?: string;
}

export interface Signer {
  agentId: string;
  keyPair: KeyPair;
}

/** The signed, countersigned attestation of a concluded session (canonical JSON). */
export function generateAttestation(session: Session, params: AttestationParams, signers: Signer[]): string;

export interface AttestationVerified {
  parties: number;
  countersignatures: number;
  binding: "bound" | "unchecked" | "legacy-unbound";
}

export function verifyAttestation(attestationJson: string, keysJson: string, transcriptJson?: string): AttestationVerified;

// ------------------------------------------------------------------ Consensus

export type ConsensusAction = "comment" | "question" | "change_request" | "agree" | "disagree" | "abstain";
export type ConsensusOutcome = "pending" | "reached" | "disagreed" | "no_consensus" | "expired";

export interface InvitationSummary {
  invitationId: string;
  /** `agent_exchange.href`; redacted (`?<redacted>`, `#<redacted>`) when `noQuery` failed. */
  exchangeHref: string;
  checks: { https: boolean; origin: boolean; noQuery: boolean; uuids: boolean; secret: boolean };
  valid: boolean;
}

export interface ConsensusCommand {
  action: ConsensusAction;
  revision: number;
  wireBody: string;
  idempotencyKey: string;
}

export function consensusRevisionDigest(canonicalRevisionJson: string): string;
export function consensusVerifyRevision(canonicalRevisionJson: string, expected: string): string;
export function consensusMarkdownDigest(markdown: string): string;
export function consensusVerifyMarkdown(markdown: string, expected: string): string;
export function consensusParseInvitation(email: string, origin?: string): InvitationSummary;
export function consensusValidateInvitation(email: string, origin?: string): InvitationSummary;
export function consensusBuildCommand(action: ConsensusAction, body: string, revision: number, digest: string): ConsensusCommand;
export function consensusParseCommand(wireJson: string): ConsensusCommand;
export function consensusVerifyArtifact(
  bytes: Uint8Array,
  contentDigest: string,
  xConsensusSha256: string,
  outcome: ConsensusOutcome,
): string;
/** A room document replayed through the core's room model, as `concordia consensus outcome`. */
export function consensusRoomOutcome(
  roomJson: string,
  now: Time,
): {
  outcome: ConsensusOutcome;
  accepted: number;
  refused: { index: number; status: number; reason: string; message: string }[];
};

/** A live room: the venue's state machine, command by command. */
export class ConsensusRoom {
  constructor(revision: number, digest: string, deadline: Time, roster: { id: string; kind: "human" | "agent" }[]);
  /** 201 new event, 200 exact replay; a 400/404/409 refusal changes nothing (`refused` says why). */
  apply(
    participant: string,
    wireJson: string,
    idempotencyKey: string | undefined,
    now: Time,
  ): { status: number; event?: number; outcome: ConsensusOutcome; refused?: string };
  outcome(now: Time): ConsensusOutcome;
  eventCount(): number;
  free(): void;
}

// ------------------------------------------------------------------ AIP

export interface AipHandle {
  name: string;
  domain: string;
  handle: string;
  urlForm: string;
  atForm: string;
  did: string;
}

export type AipRouteMode = "direct" | "relay";

export interface AipDidDocument {
  id: string;
  subject: AipHandle;
  routeMode: AipRouteMode;
  endpoint: string;
  signingKeys: Uint8Array[];
  agreementKeys: Uint8Array[];
}

export type AipRoute = { mode: "direct"; endpoint: string } | { mode: "relay"; endpoint: string | undefined };

export interface AipHeader {
  id: string;
  from: string;
  to: string;
  messageType: string;
  createdAt: string;
}

export interface AipSealHeader {
  id: string;
  from: string;
  messageType: string;
  createdAt: string;
}

export function aipParseHandle(text: string): AipHandle;
export function aipHandle(name: string, domain: string): AipHandle;
export function aipParseDidDocument(didDocumentJson: string): AipDidDocument;
export function aipSelectRoute(didDocumentJson: string, endpointReachable: boolean): AipRoute;

/** An AIP agent's Ed25519 + X25519 key pair. */
export class AipKeyPair {
  private constructor();
  static generate(): AipKeyPair;
  static fromSeeds(ed25519Seed: Uint8Array, x25519Secret: Uint8Array): AipKeyPair;
  /** A `concordia aip keygen` key file (JSON text); its `did`, when present, is the addressee `aipOpen` requires. */
  static fromKeyFile(keyFileJson: string): AipKeyPair;
  /** The keys `concordia aip keygen --seed` makes (tests and examples only). */
  static fromKeygenSeed(seed: Uint8Array, did?: string): AipKeyPair;
  /** The same keys for the agent `did`: the addressee `aipOpen` requires. */
  withDid(did: string): AipKeyPair;
  did(): string | undefined;
  /** The key file as `concordia aip keygen` prints it (both secrets). */
  keyFileJson(): string;
  ed25519Seed(): Uint8Array;
  x25519Secret(): Uint8Array;
  ed25519PublicKey(): Uint8Array;
  x25519PublicKey(): Uint8Array;
  ed25519Multibase(): string;
  x25519Multibase(): string;
  didDocument(did: string, routeMode: AipRouteMode, endpoint: string): string;
  didKey(): string;
  signingKey(): KeyPair;
  free(): void;
}

export function aipDidKey(keyPair: KeyPair): string;
export function aipNewMessageId(): string;
export function aipSeal(sender: AipKeyPair, recipientDidDocumentJson: string, header: AipSealHeader, bodyJson: string): string;
export function aipParseEnvelope(envelopeJson: string): AipHeader;
export function aipVerifyEnvelope(senderDidDocumentJson: string, envelopeJson: string): AipHeader;
/** The recipient's policy for `aipOpen`; `{}` is the safe default. */
export interface AipOpenOptions {
  /** Check freshness at this instant (default: the clock). */
  now?: Time;
  /** Also refuse an id this window has seen (ReplayError). */
  window?: AipReplayWindow;
  /** The recipient's own `did:aip` (default: the key pair's DID; one of the two is required). */
  recipientDid?: string;
  /** Skip the addressee check, by name (not with `recipientDid`). */
  anyRecipient?: boolean;
  /** Skip the freshness check, by name (not with a `window`). */
  skipFreshness?: boolean;
}
/**
 * Opens an envelope as its recipient, every check of `concordia aip open` in its order:
 * signature, addressee, body, then freshness (at the clock by default) or the window's
 * replay check.
 */
export function aipOpen(
  recipient: AipKeyPair,
  senderDidDocumentJson: string,
  envelopeJson: string,
  options?: AipOpenOptions,
): { header: AipHeader; bodyJson: string };

/** Remembers message ids for the replay window (`WINDOW`, docs/limits.md) (at-least-once delivery). */
export class AipReplayWindow {
  constructor(capacity: "small" | "medium" | "large");
  /** One delivery of message `id` from the sender `from` (its DID): only a copy from the same sender is a duplicate. */
  check(from: string, id: string, createdAt: string, now: Time): "fresh" | "duplicate";
  contains(from: string, id: string): boolean;
  /** The generation of the last snapshot written or restored (0 before any). */
  generation(): number;
  len(): number;
  isEmpty(): boolean;
  capacity(): number;
  /** Versioned bytes, one generation more; the checksum detects accidents, not tampering. */
  snapshot(): Uint8Array;
  /** Sealed with HMAC-SHA256 under `macKey` (>= 16 bytes, kept outside the file), bound to `owner`. */
  snapshotSealed(macKey: Uint8Array, owner: Uint8Array): Uint8Array;
  restore(snapshot: Uint8Array, now: Time): void;
  /** Checks the MAC and refuses a generation below `minGeneration` (rollback); fails closed. */
  restoreSealed(snapshot: Uint8Array, now: Time, macKey: Uint8Array, owner: Uint8Array, minGeneration: number): void;
  coldStart(now: Time): void;
  endColdStart(): void;
  isColdStarted(): boolean;
  free(): void;
}

export function aipVcIssue(keyPair: KeyPair, credentialJson: string, created?: string): string;
/**
 * The proof, the issuer binding, `anchors`, `revoked` (ids compared decoded), the validity
 * period and the proof's created/expires at `now` (default: the clock; `checkTime: false`
 * skips them and excludes `now`), and the proof's `domain`/`challenge` when given.
 */
export function aipVcVerify(
  credentialJson: string,
  options?: {
    anchors?: string[];
    revoked?: string[];
    now?: Time;
    checkTime?: boolean;
    domain?: string;
    challenge?: string;
  },
): { issuer: string; subject: string | undefined; publicKey: Uint8Array };
/** The proof alone (`concordia aip vc verify --proof-only`). */
export function aipVcVerifyProof(credentialJson: string): { verificationMethod: string; publicKey: Uint8Array };

export type AipTrustEvent = "success" | "failure" | "revocation";

export function aipTrustCeiling(
  subject: string,
  edges: { issuer: string; subject: string; revoked?: boolean }[],
  anchors: string[],
): number;
export function aipTrustUpdate(score: number, ceiling: number, event: AipTrustEvent): number;
export function aipTrustScore(ceiling: number, history: AipTrustEvent[]): number;
export function aipRrf(semanticRank?: number | null, ftsRank?: number | null): number;
export function aipFinalScore(rrf: number, trustScore: number): number;
export function aipRank(
  candidates: { semanticRank?: number | null; ftsRank?: number | null; trustScore: number }[],
): { index: number; rrf: number; finalScore: number }[];
