"""One verdict for room commands, invitation checks and session apply (issue 33).

Three crafted corpora go through every concordia-rs surface that offers the operation, and
each surface must give the same verdict and the same reason class, the one written next to
each case:

* **invitation checks**: the CLI (``concordia consensus invitation``), the C ABI
  (``concordia_consensus_invitation_check``, ctypes), the wheel
  (``consensus.validate_invitation``, and ``parse_invitation().valid``) and UniFFI's Python
  backend (``consensus_validate_invitation``). Oracle: the URL checks written here from the
  invitation format with ``urllib.parse`` (https, the origin, no query, one UUID, a
  base64url ``secret=``).
* **room commands**: each scenario's commands go one by one through a live room (C
  ``concordia_consensus_room_apply``, the wheel's ``Room.apply``, UniFFI's
  ``ConsensusRoom.apply``: status, outcome, refusal), and as a room log through every
  replay (CLI ``consensus outcome``, the wheel's ``room_outcome``, UniFFI's
  ``consensus_room_outcome``: refused events and outcome).
* **session apply**: each scenario's signed messages go through a session on the CLI
  (``session replay --json``), C (``concordia_session_apply``), the wheel
  (``Session.apply_message``) and UniFFI (``Session.apply``), and through the reference
  SDK's ``concordia.session.Session.apply_message`` (concordia-protocol 0.10.0): our SDK
  exception names (CLI, wheel) must be the SDK's wherever the SDK makes the check
  (``sdk=False`` marks the rules the SDK does not check: the session TTL, duplicate member
  names, keys that are not an object).

Messages are signed with the SDK's own ``sign_message`` and chained with its
``compute_hash``. Run by tools/ci/verdict.sh with ``CONCORDIA_CLI``, ``CONCORDIA_FFI_LIB``
and ``CONCORDIA_UNIFFI_PY`` as the other verdict tests. A missing surface fails the test.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from cross_surface_verdict import c_verdict, uniffi_module  # noqa: E402

ACCEPT = "accept"
UTC = dt.timezone.utc
NA = "n/a"  # the surface cannot take this input (a str cannot hold invalid UTF-8, ...)
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "consensus"
CLI_CLASSES = (("malformed JSON", "input"), ("invalid encoding", "input"), ("invalid argument", "input"),
               ("schema check failed", "schema"), ("signature verification failed", "signature"),
               ("no public key is known", "signature"), ("digest mismatch", "digest"),
               ("binding check failed", "binding"), ("temporal check failed", "temporal"),
               ("privacy check failed", "privacy"), ("invalid transition", "transition"))


def unix(text: str) -> int:
    return int(dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


def when(text: str) -> dt.datetime:
    return dt.datetime.fromtimestamp(unix(text), UTC)


def cli_class(stderr: bytes) -> str:
    err = stderr.decode("utf-8", "replace")
    return next((c for prefix, c in CLI_CLASSES if prefix in err), f"unknown: {err.strip()}")


# --------------------------------------------------------------------------- the surfaces


class Str(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_char_p), ("len", ctypes.c_size_t)]


def cstr(s: Optional[str | bytes]) -> Str:
    if s is None:
        return Str(None, 0)
    b = s.encode() if isinstance(s, str) else s
    return Str(b, len(b))


class Surfaces:
    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        import concordia_rs

        self.rs = concordia_rs
        missing = []
        self.cli = os.environ.get("CONCORDIA_CLI", "")
        if not self.cli or not os.access(self.cli, os.X_OK):
            missing.append(f"CONCORDIA_CLI={self.cli!r} is not an executable")
        lib = os.environ.get("CONCORDIA_FFI_LIB", "")
        if not lib or not Path(lib).is_file():
            missing.append(f"CONCORDIA_FFI_LIB={lib!r} is not a file")
        else:
            self.c = ctypes.CDLL(lib)
            self.c.concordia_result_class.argtypes = [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t,
                                                      ctypes.POINTER(ctypes.c_size_t)]
            P, U8, U32, U64, I64, SZ = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint64,
                                        ctypes.c_int64, ctypes.c_size_t)
            for name, args in (
                ("concordia_consensus_invitation_check", [U8, SZ, Str, P]),
                ("concordia_consensus_room_new", [U64, Str, I64, P, SZ, P]),
                ("concordia_consensus_room_apply", [P, Str, U8, SZ, Str, I64, P]),
                ("concordia_session_new", [Str, I64, P, P]),
                ("concordia_session_add_party", [P, Str, U32, U8, SZ]),
                ("concordia_session_apply", [P, U8, SZ, I64, U8, SZ, P]),
            ):
                getattr(self.c, name).argtypes = args
                getattr(self.c, name).restype = U32
            for name in ("concordia_consensus_room_free", "concordia_session_free"):
                getattr(self.c, name).argtypes = [P]
                getattr(self.c, name).restype = None
        self.uniffi = uniffi_module(missing)
        if missing:
            pytest.fail("a surface is missing: " + "; ".join(missing))

    def file(self, data: bytes | str) -> str:
        fd, p = tempfile.mkstemp(dir=self.workdir, suffix=".json")
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        return p

    def c_class(self, code: int) -> str:
        return c_verdict(self.c, code)


@pytest.fixture(scope="module")
def surfaces(tmp_path_factory: pytest.TempPathFactory) -> Surfaces:
    return Surfaces(tmp_path_factory.mktemp("consensus-session-verdict"))


# --------------------------------------------------------------------------- invitations

EMAIL = (EXAMPLES / "email.txt").read_text()
UUID = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f"


@dataclass
class Inv:
    name: str
    email: bytes
    expect: str
    origin: Optional[str] = None


def inv_corpus() -> list[Inv]:
    e = EMAIL
    other = "0b1c2d3e-4f50-4a6b-8c7d-9e0f1a2b3c4d"

    def sub(old: str, new: str, count: int = 1) -> bytes:
        assert old in e, old
        return e.replace(old, new, count).encode()

    return [
        Inv("valid", e.encode(), ACCEPT),
        Inv("valid, the default origin given by name", e.encode(), ACCEPT, "https://consensus.md"),
        Inv("http invite URL", sub("https://consensus.md/i/", "http://consensus.md/i/"), "binding"),
        Inv("another origin", sub("https://consensus.md/api", "https://consensus.example/api"), "binding"),
        Inv("another origin asked for", e.encode(), "binding", "https://staging.consensus.md"),
        Inv("query string in the exchange URL", sub("/exchange\"", "/exchange?token=1\""), "privacy"),
        Inv("UUIDs differ", sub("/i/" + UUID, "/i/" + other), "binding"),
        Inv("fragment is not secret=", sub("#secret=", "#token="), "input"),
        Inv("secret is not base64url", sub("#secret=6_asp1", "#secret=6+asp1"), "input"),
        Inv("escaped invitation_id, decodes equal", sub('"invitation_id": "3f2b', '"invitation_id": "\\u0033f2b'),
            ACCEPT),
        Inv("escaped slashes in the exchange URL, decode equal",
            sub('"href": "https://consensus.md/', '"href": "https:\\/\\/consensus.md\\/'), ACCEPT),
        Inv("duplicate member name", sub('"schema":', '"schema": "x", "schema":'), "input"),
        Inv("no markers", sub("---BEGIN CONSENSUS INVITATION V1---", ""), "schema"),
        Inv("not JSON inside the block", sub('"agent_claim": {', '"agent_claim": {{'), "input"),
        Inv("invalid UTF-8 in the block", e.encode().replace(b"A private proof", b"A \xff proof"), "input"),
        Inv("malformed origin argument", e.encode(), "input", "http://consensus.md"),
    ]


INV_CASES = inv_corpus()


def inv_oracle(email: bytes, origin: Optional[str]) -> str:
    """The URL checks from the format (``accept`` or ``reject``); ``skip`` when the block is
    not a JSON object (the oracle is about the URLs)."""
    try:
        text = email.decode()
        block = text.split("---BEGIN CONSENSUS INVITATION V1---", 1)[1].split("---END CONSENSUS INVITATION V1---")[0]
        def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
            d = dict(pairs)
            if len(d) != len(pairs):
                raise ValueError("duplicate member name")
            return d

        doc = json.loads(block, object_pairs_hook=unique)
    except Exception:  # noqa: BLE001
        return "skip"
    want = origin or "https://consensus.md"
    if not re.fullmatch(r"https://[a-z0-9.-]+", want):
        return "skip"
    invite = urllib.parse.urlsplit(doc["invite_uri"])
    exchange = urllib.parse.urlsplit(doc["agent_exchange"]["href"])
    ok = all(u.scheme == "https" and f"{u.scheme}://{u.netloc}" == want for u in (invite, exchange))
    ok &= not invite.query and not exchange.query and not exchange.fragment
    ok &= invite.path == "/i/" + doc["invitation_id"]
    ok &= exchange.path == f"/api/v1/agent/invitations/{doc['invitation_id']}/exchange"
    frag = invite.fragment
    ok &= frag.startswith("secret=") and bool(re.fullmatch(r"[A-Za-z0-9_-]+", frag[7:]))
    return ACCEPT if ok else "reject"


def inv_verdicts(s: Surfaces, case: Inv) -> dict[str, str]:
    got: dict[str, str] = {}
    args = [s.cli, "consensus", "invitation"] + (["--origin", case.origin] if case.origin else []) + [s.file(case.email)]
    p = subprocess.run(args, capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    got["cli"] = ACCEPT if p.returncode == 0 else cli_class(p.stderr)
    if p.returncode == 0 or p.stdout:  # the block parsed: the summary is printed on a refusal too
        assert json.loads(p.stdout)["valid"] == (p.returncode == 0), case.name
    info = ctypes.create_string_buffer(1024)  # concordia_consensus_invitation is 568 bytes
    got["c"] = s.c_class(s.c.concordia_consensus_invitation_check(case.email, len(case.email), cstr(case.origin), info))
    try:
        s.rs.consensus.validate_invitation(case.email, origin=case.origin)
        got["python"] = ACCEPT
    except Exception as e:  # noqa: BLE001 - the class is the answer
        got["python"] = getattr(e, "reason_class", None) or f"unknown: {type(e).__name__}: {e}"
    try:
        lenient = s.rs.consensus.parse_invitation(case.email, origin=case.origin)
        assert lenient.valid == (got["python"] == ACCEPT), case.name
    except Exception:  # noqa: BLE001 - the block did not parse: validate raised too
        assert got["python"] != ACCEPT
    try:
        text = case.email.decode()
    except UnicodeDecodeError:
        got["uniffi"] = NA
    else:
        try:
            s.uniffi.consensus_validate_invitation(text, case.origin)
            got["uniffi"] = ACCEPT
        except s.uniffi.ConsensusError as e:
            got["uniffi"] = type(e).__name__.lower()
    return got


@pytest.mark.parametrize("case", INV_CASES, ids=[c.name for c in INV_CASES])
def test_invitation_one_verdict(surfaces: Surfaces, case: Inv) -> None:
    got = inv_verdicts(surfaces, case)
    classes = {v for v in got.values() if v != NA}
    assert classes == {case.expect}, f"{case.name}: {got}, expected {case.expect}"
    oracle = inv_oracle(case.email, case.origin)
    if oracle != "skip" and case.expect in (ACCEPT, "binding", "privacy"):
        assert (oracle == ACCEPT) == (case.expect == ACCEPT), f"{case.name}: oracle {oracle}"


# --------------------------------------------------------------------------- room commands

DIGEST = "a39a0a21abf129e36aac6299298167f0f0ee3f6dbca6bbecc8079ec894131099"
DEADLINE = "2026-09-10T00:00:00Z"
T = "2026-09-06T12:00:00Z"
ROSTER = [("dana", "human"), ("bot", "agent")]
OUTCOMES = ["pending", "reached", "disagreed", "no_consensus", "expired"]
# The core's one table (Refusal -> Error) read as reason classes.
REFUSAL_CLASS = {"not_found": "signature", "closed": "transition", "duplicate_decision": "transition",
                 "expired": "temporal", "stale_digest": "digest", "idempotency_conflict": "binding",
                 "event_limit": "limit", "capacity": "limit"}


def wire(action: str, body: str = "", revision: int = 1, digest: str = DIGEST) -> str:
    return json.dumps({"action": action, "body": body, "digest": digest, "revision": revision})


@dataclass
class Step:
    participant: str
    wire: str
    status: int
    outcome: str
    reason: Optional[str] = None  # the refusal word, None when accepted
    bad_request_class: Optional[str] = None  # the class of a 400's error
    key: Optional[str] = None
    at: str = T


@dataclass
class Scenario:
    name: str
    steps: list[Step]
    replay: bool = True  # False: the log would not be one JSON document (duplicate members)


AGREE, DISAGREE = wire("agree"), wire("disagree")


def room_corpus() -> list[Scenario]:
    later = "2026-09-10T00:00:00Z"
    return [
        Scenario("both agree, replays are 200", [
            Step("dana", wire("comment", "Body only?"), 201, "pending"),
            Step("dana", AGREE, 201, "pending"),
            Step("dana", AGREE, 200, "pending"),
            Step("bot", AGREE, 201, "reached"),
            Step("bot", wire("comment", "late"), 409, "reached", "closed"),
        ]),
        Scenario("escaped spellings: a body that decodes equal is an exact replay; the venue's words are plain", [
            Step("dana", wire("comment", "Body only?"), 201, "pending"),
            Step("dana", wire("comment", "Body only?").replace("Body", "B\\u006fdy"), 200, "pending"),
            Step("dana", AGREE.replace('"agree"', '"\\u0061gree"'), 400, "pending", "bad_request", "schema"),
            Step("dana", AGREE.replace('"digest": "a39a', '"digest": "\\u0061\\u0033\\u0039a'), 400, "pending",
                 "bad_request", "schema"),
            Step("dana", AGREE, 201, "pending"),
            Step("bot", AGREE, 201, "reached"),
        ]),
        Scenario("stale digest, unknown participant, duplicate decision", [
            Step("bot", wire("agree", digest="0" * 64), 409, "pending", "stale_digest"),
            Step("bot", wire("agree", revision=2), 409, "pending", "stale_digest"),
            Step("eve", AGREE, 404, "pending", "not_found"),
            Step("dana", AGREE, 201, "pending"),
            Step("dana", DISAGREE, 409, "pending", "duplicate_decision"),
            Step("bot", wire("abstain"), 201, "no_consensus"),
        ]),
        Scenario("idempotency: a key reused for another command", [
            Step("dana", wire("comment", "one"), 201, "pending", key="key-0001"),
            Step("dana", wire("comment", "one"), 200, "pending", key="key-0001"),
            Step("dana", wire("comment", "two"), 409, "pending", "idempotency_conflict", key="key-0001"),
        ]),
        Scenario("the deadline", [
            Step("dana", AGREE, 201, "pending"),
            Step("bot", AGREE, 409, "expired", "expired", at=later),
        ]),
        Scenario("malformed commands are 400 and change nothing", [
            Step("dana", '{"action":"agree"}', 400, "pending", "bad_request", "schema"),
            Step("dana", wire("agree", "a body"), 400, "pending", "bad_request", "schema"),
            Step("dana", wire("comment", ""), 400, "pending", "bad_request", "schema"),
            Step("dana", wire("vote"), 400, "pending", "bad_request", "schema"),
            Step("dana", wire("agree", digest="xyz"), 400, "pending", "bad_request", "input"),
            Step("dana", DISAGREE, 201, "disagreed"),
        ]),
        Scenario("duplicate member names in a wire body", [
            Step("dana", AGREE.replace('{"action": "agree"', '{"action": "comment", "action": "agree"'), 400,
                 "pending", "bad_request", "input"),
            Step("dana", AGREE, 201, "pending"),
        ], replay=False),
    ]


ROOM_CASES = room_corpus()


def live_verdicts(s: Surfaces, sc: Scenario) -> dict[str, list[Any]]:
    got: dict[str, list[Any]] = {"c": [], "python": [], "uniffi": []}

    class Participant(ctypes.Structure):
        _fields_ = [("id", Str), ("kind", ctypes.c_uint32)]

    class Applied(ctypes.Structure):
        _fields_ = [("status", ctypes.c_uint32), ("event", ctypes.c_size_t), ("outcome", ctypes.c_uint32)]

    roster = (Participant * len(ROSTER))(*[Participant(cstr(i), 0 if k == "human" else 1) for i, k in ROSTER])
    room = ctypes.c_void_p()
    assert s.c.concordia_consensus_room_new(1, cstr(DIGEST), unix(DEADLINE), ctypes.cast(roster, ctypes.c_void_p),
                                            len(ROSTER), ctypes.byref(room)) == 0
    py_room = s.rs.consensus.Room(1, DIGEST, DEADLINE, ROSTER)
    kinds = s.uniffi.ConsensusParticipantKind
    u_room = s.uniffi.ConsensusRoom(1, DIGEST, when(DEADLINE), [
        s.uniffi.ConsensusParticipant(id=i, kind=kinds.HUMAN if k == "human" else kinds.AGENT) for i, k in ROSTER])
    try:
        for st in sc.steps:
            a = Applied()
            w = st.wire.encode()
            code = s.c.concordia_consensus_room_apply(room, cstr(st.participant), w, len(w), cstr(st.key),
                                                      unix(st.at), ctypes.byref(a))
            got["c"].append((a.status, OUTCOMES[a.outcome], s.c_class(code)))
            r = py_room.apply(st.participant, st.wire, idempotency_key=st.key, now=st.at)
            reason = r["refused"].split(" ", 1)[1].split(":")[0] if r["refused"] else None
            assert (r["event"] is None) == (reason is not None)
            got["python"].append((r["status"], r["outcome"], reason))
            u = u_room.apply(st.participant, st.wire, st.key, when(st.at))
            reason = u.refused.split(" ", 1)[1].split(":")[0] if u.refused else None
            assert (u.event is None) == (reason is not None)
            got["uniffi"].append((u.status, u.outcome.name.lower(), reason))
    finally:
        s.c.concordia_consensus_room_free(room)
    return got


@pytest.mark.parametrize("sc", ROOM_CASES, ids=[c.name for c in ROOM_CASES])
def test_room_commands_one_verdict(surfaces: Surfaces, sc: Scenario) -> None:
    got = live_verdicts(surfaces, sc)
    want_words = [(st.status, st.outcome, st.reason) for st in sc.steps]
    want_classes = [(st.status, st.outcome, ACCEPT if st.reason is None else
                     st.bad_request_class or REFUSAL_CLASS[st.reason]) for st in sc.steps]
    assert got["python"] == want_words, sc.name
    assert got["uniffi"] == want_words, sc.name
    assert got["c"] == want_classes, sc.name


def room_log(sc: Scenario) -> str:
    events = []
    for st in sc.steps:
        extra = {"participant": st.participant, "at": st.at}
        if st.key is not None:
            extra["idempotency_key"] = st.key
        events.append("{" + json.dumps(extra)[1:-1] + ", " + st.wire.strip()[1:])
    head = json.dumps({"revision": 1, "digest": DIGEST, "deadline": DEADLINE,
                       "roster": [{"id": i, "kind": k} for i, k in ROSTER]})
    return head[:-1] + ', "events": [' + ", ".join(events) + "]}"


@pytest.mark.parametrize("sc", [c for c in ROOM_CASES if c.replay], ids=[c.name for c in ROOM_CASES if c.replay])
def test_room_log_replays_to_the_same_refusals_and_outcome(surfaces: Surfaces, sc: Scenario) -> None:
    s = surfaces
    log = room_log(sc)
    json.loads(log)  # one well-formed document
    now = sc.steps[-1].at
    want_refused = [(i, f"{st.status} {st.reason}") for i, st in enumerate(sc.steps) if st.reason is not None]
    want = (sc.steps[-1].outcome, want_refused)
    p = subprocess.run([s.cli, "consensus", "outcome", s.file(log), "--now", now], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    refused = [(int(m[1]), m[2]) for m in re.finditer(r"event (\d+): (\d{3} \w+)", p.stderr.decode())]
    assert (p.stdout.decode().strip(), refused) == want, "cli"
    r = s.rs.consensus.room_outcome(log, now=now)
    assert (r.outcome, [(i, msg.split(":")[0]) for i, _, _, msg in r.refused]) == want, "python"
    u = s.uniffi.consensus_room_outcome(log, when(now))
    assert (u.outcome.name.lower(), [(e.index, e.message.split(":")[0]) for e in u.refused]) == want, "uniffi"


# --------------------------------------------------------------------------- session apply

SID = "ses_verdict"
CREATED = "2026-06-01T00:00:00Z"
SELLER, BUYER, MALLORY = "did:concordia:agent:seller", "did:concordia:agent:buyer", "did:concordia:agent:mallory"
TIMING = {"session_ttl": 86400, "offer_ttl": 3600, "max_rounds": 2}


def keypair(name: str) -> Any:
    from concordia.signing import KeyPair
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    priv = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(name.encode()).digest())
    return KeyPair(private_key=priv, public_key=priv.public_key())


def b64(kp: Any) -> str:
    return kp.public_key_b64()


@dataclass
class Msg:
    text: bytes
    at: str
    expect: str  # a state or the reason class
    sdk: bool = True  # the SDK makes this check (its exception name is ours)


@dataclass
class SessionCase:
    name: str
    msgs: list[Msg]
    keys: Optional[str] = None  # JSON text of the caller's keys (None: the parties' keys)
    python_keys: bool = True  # the wheel's resolver can express `keys`


class Chain:
    """Signs messages with the SDK's sign_message and links them with its compute_hash."""

    def __init__(self) -> None:
        from concordia.message import GENESIS_HASH

        self.prev = GENESIS_HASH
        self.n = 0
        self.kps = {SELLER: keypair("seller"), BUYER: keypair("buyer"), MALLORY: keypair("mallory")}

    def msg(self, mtype: str, sender: str, body: dict[str, Any], at: str, *, link: bool = True,
            signer: Optional[str] = None, **over: Any) -> dict[str, Any]:
        from concordia.message import compute_hash
        from concordia.signing import sign_message

        self.n += 1
        m = {"concordia": "0.1.0", "type": mtype, "id": f"msg_{self.n}", "session_id": SID, "timestamp": at,
             "from": {"agent_id": sender}, "prev_hash": self.prev, "body": body}
        m.update(over)
        m["signature"] = sign_message(m, self.kps[signer or sender])
        if link:
            self.prev = compute_hash(m)
        return m


def text(m: dict[str, Any]) -> bytes:
    return json.dumps(m).encode()


def respell(b: bytes, plain: str, escaped: str) -> bytes:
    out = b.replace(plain.encode(), escaped.encode(), 1)
    assert out != b, plain
    return out


def offer(price: int) -> dict[str, Any]:
    from concordia.offer import BasicOffer

    return BasicOffer(terms={"price": {"value": price, "currency": "USD"}}).to_body()


OPEN_BODY = {"terms": {"price": {"type": "numeric", "unit": "USD"}}}


def opening(c: Chain, accepted: bool = True) -> list[Msg]:
    """negotiate.open by the seller, then (``accepted``) negotiate.accept_session by the buyer."""
    ms = [Msg(text(c.msg("negotiate.open", SELLER, OPEN_BODY, "2026-06-01T00:01:00Z")), "2026-06-01T00:01:00Z",
              "proposed")]
    if accepted:
        ms.append(Msg(text(c.msg("negotiate.accept_session", BUYER, {}, "2026-06-01T00:02:00Z")),
                      "2026-06-01T00:02:00Z", "active"))
    return ms


def session_corpus() -> list[SessionCase]:
    cases = []

    c = Chain()
    ms = opening(c)
    ms.append(Msg(text(c.msg("negotiate.offer", SELLER, offer(2200), "2026-06-01T00:03:00Z")),
                  "2026-06-01T00:03:00Z", "active"))
    ms.append(Msg(text(c.msg("negotiate.accept", BUYER, {}, "2026-06-01T00:04:00Z")), "2026-06-01T00:04:00Z",
                  "agreed"))
    cases.append(SessionCase("valid negotiation", ms))

    c = Chain()
    m = text(c.msg("negotiate.open", SELLER, OPEN_BODY, "2026-06-01T00:01:00Z", link=False))
    cases.append(SessionCase("bad signature (tampered body)", [
        Msg(m.replace(b'"numeric"', b'"categorical"'), "2026-06-01T00:01:00Z", "signature")]))
    c = Chain()
    cases.append(SessionCase("signed by another key", [
        Msg(text(c.msg("negotiate.open", SELLER, OPEN_BODY, "2026-06-01T00:01:00Z", signer=MALLORY)),
            "2026-06-01T00:01:00Z", "signature")]))
    c = Chain()
    cases.append(SessionCase("unknown sender", [
        Msg(text(c.msg("negotiate.open", MALLORY, OPEN_BODY, "2026-06-01T00:01:00Z")), "2026-06-01T00:01:00Z",
            "signature")]))

    c = Chain()
    ms = opening(c)
    from concordia.message import GENESIS_HASH

    ms.append(Msg(text(c.msg("negotiate.offer", SELLER, offer(2200), "2026-06-01T00:03:00Z", prev_hash=GENESIS_HASH)),
                  "2026-06-01T00:03:00Z", "binding"))
    cases.append(SessionCase("wrong chain (a forked prev_hash)", ms))

    c = Chain()
    cases.append(SessionCase("wrong session binding", [
        Msg(text(c.msg("negotiate.open", SELLER, OPEN_BODY, "2026-06-01T00:01:00Z", session_id="ses_other")),
            "2026-06-01T00:01:00Z", "binding")]))

    c = Chain()
    cases.append(SessionCase("wrong transition (an offer before the session is accepted)", [
        *opening(c, accepted=False),
        Msg(text(c.msg("negotiate.offer", SELLER, offer(2200), "2026-06-01T00:03:00Z")), "2026-06-01T00:03:00Z",
            "transition")]))

    c = Chain()
    ms = opening(c)
    ms += [Msg(text(c.msg("negotiate.offer", SELLER, offer(2200), "2026-06-01T00:03:00Z")), "2026-06-01T00:03:00Z",
               "active"),
           Msg(text(c.msg("negotiate.counter", BUYER, offer(1900), "2026-06-01T00:04:00Z", reasoning="budget")),
               "2026-06-01T00:04:00Z", "active"),
           Msg(text(c.msg("negotiate.counter", SELLER, offer(2100), "2026-06-01T00:05:00Z", reasoning="cost")),
               "2026-06-01T00:05:00Z", "transition")]
    cases.append(SessionCase("max rounds", ms))

    c = Chain()
    late = "2026-06-02T00:00:01Z"
    cases.append(SessionCase("expired (past the session TTL)", [
        *opening(c, accepted=False),
        Msg(text(c.msg("negotiate.accept_session", BUYER, {}, late)), late, "temporal", sdk=False)]))

    c = Chain()
    ms = opening(c)
    ms[0].text = respell(ms[0].text, f'"session_id": "{SID}"', '"session_id": "ses_\\u0076erdict"')
    ms[1].text = respell(ms[1].text, f'"agent_id": "{BUYER}"', '"agent_id": "did:concordia:agent:\\u0062uyer"')
    cases.append(SessionCase("escaped session_id and sender, decode equal", ms))

    c = Chain()
    m = text(c.msg("negotiate.open", SELLER, OPEN_BODY, "2026-06-01T00:01:00Z"))
    cases.append(SessionCase("duplicate member name", [
        Msg(m.replace(b'"type": "negotiate.open"', b'"type": "negotiate.offer", "type": "negotiate.open"', 1),
            "2026-06-01T00:01:00Z", "input", sdk=False)]))

    c = Chain()
    m = text(c.msg("negotiate.open", SELLER, {"terms": {"note": {"value": "caf\u00e9"}}}, "2026-06-01T00:01:00Z"))
    cases.append(SessionCase("invalid UTF-8", [Msg(m.replace("caf\\u00e9".encode(), b"caf\xe9"),
                                                   "2026-06-01T00:01:00Z", "input", sdk=False)]))

    c = Chain()
    keys = "{" + f'"did:concordia:agent:\\u0073eller": "{b64(c.kps[SELLER])}", "{BUYER}": "{b64(c.kps[BUYER])}"' + "}"
    cases.append(SessionCase("caller's keys, an escaped agent id decodes equal", opening(c), keys=keys))

    c = Chain()
    cases.append(SessionCase("caller's keys lack the sender", [
        Msg(text(c.msg("negotiate.open", SELLER, OPEN_BODY, "2026-06-01T00:01:00Z")), "2026-06-01T00:01:00Z",
            "signature")], keys=json.dumps({BUYER: b64(c.kps[BUYER])})))

    for bad in ("[]", "null"):
        c = Chain()
        cases.append(SessionCase(f"caller's keys are {bad}, not an object", [
            Msg(text(c.msg("negotiate.open", SELLER, OPEN_BODY, "2026-06-01T00:01:00Z")), "2026-06-01T00:01:00Z",
                "schema", sdk=False)], keys=bad, python_keys=False))
    names = [k.name for k in cases]
    assert len(names) == len(set(names))
    return cases


SESSION_CASES = session_corpus()
PARTIES = [(SELLER, "initiator"), (BUYER, "responder")]


def run_cli_session(s: Surfaces, case: SessionCase) -> tuple[list[str], list[Optional[str]]]:
    kps = Chain().kps
    spec: dict[str, Any] = {"session_id": SID, "created_at": CREATED, "timing": TIMING,
                            "parties": [{"agent_id": a, "role": r, "public_key_b64url": b64(kps[a])} for a, r in PARTIES]}
    spec_text = json.dumps(spec)
    if case.keys is not None:
        spec_text = spec_text[:-1] + f', "public_keys_b64url": {case.keys}' + "}"
    msgs = b"[" + b", ".join(m.text for m in case.msgs) + b"]"
    p = subprocess.run([s.cli, "session", "replay", "--json", "--session", s.file(spec_text), s.file(msgs)],
                       capture_output=True, timeout=60)
    lines = [json.loads(line) for line in p.stdout.decode().splitlines()]
    if not lines:  # the messages file as a whole is not JSON: every surface refuses the message
        return [cli_class(p.stderr)], [None]
    per = lines[:-1]
    assert len(per) == len(case.msgs), (case.name, p.stdout, p.stderr)
    return ([ln["state"] if ln["ok"] else ln["class"] for ln in per],
            [None if ln["ok"] else ln["error"] for ln in per])


def run_c_session(s: Surfaces, case: SessionCase) -> list[str]:
    class Timing(ctypes.Structure):
        _fields_ = [("session_ttl", ctypes.c_uint32), ("offer_ttl", ctypes.c_uint32), ("max_rounds", ctypes.c_uint32)]

    kps = Chain().kps
    sess = ctypes.c_void_p()
    t = Timing(**TIMING)
    assert s.c.concordia_session_new(cstr(SID), unix(CREATED), ctypes.byref(t), ctypes.byref(sess)) == 0
    out = []
    try:
        for i, (a, r) in enumerate(PARTIES):
            key = kps[a].public_key_bytes()
            assert s.c.concordia_session_add_party(sess, cstr(a), ["initiator", "responder"].index(r), key,
                                                   len(key)) == 0, i
        keys = None if case.keys is None else case.keys.encode()
        for m in case.msgs:
            st = ctypes.c_uint32()
            code = s.c.concordia_session_apply(sess, m.text, len(m.text), unix(m.at), keys,
                                               0 if keys is None else len(keys), ctypes.byref(st))
            out.append(STATES[st.value] if code == 0 else s.c_class(code))
    finally:
        s.c.concordia_session_free(sess)
    return out


STATES = ["proposed", "active", "agreed", "rejected", "expired", "dormant"]


def python_resolver(case: SessionCase) -> Any:
    if case.keys is None:
        return None
    keys = json.loads(case.keys)  # decoded: the escaped spelling is the same id
    return lambda agent: keys.get(agent)


def run_python_session(s: Surfaces, case: SessionCase) -> tuple[list[str], list[Optional[str]]]:
    if not case.python_keys:
        return [NA] * len(case.msgs), [None] * len(case.msgs)
    kps = Chain().kps
    sess = s.rs.Session(SID, TIMING, unix(CREATED))
    for a, r in PARTIES:
        sess.add_party(a, r, kps[a].public_key)
    out: list[str] = []
    names: list[Optional[str]] = []
    for m in case.msgs:
        try:
            doc = json.loads(m.text)
        except (UnicodeDecodeError, json.JSONDecodeError):
            out.append(NA)
            names.append(None)
            continue
        if b'"type": "negotiate.offer", "type"' in m.text:  # a dict holds one member per name
            out.append(NA)
            names.append(None)
            continue
        try:
            out.append(sess.apply_message(doc, python_resolver(case), now=unix(m.at)))
            names.append(None)
        except Exception as e:  # noqa: BLE001 - the class is the answer
            out.append(getattr(e, "reason_class", None) or f"unknown: {type(e).__name__}: {e}")
            names.append(next((k.__name__ for k in type(e).__mro__ if k.__module__.startswith("concordia.")),
                              type(e).__name__))
    return out, names


def run_uniffi_session(s: Surfaces, case: SessionCase) -> list[str]:
    u = s.uniffi
    kps = Chain().kps
    sess = u.Session(SID, when(CREATED), u.Timing(**TIMING))
    for a, r in PARTIES:
        sess.add_party(a, getattr(u.Role, r.upper()), b64(kps[a]))
    out = []
    for m in case.msgs:
        try:
            t = m.text.decode()
        except UnicodeDecodeError:
            out.append(NA)
            continue
        try:
            out.append(sess.apply(t, when(m.at), case.keys).name.lower())
        except u.ProtocolError as e:
            out.append(type(e).__name__.lower())
    return out


def run_sdk_session(case: SessionCase) -> list[Optional[str]]:
    """The reference SDK's verdict per message: the state's value, or its exception name."""
    from concordia.session import Session
    from concordia.signing import public_key_from_b64url
    from concordia.types import PartyRole, TimingConfig

    kps = Chain().kps
    sess = Session(session_id=SID, timing=TimingConfig(**TIMING))
    for a, r in PARTIES:
        sess.add_party(a, PartyRole(r), kps[a].public_key)
    if case.keys is None:
        registered = {a: kps[a].public_key for a, _ in PARTIES}
        resolver = registered.get
    else:
        keys = json.loads(case.keys)
        resolver = lambda a: public_key_from_b64url(keys[a]) if isinstance(keys, dict) and a in keys else None  # noqa: E731
    out: list[Optional[str]] = []
    for m in case.msgs:
        if not m.sdk:
            out.append(None)
            continue
        try:
            out.append("state:" + sess.apply_message(json.loads(m.text), resolver).value)
        except Exception as e:  # noqa: BLE001 - the SDK's verdict is the exception's type
            out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("case", SESSION_CASES, ids=[c.name for c in SESSION_CASES])
def test_session_apply_one_verdict(surfaces: Surfaces, case: SessionCase) -> None:
    s = surfaces
    want = [m.expect for m in case.msgs]
    cli, cli_names = run_cli_session(s, case)
    py, py_names = run_python_session(s, case)
    got = {"cli": cli, "c": run_c_session(s, case), "python": py, "uniffi": run_uniffi_session(s, case)}
    if len(cli) != len(want):  # the whole messages file is malformed for the CLI
        assert cli == [want[0]] and len(want) == 1, (case.name, cli)
        got["cli"] = want
    for name, verdicts in got.items():
        assert len(verdicts) == len(want), (name, verdicts)
        for i, (g, w) in enumerate(zip(verdicts, want)):
            assert g in (w, NA), f"{case.name}: message {i}: {name} says {g}, expected {w} ({got})"
    # The reference SDK: the same accept/reject, and the same exception name, wherever it
    # makes the check (stopping at the first message the SDK does not judge: the states
    # part there by design).
    sdk = run_sdk_session(case)
    for i, (m, v) in enumerate(zip(case.msgs, sdk)):
        if v is None:
            break
        if m.expect in STATES:
            assert v == "state:" + m.expect, f"{case.name}: message {i}: the SDK says {v}"
        else:
            assert not v.startswith("state:"), f"{case.name}: message {i}: the SDK accepts ({v})"
            for who, names in (("cli", cli_names), ("python", py_names)):
                if names[i] is not None:
                    assert names[i] == v, f"{case.name}: message {i}: {who} names {names[i]}, the SDK {v}"
