# Hand-written stubs for concordia_rs.aip, a submodule of the native module (kept in sync by
# `python -m mypy.stubtest concordia_rs.aip` in tools/ci/python.sh).
from collections.abc import Iterable, Mapping
from typing import Any, Literal, Optional, Union, final

from ._native import KeyPair, ReplayWindow as ReplayWindow

__all__ = [
    "Handle",
    "DidDocument",
    "AipKeyPair",
    "ReplayWindow",
    "parse_handle",
    "parse_did_document",
    "select_route",
    "new_message_id",
    "seal",
    "parse_envelope",
    "verify_envelope",
    "open",
    "vc_issue",
    "vc_verify",
    "vc_verify_proof",
    "trust_ceiling",
    "trust_update",
    "trust_score",
    "rrf",
    "final_score",
    "rank",
]

_Doc = Union[str, bytes, bytearray, dict[str, Any]]
_Time = Union[float, int, str, None]
# An AipKeyPair, or a key file (dict or JSON text) of `concordia aip keygen`.
_Key = Union["AipKeyPair", _Doc]
_Event = Literal["success", "failure", "revocation"]

@final
class Handle:
    """An agent handle in every spelling AIP uses."""

    def __new__(cls, name: str, domain: str) -> Handle: ...
    @property
    def name(self) -> str: ...
    @property
    def domain(self) -> str: ...
    @property
    def handle(self) -> str: ...
    @property
    def url_form(self) -> str: ...
    @property
    def at_form(self) -> str: ...
    @property
    def did(self) -> str: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def parse_handle(text: str) -> Handle: ...
@final
class DidDocument:
    """The DID Document subset AIP reads."""

    @property
    def id(self) -> str: ...
    @property
    def subject(self) -> Handle: ...
    @property
    def route_mode(self) -> Literal["direct", "relay"]: ...
    @property
    def endpoint(self) -> str: ...
    @property
    def signing_keys(self) -> list[bytes]: ...
    @property
    def agreement_keys(self) -> list[bytes]: ...

def parse_did_document(doc: _Doc) -> DidDocument: ...
def select_route(doc: _Doc, endpoint_reachable: bool) -> tuple[Literal["direct", "relay"], Optional[str]]: ...
@final
class AipKeyPair:
    """Ed25519 + X25519 keys of an AIP agent; reads and writes `concordia aip keygen` key files.

    Both secrets are erased from memory when the object is dropped; `repr` shows only the
    DID and the `did:key`. `generate` draws from the operating system in Rust, never
    through `os.urandom`."""

    @staticmethod
    def generate(did: Optional[str] = None) -> AipKeyPair: ...
    @staticmethod
    def from_seed(seed: bytes, did: Optional[str] = None) -> AipKeyPair: ...
    @staticmethod
    def from_seeds(ed25519_seed: bytes, x25519_secret: bytes, did: Optional[str] = None) -> AipKeyPair: ...
    @staticmethod
    def from_key_file(key_file: _Doc) -> AipKeyPair: ...
    def key_file_json(self) -> str: ...
    def to_key_file(self) -> dict[str, str]: ...
    def did_document(
        self, did: Optional[str] = None, *, route_mode: Literal["direct", "relay"] = "relay", endpoint: Optional[str] = None
    ) -> dict[str, Any]: ...
    @property
    def did(self) -> Optional[str]: ...
    @property
    def did_key(self) -> str: ...
    @property
    def ed25519_public_key(self) -> bytes: ...
    @property
    def x25519_public_key(self) -> Optional[bytes]: ...
    def ed25519_seed(self) -> bytes: ...
    def x25519_secret(self) -> Optional[bytes]: ...
    @property
    def signing_key(self) -> KeyPair: ...

def new_message_id() -> str:
    """A lowercase UUID v4 from operating system randomness (drawn in Rust, not `os.urandom`)."""
def seal(
    message: _Doc,
    *,
    recipient_doc: _Doc,
    sender_key: _Key,
    type: Optional[str] = None,
    id: Optional[str] = None,
    created_at: Optional[str] = None,
) -> dict[str, str]: ...
def parse_envelope(envelope: _Doc) -> dict[str, str]: ...
def verify_envelope(envelope: _Doc, *, sender_doc: _Doc) -> dict[str, str]: ...
def open(
    envelope: _Doc,
    *,
    recipient_key: _Key,
    sender_doc: _Doc,
    now: _Time = None,
    window: Optional[ReplayWindow] = None,
    recipient_did: Optional[str] = None,
    any_recipient: bool = False,
    skip_freshness: bool = False,
) -> Any:
    """Open an envelope as its recipient: the signature under ``sender_doc``, the addressee
    (``recipient_did``, else the key's ``did``; neither is ``InvalidArgumentError`` unless
    ``any_recipient=True`` skips the check by name), the body opens, then freshness at
    ``now`` (default: the clock; ``skip_freshness=True`` skips it by name) or, with a
    ``window``, its replay check (``ReplayError``)."""
    ...
def vc_issue(credential: _Doc, *, key: Union[_Key, KeyPair, Any], created: Optional[str] = None) -> dict[str, Any]: ...
def vc_verify(
    credential: _Doc,
    *,
    anchors: Optional[Iterable[str]] = None,
    revoked: Optional[Iterable[str]] = None,
    now: _Time = None,
    check_time: bool = True,
    domain: Optional[str] = None,
    challenge: Optional[str] = None,
) -> dict[str, Any]:
    """The proof, the issuer binding, `anchors`, `revoked` (ids compared decoded), the
    validity period and the proof's created/expires at `now` (default: the OS clock;
    `check_time=False` skips them; with `now` it is InvalidArgumentError), and the proof's `domain` and
    `challenge` when given (Binding errors). An issuer or credentialSubject.id written with
    JSON escapes is a SchemaError."""
    ...
def vc_verify_proof(credential: _Doc) -> dict[str, Any]: ...
def trust_ceiling(
    subject: str, edges: Iterable[Union[tuple[str, str], tuple[str, str, bool]]], anchors: Iterable[str]
) -> float: ...
def trust_update(score: float, ceiling: float, event: _Event) -> float: ...
def trust_score(ceiling: float, history: Iterable[_Event]) -> float: ...
def rrf(semantic_rank: Optional[int] = None, fts_rank: Optional[int] = None) -> float: ...
def final_score(rrf: float, trust_score: float) -> float: ...
def rank(results: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]: ...
