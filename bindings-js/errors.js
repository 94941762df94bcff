// The errors of the npm package `concordia-rs`: one model for every surface
// (docs/adr/0005-error-model.md). The WebAssembly side (src/errors.rs) calls makeError for
// every failure; the class is chosen by the core's reason class.

/** Every error the package throws. */
export class ConcordiaError extends Error {
  /**
   * @param {string} message the core's description (with the byte offset for malformed JSON)
   * @param {string} code the C ABI's result code name, e.g. `CONCORDIA_JSON_DUPLICATE_KEY`
   * @param {string} klass the core's reason class: input, limit, schema, signature, digest,
   *   binding, temporal, privacy, transition (internal for a randomness failure, replay for
   *   an envelope a replay window has seen)
   * @param {number | undefined} offset byte offset in the UTF-8 input (JSON and limit errors)
   * @param {string | undefined} sdkException the reference SDK's exception class name
   */
  constructor(message, code, klass, offset, sdkException) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.class = klass;
    if (offset !== undefined) this.offset = offset;
    if (sdkException !== undefined) this.sdkException = sdkException;
  }
}

/** Input the core cannot read: malformed JSON, a bad encoding, an argument out of its domain. */
export class InputError extends ConcordiaError {}
/** A bound was exceeded: nesting depth, a fixed capacity, memory. */
export class LimitError extends ConcordiaError {}
/** A record without the required shape. */
export class SchemaError extends ConcordiaError {}
/** A signature that does not verify, or a signer without a known key. */
export class SignatureError extends ConcordiaError {}
/** A recomputed digest differs from the recorded one. */
export class DigestError extends ConcordiaError {}
/** Records not bound as claimed: chain link, session id, set binding, issuer. */
export class BindingError extends ConcordiaError {}
/** A time or validity window check failed. */
export class TemporalError extends ConcordiaError {}
/** A record discloses what it must not. */
export class PrivacyError extends ConcordiaError {}
/** The state machine does not allow this transition (max_rounds included). */
export class TransitionError extends ConcordiaError {}
/** WebCrypto's random generator failed (key generation, sealing, message ids). */
export class RandomnessError extends ConcordiaError {}
/** aipOpen with a replay window: an envelope id the window has already seen (`CONCORDIA_AIP_REPLAY`). */
export class ReplayError extends ConcordiaError {}

const BY_CLASS = {
  input: InputError,
  limit: LimitError,
  schema: SchemaError,
  signature: SignatureError,
  digest: DigestError,
  binding: BindingError,
  temporal: TemporalError,
  privacy: PrivacyError,
  transition: TransitionError,
  replay: ReplayError,
};

/** Called by the WebAssembly glue; not part of the public API. */
export function makeError(klass, code, message, offset, sdkException) {
  const Class =
    code === "CONCORDIA_RANDOMNESS_UNAVAILABLE" ? RandomnessError : (BY_CLASS[klass] ?? ConcordiaError);
  return new Class(message, code, klass, offset ?? undefined, sdkException ?? undefined);
}
