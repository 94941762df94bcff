"""concordia_rs.consensus (issue 17): every function and error, against independent oracles
(hashlib and rfc8785 for digests, base64 for Content-Digest) and the release CLI
(`concordia consensus ...`) on the same files."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import pathlib
import subprocess

import pytest
import rfc8785

import concordia_rs as c
from concordia_rs import consensus as cs

EX = pathlib.Path(__file__).resolve().parents[2] / "examples" / "consensus"
REVISION = json.loads((EX / "revision.json").read_text())
DIGEST = "a39a0a21abf129e36aac6299298167f0f0ee3f6dbca6bbecc8079ec894131099"
ROOM = json.loads((EX / "room.json").read_text())
EMAIL = (EX / "email.txt").read_text()


def run(cli: pathlib.Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(cli), *args], input=stdin, capture_output=True, check=False)


def test_module_shape() -> None:
    assert c.consensus is cs and cs.__name__ == "concordia_rs.consensus"
    assert cs.DEFAULT_ORIGIN == "https://consensus.md"
    assert cs.ACTIONS == ["comment", "question", "change_request", "agree", "disagree", "abstain"]
    assert cs.OUTCOMES == ["pending", "reached", "disagreed", "no_consensus", "expired"]


@pytest.mark.parametrize(
    "revision",
    [
        REVISION,
        {"b": [1, 2.5, "ü", None, True], "a": {"z": 1e21, "y": -0.5}},
        {"big": 2**60, "small": -(2**60), "float": 1e-7, "text": "\u2028\u00e9\U0001f600"},
        [],
    ],
)
def test_revision_digest_equals_rfc8785_and_cli(revision: object, concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    text = json.dumps(revision)
    path = tmp_path / "rev.json"
    path.write_text(text)
    cli = run(concordia_cli, "consensus", "digest", str(path))
    assert cli.returncode == 0, cli.stderr
    want = cli.stdout.decode().strip()
    assert cs.revision_digest(revision) == want
    assert cs.revision_digest(text) == want
    assert cs.revision_digest(text.encode()) == want
    assert cs.revision_digest(bytearray(text.encode())) == want
    # The oracle: SHA-256 of the RFC 8785 form (big integers as the nearest double, as
    # JavaScript reads them).
    as_js = json.loads(text, parse_int=lambda s: int(s) if abs(int(s)) <= 2**53 else float(s))
    assert want == hashlib.sha256(rfc8785.dumps(as_js)).hexdigest()


def test_revision_digest_of_the_example() -> None:
    assert cs.revision_digest(REVISION) == DIGEST
    assert cs.verify_revision(REVISION, DIGEST) == DIGEST
    assert cs.verify_revision(json.dumps(REVISION), "sha256:" + DIGEST) == DIGEST


def test_revision_errors() -> None:
    with pytest.raises(c.DigestError):
        cs.verify_revision(REVISION, "0" * 64)
    other = copy.deepcopy(REVISION)
    other["extra"] = 1
    with pytest.raises(c.DigestError):
        cs.verify_revision(other, DIGEST)
    with pytest.raises(c.EncodingError):
        cs.verify_revision(REVISION, "xyz")
    with pytest.raises(c.InvalidJsonError):
        cs.revision_digest('{"a": 1,}')
    with pytest.raises(c.InvalidJsonError):
        cs.revision_digest('{"a": 1, "a": 2}')
    with pytest.raises(c.InvalidArgumentError):
        cs.revision_digest({"x": float("nan")})
    with pytest.raises(c.InvalidArgumentError):
        cs.revision_digest({"x": object()})
    # A lone surrogate is no UTF-8, so no JSON text: in a dict, in text, in Markdown.
    for bad in ({"x": "\ud800"}, '{"x": "\ud800"}'):
        with pytest.raises(c.InvalidArgumentError, match="surrogate"):
            cs.revision_digest(bad)
    with pytest.raises(c.InvalidArgumentError, match="surrogate"):
        cs.markdown_digest("\udc00")


def test_markdown_digest(concordia_cli: pathlib.Path) -> None:
    md = (EX / "agreement.md").read_bytes()
    want = hashlib.sha256(md).hexdigest()
    assert cs.markdown_digest(md) == want == cs.markdown_digest(md.decode())
    assert run(concordia_cli, "consensus", "markdown-digest", str(EX / "agreement.md")).stdout.decode().strip() == want
    assert cs.verify_markdown(md, want) == want
    assert cs.verify_markdown(md.decode(), "sha256:" + want) == want
    with pytest.raises(c.DigestError):
        cs.verify_markdown(md + b"\n", want)
    with pytest.raises(c.EncodingError):
        cs.verify_markdown(md, "not hex")
    with pytest.raises(TypeError):
        cs.markdown_digest(42)  # type: ignore[arg-type]


def test_invitation_parse_matches_cli_and_hides_secrets(concordia_cli: pathlib.Path) -> None:
    inv = cs.parse_invitation(EMAIL)
    cli = json.loads(run(concordia_cli, "consensus", "invitation", str(EX / "email.txt")).stdout)
    assert inv.invitation_id == cli["invitation_id"]
    assert inv.exchange_href == cli["exchange_href"]
    assert inv.checks == cli["checks"] and inv.valid is cli["valid"] is True
    assert cs.validate_invitation(EMAIL.encode()).invitation_id == inv.invitation_id
    block = json.loads(EMAIL.split("---BEGIN CONSENSUS INVITATION V1---")[1].split("---END CONSENSUS INVITATION V1---")[0])
    text = json.dumps(block)
    secret = text.split("#secret=")[1].split('"')[0]
    proof = block["email_proof"] if "email_proof" in block else None
    for shown in (repr(inv), str(inv)):
        assert secret not in shown and "secret=" not in shown
        if proof:
            assert str(proof) not in shown
    req = inv.exchange_request()
    assert req["method"] == "POST" and req["url"] == inv.exchange_href and req["body"] == b"{}"
    assert req["headers"] == {"Authorization": f"Consensus-Invite {secret}", "Content-Type": "application/json"}
    claim = json.loads(inv.claim_body("dana@example.com"))
    assert claim["inbox"] == "dana@example.com" and claim["runtimeEndpoint"] == "" and claim["emailProof"]
    assert claim["emailProof"] not in repr(inv)
    with pytest.raises(c.InvalidArgumentError):
        inv.claim_body("dana@example.com", "http://not-https.example")


def test_invitation_failed_checks(concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # Another origin: the URL checks fail; parse reports them, validate raises.
    inv = cs.parse_invitation(EMAIL, origin="https://venue.example")
    assert inv.valid is False and inv.checks["origin"] is False
    cli = json.loads(run(concordia_cli, "consensus", "invitation", "--origin", "https://venue.example", str(EX / "email.txt")).stdout)
    assert inv.checks == cli["checks"]
    with pytest.raises(c.BindingError):
        cs.validate_invitation(EMAIL, origin="https://venue.example")
    with pytest.raises(c.BindingError):
        inv.exchange_request()
    with pytest.raises(c.BindingError):
        inv.claim_body("dana@example.com")
    with pytest.raises(c.SchemaError):
        cs.parse_invitation("no block here")
    with pytest.raises(c.ConcordiaError):
        cs.parse_invitation(EMAIL, origin="ftp://x")
    with pytest.raises(TypeError):
        cs.parse_invitation(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "action,body,revision",
    [("agree", "", 1), ("disagree", "", 7), ("abstain", "", 2**53 - 1), ("comment", "Looks good", 1),
     ("question", "Is the grip included? é \u2028", 3), ("change_request", "x" * 4000, 1)],
)
def test_build_command_matches_cli(action: str, body: str, revision: int, concordia_cli: pathlib.Path) -> None:
    cmd = cs.build_command(action, body, revision, DIGEST)
    cli = run(concordia_cli, "consensus", "command", "--action", action, "--revision", str(revision), "--digest", DIGEST, "--body", body)
    assert cli.returncode == 0, cli.stderr
    assert cmd.to_dict() == json.loads(cli.stdout)
    assert (cmd.action, cmd.body, cmd.revision, cmd.digest) == (action, body, revision, DIGEST)
    assert json.loads(cmd.wire_body) == {"action": action, "body": body, "revision": revision, "digest": DIGEST}
    assert cmd.wire_body.encode() == rfc8785.dumps(json.loads(cmd.wire_body))
    assert cmd.idempotency_key.startswith("cns1:") and len(cmd.idempotency_key) == 48
    # Parsing the wire body (text or dict) gives the same command and key.
    for wire in (cmd.wire_body, json.loads(cmd.wire_body)):
        back = cs.parse_command(wire)
        assert (back.action, back.body, back.revision, back.digest, back.idempotency_key, back.wire_body) == (
            cmd.action, cmd.body, cmd.revision, cmd.digest, cmd.idempotency_key, cmd.wire_body)
    assert "Command(action=" in repr(cmd)


def test_command_errors() -> None:
    with pytest.raises(c.InvalidArgumentError, match="unknown action"):
        cs.build_command("approve", "", 1, DIGEST)
    with pytest.raises(c.SchemaError):
        cs.build_command("agree", "but", 1, DIGEST)
    with pytest.raises(c.SchemaError):
        cs.build_command("comment", "", 1, DIGEST)
    with pytest.raises(c.ConcordiaError):
        cs.build_command("comment", "x" * 4001, 1, DIGEST)
    with pytest.raises(c.ConcordiaError):
        cs.build_command("agree", "", 0, DIGEST)
    with pytest.raises(c.EncodingError):
        cs.build_command("agree", "", 1, "abc")
    with pytest.raises(OverflowError):
        cs.build_command("agree", "", -1, DIGEST)
    with pytest.raises(c.SchemaError):
        cs.parse_command({"action": "agree", "body": "", "revision": 1})
    with pytest.raises(c.SchemaError):
        cs.parse_command({"action": "agree", "body": "", "revision": 1, "digest": DIGEST, "extra": 1})
    with pytest.raises(c.InvalidJsonError):
        cs.parse_command("{")


def cli_outcome(cli: pathlib.Path, room: dict, now: str, tmp_path: pathlib.Path) -> tuple[str, list[str]]:
    path = tmp_path / "room.json"
    path.write_text(json.dumps(room))
    r = run(cli, "consensus", "outcome", str(path), "--now", now)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode().strip(), [line for line in r.stderr.decode().splitlines() if line.startswith("event ")]


def room_variants() -> list[tuple[dict, str]]:
    out = [(ROOM, "2026-09-07T00:00:00Z"), (ROOM, "2026-09-11T00:00:00Z")]
    pending = dict(ROOM, events=ROOM["events"][:3])
    out += [(pending, "2026-09-07T00:00:00Z"), (pending, "2026-09-10T00:00:00Z")]
    stale = copy.deepcopy(ROOM)
    stale["events"][3]["digest"] = "0" * 64
    out.append((stale, "2026-09-07T00:00:00Z"))
    twice = copy.deepcopy(ROOM)
    twice["events"].append(dict(twice["events"][2], at="2026-09-06T12:07:00Z"))
    twice["events"].append({"participant": "ghost", "action": "agree", "body": "", "revision": 1, "digest": DIGEST, "at": "2026-09-06T12:08:00Z"})
    twice["events"].append({"participant": "dana", "action": "agree"})
    out.append((twice, "2026-09-07T00:00:00Z"))
    disagree = copy.deepcopy(ROOM)
    disagree["events"][2]["action"] = "disagree"
    out.append((disagree, "2026-09-07T00:00:00Z"))
    abstain = copy.deepcopy(ROOM)
    abstain["events"][3]["action"] = "abstain"
    out.append((abstain, "2026-09-07T00:00:00Z"))
    return out


@pytest.mark.parametrize("room,now", room_variants())
def test_room_outcome_matches_cli(room: dict, now: str, concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    word, refused_lines = cli_outcome(concordia_cli, room, now, tmp_path)
    got = cs.room_outcome(room, now=now)
    assert got.outcome == word
    assert [f"event {i}: {msg}" for i, _, _, msg in got.refused] == refused_lines
    # Accepted events are the log's new events (an exact replay, status 200, adds none).
    assert got.accepted + len(got.refused) <= len(room["events"])
    for _, status, reason, msg in got.refused:
        assert status in (400, 404, 409) and msg.startswith(f"{status} {reason}")
    assert cs.room_outcome(json.dumps(room), now=now).outcome == word
    assert repr(got).startswith("RoomOutcome(")


def test_room_outcome_times_and_errors() -> None:
    # Unix seconds and a date-time with offset are the same instant.
    assert cs.room_outcome(ROOM, now=1788739200).outcome == cs.room_outcome(ROOM, now="2026-09-07T00:00:00Z").outcome == "reached"
    assert cs.room_outcome(ROOM).outcome == "reached"  # the clock; a reached round stays reached
    with pytest.raises(c.TemporalError):
        cs.room_outcome(ROOM, now="yesterday")
    with pytest.raises(TypeError):
        cs.room_outcome(ROOM, now=[1])  # type: ignore[arg-type]
    with pytest.raises(c.SchemaError):
        cs.room_outcome(dict(ROOM, roster=[{"id": "bot", "kind": "agent"}, {"id": "bot2", "kind": "agent"}]), now=0)
    with pytest.raises(c.SchemaError):
        cs.room_outcome(dict(ROOM, events={}), now=0)
    with pytest.raises(c.SchemaError):
        cs.room_outcome(dict(ROOM, unknown=1), now=0)
    with pytest.raises(c.InvalidJsonError):
        cs.room_outcome("[", now=0)


def test_verify_artifact(concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    art = (EX / "CONSENSUS.md").read_bytes()
    hexd = hashlib.sha256(art).hexdigest()
    field = "sha-256=:" + base64.b64encode(hashlib.sha256(art).digest()).decode() + ":"
    assert field in (EX / "CONSENSUS.md.headers").read_text()
    assert cs.verify_artifact(art, content_digest=field, x_consensus_sha256=hexd) == hexd
    cli = run(concordia_cli, "consensus", "verify-artifact", str(EX / "CONSENSUS.md"), "--content-digest", field, "--sha256", hexd)
    assert cli.stdout.decode().strip() == f"ok {hexd}"
    with pytest.raises(c.DigestError):
        cs.verify_artifact(art + b" ", content_digest=field, x_consensus_sha256=hexd)
    with pytest.raises(c.DigestError):
        cs.verify_artifact(art, content_digest=field, x_consensus_sha256="0" * 64)
    with pytest.raises(c.InvalidTransitionError):
        cs.verify_artifact(art, content_digest=field, x_consensus_sha256=hexd, outcome="pending")
    with pytest.raises(c.InvalidArgumentError, match="unknown outcome"):
        cs.verify_artifact(art, content_digest=field, x_consensus_sha256=hexd, outcome="done")
    with pytest.raises(c.ConcordiaError):
        cs.verify_artifact(art, content_digest="md5=:x:", x_consensus_sha256=hexd)


def test_live_room_matches_room_outcome_and_cli(concordia_cli: pathlib.Path, tmp_path: pathlib.Path) -> None:
    # Applying the example log's events one by one gives the outcome `room_outcome` (and
    # the CLI) gives for the log.
    for room_doc, now in room_variants():
        room = cs.Room(room_doc["revision"], room_doc["digest"], room_doc["deadline"],
                       [(p["id"], p["kind"]) for p in room_doc["roster"]])
        refused = []
        for i, ev in enumerate(room_doc["events"]):
            wire = {k: ev[k] for k in ("action", "body", "revision", "digest") if k in ev}
            r = room.apply(ev["participant"], wire, idempotency_key=ev.get("idempotency_key"), now=ev.get("at", "2026-09-06T12:00:00Z"))
            assert r["status"] in (200, 201, 400, 404, 409)
            if r["refused"] is not None:
                assert r["event"] is None and r["refused"].startswith(str(r["status"]))
                refused.append(i)
        want = cs.room_outcome(room_doc, now=now)
        assert room.outcome(now=now) == want.outcome == cli_outcome(concordia_cli, room_doc, now, tmp_path)[0]
        assert refused == [i for i, *_ in want.refused] and len(room) == want.accepted
    # Statuses: 201 new, 200 exact replay, 409 duplicate decision, 404 unknown, 400 malformed.
    room = cs.Room(1, DIGEST, "2026-09-10T00:00:00Z", [("dana", "human"), ("bot", "agent")])
    agree = cs.build_command("agree", "", 1, DIGEST)
    t = "2026-09-06T12:00:00Z"
    assert room.apply("dana", agree, now=t) == {"status": 201, "event": 0, "outcome": "pending", "refused": None}
    assert room.apply("dana", agree.wire_body, now=t)["status"] == 200
    assert room.apply("dana", cs.build_command("disagree", "", 1, DIGEST), now=t)["refused"] == "409 duplicate_decision"
    assert room.apply("eve", agree, now=t)["refused"] == "404 not_found"
    assert room.apply("bot", {"action": "agree"}, now=t)["status"] == 400
    assert room.apply("bot", cs.build_command("agree", "", 1, "0" * 64), now=t)["refused"] == "409 stale_digest"
    assert room.apply("bot", agree, now=t) == {"status": 201, "event": 1, "outcome": "reached", "refused": None}
    assert room.outcome(now=t) == "reached" and len(room) == 2 and repr(room) == "Room(revision=1, events=2)"
    late = cs.Room(1, DIGEST, 1788998400, [("dana", "human"), ("bot", "agent")])  # 2026-09-10T00:00:00Z
    assert late.outcome(now=1788998399) == "pending" and late.outcome(now="2026-09-10T00:00:00Z") == "expired"
    assert late.apply("dana", agree, now=1788998400)["refused"] == "409 expired"
    assert late.outcome(now=1788998400) == "expired" and len(late) == 0
    with pytest.raises(c.SchemaError):
        cs.Room(1, DIGEST, 0, [("bot", "agent"), ("bot2", "agent")])
    with pytest.raises(c.SchemaError):
        cs.Room(1, DIGEST, 0, [("dana", "robot"), ("bot", "agent")])
    with pytest.raises(c.SchemaError):
        cs.Room(0, DIGEST, 0, [("dana", "human"), ("bot", "agent")])
    with pytest.raises(c.EncodingError):
        cs.Room(1, "xyz", 0, [("dana", "human"), ("bot", "agent")])
