# Hand-written stubs for concordia_rs.consensus, a submodule of the native module (kept in
# sync by `python -m mypy.stubtest concordia_rs.consensus` in tools/ci/python.sh).
from typing import Any, Literal, Optional, Union, final

__all__ = [
    "DEFAULT_ORIGIN",
    "ACTIONS",
    "OUTCOMES",
    "Invitation",
    "Command",
    "RoomOutcome",
    "revision_digest",
    "verify_revision",
    "markdown_digest",
    "verify_markdown",
    "parse_invitation",
    "validate_invitation",
    "build_command",
    "parse_command",
    "room_outcome",
    "verify_artifact",
]

_Doc = Union[str, bytes, bytearray, dict[str, Any], list[Any]]
_Bytes = Union[str, bytes, bytearray]
_Time = Union[float, int, str, None]

DEFAULT_ORIGIN: str
ACTIONS: list[str]
OUTCOMES: list[str]

def revision_digest(revision: _Doc) -> str: ...
def verify_revision(revision: _Doc, expected: str) -> str: ...
def markdown_digest(markdown: _Bytes) -> str: ...
def verify_markdown(markdown: _Bytes, expected: str) -> str: ...
@final
class Invitation:
    """An invitation block; its secrets never appear in repr or str."""

    @property
    def invitation_id(self) -> str: ...
    @property
    def exchange_href(self) -> str: ...
    @property
    def valid(self) -> bool: ...
    @property
    def checks(self) -> dict[str, bool]: ...
    def exchange_request(self) -> dict[str, Any]: ...
    def claim_body(self, inbox: str, runtime_endpoint: str = "") -> bytes: ...

def parse_invitation(email: _Bytes, *, origin: Optional[str] = None) -> Invitation: ...
def validate_invitation(email: _Bytes, *, origin: Optional[str] = None) -> Invitation: ...
@final
class Command:
    """A validated room command."""

    @property
    def action(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def revision(self) -> int: ...
    @property
    def digest(self) -> str: ...
    @property
    def wire_body(self) -> str: ...
    @property
    def idempotency_key(self) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...

def build_command(action: str, body: str, revision: int, digest: str) -> Command: ...
def parse_command(wire: _Doc) -> Command: ...
@final
class RoomOutcome:
    """A room log replayed to its outcome."""

    @property
    def outcome(self) -> Literal["pending", "reached", "disagreed", "no_consensus", "expired"]: ...
    @property
    def accepted(self) -> int: ...
    @property
    def refused(self) -> list[tuple[int, int, str, str]]: ...

def room_outcome(room: _Doc, *, now: _Time = None) -> RoomOutcome: ...
def verify_artifact(
    artifact: _Bytes, *, content_digest: str, x_consensus_sha256: str, outcome: str = "reached"
) -> str: ...
