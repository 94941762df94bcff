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
    "Room",
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
    def exchange_href(self) -> str:
        """`agent_exchange.href`; redacted (`?<redacted>`, `#<redacted>`) when it failed the
        `no_query` check, as its query or fragment may carry a secret."""
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

@final
class Room:
    """A live room: the venue's state machine, command by command."""

    def __new__(cls, revision: int, digest: str, deadline: Union[float, int, str], roster: list[tuple[str, str]]) -> Room: ...
    def apply(
        self, participant: str, command: Union[Command, _Doc], *, idempotency_key: Optional[str] = None, now: _Time = None
    ) -> dict[str, Any]: ...
    def outcome(self, now: _Time = None) -> str: ...
    def __len__(self) -> int: ...
def verify_artifact(
    artifact: _Bytes, *, content_digest: str, x_consensus_sha256: str, outcome: str = "reached"
) -> str: ...
