"""Issue 32 classes 10 and 12 on the Python surface: randomness never comes from a
(patchable) `os.urandom`, no `repr`/`str`/error shows a secret, and an invitation whose
exchange URL carries a query or fragment shows it redacted."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

import concordia_rs as c
from concordia_rs import aip
from concordia_rs import consensus as cs

EX = pathlib.Path(__file__).resolve().parents[2] / "examples" / "aip"
ALICE_DID = "did:aip:aigentix.org:alice"
OFFER = json.loads((EX / "offer.json").read_text())


@pytest.fixture
def broken_urandom(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """`os.urandom` patched to return zeros (and count its calls)."""
    calls: list[int] = []

    def zeros(n: int) -> bytes:
        calls.append(n)
        return bytes(n)

    monkeypatch.setattr(os, "urandom", zeros)
    return calls


def test_randomness_ignores_a_patched_urandom(broken_urandom: list[int]) -> None:
    zero = aip.AipKeyPair.from_seeds(bytes(32), bytes(32))
    keys = [aip.AipKeyPair.generate() for _ in range(3)]
    seeds = {k.ed25519_seed() for k in keys} | {k.x25519_secret() for k in keys}
    assert len(seeds) == 6 and bytes(32) not in seeds
    assert all(k.ed25519_public_key != zero.ed25519_public_key for k in keys)
    assert len({c.KeyPair.generate().private_key_bytes() for _ in range(3)}) == 3
    assert len({c.ES256KeyPair.generate().private_scalar_bytes() for _ in range(3)}) == 3
    assert len({aip.new_message_id() for _ in range(3)}) == 3
    # The HPKE ephemeral key: the same message sealed twice with the same header differs.
    alice = aip.AipKeyPair.from_key_file((EX / "alice.key.json").read_text())
    etagi = aip.AipKeyPair.from_key_file((EX / "etagi.key.json").read_text())
    header = {"id": "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f", "created_at": "2026-05-10T14:25:00Z"}
    envs = [aip.seal(OFFER, recipient_doc=etagi.did_document(), sender_key=alice, **header) for _ in range(2)]
    assert envs[0]["encrypted_body"] != envs[1]["encrypted_body"]
    assert broken_urandom == [], "a key or an ephemeral key came from os.urandom"


def test_no_repr_str_or_error_shows_a_secret() -> None:
    seed = bytes(range(1, 33))
    holders = [
        aip.AipKeyPair.from_seed(seed, did=ALICE_DID),
        aip.AipKeyPair.from_seeds(seed, seed),
        c.KeyPair.from_private_bytes(seed),
        c.ES256KeyPair.from_private_scalar(seed),
    ]
    secrets = [seed.hex(), repr(seed), seed[:8].hex()]
    for k in holders:
        if isinstance(k, aip.AipKeyPair):
            secrets += [k.x25519_secret().hex(), k.ed25519_seed().hex()]  # type: ignore[union-attr]
    for k in holders:
        for shown in (repr(k), str(k)):
            assert not any(s in shown for s in secrets), shown
            assert "secret" not in shown.lower() and "seed" not in shown.lower(), shown
    # A key file with a malformed secret: the error names the member, not the text.
    text = json.loads(holders[0].key_file_json())
    bad = dict(text, x25519_secret_hex=text["x25519_secret_hex"][:-2] + "zz")
    with pytest.raises(c.ConcordiaError) as e:
        aip.AipKeyPair.from_key_file(bad)
    assert text["x25519_secret_hex"][:16] not in str(e.value) + repr(e.value)


ID = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f"
SECRET = "6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA"
HREF = f"https://consensus.md/api/v1/agent/invitations/{ID}/exchange"


def email(href: str) -> str:
    block = {
        "schema": "https://consensus.md/schemas/invitation-email/v1",
        "invitation_id": ID,
        "invite_uri": f"https://consensus.md/i/{ID}#secret={SECRET}",
        "agent_exchange": {"method": "POST", "href": href},
        "agent_claim": {"email_proof": "ep_private_proof_123"},
    }
    return f"---BEGIN CONSENSUS INVITATION V1---\n{json.dumps(block)}\n---END CONSENSUS INVITATION V1---\n"


@pytest.mark.parametrize(
    "tail,shown",
    [(f"?secret={SECRET}", "?<redacted>"), (f"#secret={SECRET}", "#<redacted>"), (f"?a=1#{SECRET}", "?<redacted>#<redacted>")],
)
def test_invitation_exchange_url_with_a_secret_is_redacted(tail: str, shown: str) -> None:
    inv = cs.parse_invitation(email(HREF + tail))
    assert inv.checks["no_query"] is False and inv.valid is False
    assert inv.exchange_href == HREF + shown
    for text in (repr(inv), str(inv), inv.exchange_href):
        assert SECRET not in text and "ep_private_proof_123" not in text, text
    with pytest.raises(c.PrivacyError) as e:
        cs.validate_invitation(email(HREF + tail))
    assert SECRET not in str(e.value)
    with pytest.raises(c.PrivacyError):
        inv.exchange_request()
