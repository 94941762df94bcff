"""concordia_rs: the Concordia reference SDK's hot paths, from one audited Rust core.

Same names and semantics as ``concordia-protocol`` where they overlap::

    from concordia_rs import KeyPair, sign_message, verify_signature, canonical_json

``accelerate()`` swaps the reference SDK's own functions for these, so an application
written against ``concordia`` gets faster without code changes; ``deaccelerate()`` (or
leaving the ``with accelerated():`` block) puts the originals back.

``concordia_rs.consensus`` (Consensus venue primitives) and ``concordia_rs.aip`` (AIP
handles, DID Documents, key files, sealed envelopes, credentials, trust and ranking) offer
what ``concordia consensus`` and ``concordia aip`` do, on dicts or the same JSON files.
"""

from __future__ import annotations

import contextlib
import uuid
from datetime import datetime, timezone
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from . import _native
from . import aip, consensus  # submodules of the native module: Consensus and AIP
from ._native import (
    ATTESTATION_VERSION,
    GENESIS_HASH,
    MAX_DEPTH,
    PROTOCOL_VERSION,
    SESSION_STATES,
    AttestationResult,
    BindingError,
    CanonicalizationError,
    ChainIntegrityError,
    ConcordiaError,
    DigestError,
    EncodingError,
    ES256KeyPair,
    ES256PublicKey,
    InvalidArgumentError,
    InvalidJsonError,
    InvalidSignatureError,
    InvalidTransitionError,
    KeyPair,
    LimitError,
    MaxRoundsExceededError,
    MessageShapeError,
    MissingMemberError,
    MissingSignatureError,
    NonStringKeyError,
    NotConcludedError,
    PrivacyError,
    PublicKey,
    ReplayError,
    ReplayWindow,
    SchemaError,
    Session,
    SessionBindingError,
    SignatureEncodingError,
    TemporalError,
    TranscriptVerifier,
    UnsizedTermsError,
    UnverifiableMessageError,
    canonical_json,
    canonicalize_jcs,
    compute_hash,
    countersign_attestation,
    generate_attestation,
    profile_names,
    public_key_from_b64url,
    sign_message,
    validate_chain,
    verify_attestation,
    verify_profile,
    verify_signature,
    verify_many,
    verify_transcript,
    verify_transcript_file,
)

__all__ = [
    "ATTESTATION_VERSION",
    "GENESIS_HASH",
    "MAX_DEPTH",
    "PROTOCOL_VERSION",
    "SESSION_STATES",
    "AttestationResult",
    "BindingError",
    "CanonicalizationError",
    "ChainIntegrityError",
    "ConcordiaError",
    "DigestError",
    "EncodingError",
    "ES256KeyPair",
    "ES256PublicKey",
    "InvalidArgumentError",
    "InvalidJsonError",
    "InvalidSignatureError",
    "InvalidTransitionError",
    "KeyPair",
    "LimitError",
    "MaxRoundsExceededError",
    "MessageShapeError",
    "MissingMemberError",
    "MissingSignatureError",
    "NonStringKeyError",
    "NotConcludedError",
    "PrivacyError",
    "PublicKey",
    "ReplayError",
    "ReplayWindow",
    "SchemaError",
    "Session",
    "SessionBindingError",
    "SignatureEncodingError",
    "TemporalError",
    "TranscriptVerifier",
    "UnsizedTermsError",
    "UnverifiableMessageError",
    "accelerate",
    "accelerated",
    "aip",
    "build_envelope",
    "canonical_json",
    "canonicalize_jcs",
    "compute_hash",
    "consensus",
    "countersign_attestation",
    "deaccelerate",
    "generate_attestation",
    "profile_names",
    "public_key_from_b64url",
    "sign_message",
    "validate_chain",
    "verify_attestation",
    "verify_profile",
    "verify_signature",
    "verify_many",
    "verify_transcript",
    "verify_transcript_file",
]


def _value(x: Any) -> Any:
    """An SDK enum's ``.value``, or the value itself."""
    return getattr(x, "value", x)


def _party(x: Any) -> Dict[str, Any]:
    """An SDK ``AgentIdentity`` (``to_dict()``), a dict, or a bare agent id."""
    if hasattr(x, "to_dict"):
        d: Dict[str, Any] = x.to_dict()
        return d
    if isinstance(x, str):
        return {"agent_id": x}
    return dict(x)


def build_envelope(
    *,
    message_type: Any,
    session_id: str,
    sender: Any,
    body: Dict[str, Any],
    key_pair: Any,
    prev_hash: str = GENESIS_HASH,
    recipients: Optional[List[Any]] = None,
    in_reply_to: Optional[str] = None,
    reasoning: Optional[str] = None,
    ttl: Optional[int] = None,
    message_id: Optional[str] = None,
) -> Dict[str, Any]:
    """A signed message envelope, member for member the reference SDK's ``build_envelope``.

    ``message_type`` is an SDK ``MessageType`` or its value (``"negotiate.offer"``);
    ``sender`` and ``recipients`` are SDK ``AgentIdentity`` objects, dicts or agent ids;
    ``key_pair`` is a concordia_rs ``KeyPair`` or an SDK one. The id and timestamp come
    from the OS (``uuid4``, UTC clock), as in the SDK; the signature from the Rust core.
    """
    msg: Dict[str, Any] = {
        "concordia": PROTOCOL_VERSION,
        "type": _value(message_type),
        "id": message_id or f"msg_{uuid.uuid4().hex[:8]}",
        "session_id": session_id,
        "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "from": _party(sender),
        "prev_hash": prev_hash,
        "body": body,
    }
    if recipients:
        msg["to"] = [_party(r) for r in recipients]
    if in_reply_to:
        msg["in_reply_to"] = in_reply_to
    if reasoning:
        msg["reasoning"] = reasoning
    if ttl is not None:
        msg["ttl"] = ttl
    # The core's envelope writes and signs it (its field rules: a prev_hash digest, parties
    # of agent_id and principal_id, a ttl from 0 to 2^53 - 1, the body's depth and numbers);
    # the dict above is the same envelope member for member, in the SDK's order.
    msg["signature"] = _native.sign_envelope(
        message_type=msg["type"],
        message_id=msg["id"],
        session_id=session_id,
        timestamp=msg["timestamp"],
        sender=msg["from"],
        body=body,
        key_pair=key_pair,
        prev_hash=prev_hash,
        recipients=msg.get("to"),
        in_reply_to=in_reply_to,
        reasoning=reasoning,
        ttl=ttl,
    )
    return msg


# ---------------------------------------------------------------------------
# accelerate(): swap the reference SDK's hot functions for the Rust ones.
# ---------------------------------------------------------------------------

_patched: List[Tuple[Any, str, Any, Any]] = []


def _sdk_replacements() -> Dict[str, Tuple[Any, Any]]:
    """``{name: (sdk_original, replacement)}`` for the functions accelerate() swaps."""
    import concordia.canonicalization as sdk_canon
    import concordia.message as sdk_message
    import concordia.signing as sdk_signing

    orig_sign = sdk_signing.sign_message
    orig_verify = sdk_signing.verify_signature
    sdk_keypair = sdk_signing.KeyPair
    sdk_es256_keypair = sdk_signing.ES256KeyPair
    fast_key_types = {"EdDSA": (sdk_keypair, KeyPair), "ES256": (sdk_es256_keypair, ES256KeyPair)}

    # accelerate() changes speed, never an answer. Where the Rust path answers, its answer
    # is the SDK's (byte parity of canonical forms and signatures; a signature it accepts,
    # the SDK accepts too: its verification is never more lenient). Where it refuses, the
    # SDK's own function decides: concordia_rs' stricter policy (``MAX_DEPTH`` nesting levels,
    # integers within 2^53, one spelling of a signature, no small-order or non-canonical
    # keys) governs concordia_rs, not an application that only asked to be faster.
    # ES256 signatures from the Rust path are deterministic (RFC 6979) where the SDK's
    # OpenSSL draws a random nonce: another valid low-S signature of the same message, which
    # the SDK verifies like its own.
    def fast_sign_message(data: Dict[str, Any], key_pair: Any, alg: str = "EdDSA") -> str:
        types = fast_key_types.get(alg) if isinstance(alg, str) else None
        if types is not None and isinstance(key_pair, types):
            try:
                return sign_message(data, key_pair, alg)
            except Exception:
                pass
        return orig_sign(data, key_pair, alg)

    def fast_verify_signature(data: Dict[str, Any], signature: str, public_key: Any, alg: str = "EdDSA") -> bool:
        if isinstance(alg, str) and alg in fast_key_types:
            try:
                if verify_signature(data, signature, public_key, alg):
                    return True
            except Exception:
                pass
        return orig_verify(data, signature, public_key, alg)

    def _first_answer(fast: Any, orig: Any, *, fallback_on_false: bool = False) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                result = fast(*args, **kwargs)
            except Exception:
                return orig(*args, **kwargs)
            if fallback_on_false and result is False:
                return orig(*args, **kwargs)
            return result

        call.__doc__ = orig.__doc__
        call.__name__ = getattr(orig, "__name__", "call")
        call.__concordia_rs__ = fast  # type: ignore[attr-defined]
        return call

    fast_sign_message.__doc__ = orig_sign.__doc__
    fast_verify_signature.__doc__ = orig_verify.__doc__
    return {
        "canonical_json": (sdk_signing.canonical_json, _first_answer(canonical_json, sdk_signing.canonical_json)),
        "canonicalize_jcs": (sdk_canon.canonicalize_jcs, _first_answer(canonicalize_jcs, sdk_canon.canonicalize_jcs)),
        "sign_message": (orig_sign, fast_sign_message),
        "verify_signature": (orig_verify, fast_verify_signature),
        "compute_hash": (sdk_message.compute_hash, _first_answer(compute_hash, sdk_message.compute_hash)),
        "validate_chain": (
            sdk_message.validate_chain,
            _first_answer(validate_chain, sdk_message.validate_chain, fallback_on_false=True),
        ),
    }


def accelerate() -> List[str]:
    """Replace the reference SDK's canonical JSON, ``sign_message``, ``verify_signature``,
    ``compute_hash`` and ``validate_chain`` with the Rust ones, wherever a loaded module
    holds them by name: the SDK's own modules, and any other module that did
    ``from concordia.signing import sign_message`` before this call (every module in
    ``sys.modules`` is scanned for the SDK's original function objects). Modules imported
    later get the Rust functions from the patched SDK modules.

    Not reachable (README): a reference held anywhere but a module attribute, such as a
    closure, a default argument value, a class attribute, a list or dict of callbacks,
    or a ``functools.partial``.

    Every answer stays the SDK's: where the Rust path refuses something (concordia_rs'
    policy is stricter: ``MAX_DEPTH`` nesting levels, integers within 2^53, one spelling of a
    signature, no small-order keys), the SDK's own function is called and decides.

    Returns the patched attributes as ``"module.name"`` strings. When the SDK is not
    importable, nothing is patched: it warns (``RuntimeWarning``) and returns ``[]``.
    Idempotent; undo with ``deaccelerate()``. ``sign_message`` and ``verify_signature``
    take the Rust path for ``alg="EdDSA"`` and ``alg="ES256"``.
    """
    import sys
    import warnings

    if _patched:
        return [f"{m.__name__}.{n}" for m, n, _, _ in _patched]
    try:
        table = _sdk_replacements()
    except ImportError as e:
        warnings.warn(
            f"concordia_rs.accelerate(): the reference SDK (concordia-protocol) is not importable ({e}); "
            "nothing was patched",
            RuntimeWarning,
            stacklevel=2,
        )
        return []
    originals = {id(orig): (name, fast) for name, (orig, fast) in table.items()}
    for mod_name, mod in sorted(list(sys.modules.items()), key=lambda kv: kv[0]):
        if mod is None or mod_name == __name__ or mod_name.startswith(__name__ + "."):
            continue
        try:
            members = list(vars(mod).items())
        except TypeError:  # not a module with a __dict__
            continue
        for attr, value in members:
            hit = originals.get(id(value))
            if hit is not None and value is table[hit[0]][0]:
                _patched.append((mod, attr, value, hit[1]))
                setattr(mod, attr, hit[1])
    return [f"{m.__name__}.{n}" for m, n, _, _ in _patched]


def deaccelerate() -> List[str]:
    """Undo ``accelerate()`` in every module it patched; returns what was restored. An
    attribute that was set to something else since is left as it is."""
    restored = []
    while _patched:
        mod, attr, original, replacement = _patched.pop()
        if getattr(mod, attr, None) is replacement:
            setattr(mod, attr, original)
            restored.append(f"{getattr(mod, '__name__', '?')}.{attr}")
    return restored


@contextlib.contextmanager
def accelerated() -> Iterator[List[str]]:
    """``with accelerated() as patched:`` runs the block with ``accelerate()`` active."""
    already = bool(_patched)
    patched = accelerate()
    try:
        yield patched
    finally:
        if not already:
            deaccelerate()
