"""The fast walk over exact built-in types (canon.rs `fast`) and the full walk give one
output: the same bytes for a value and for the same value made of subclasses, the full
walk's error wherever the fast walk gives up part-way, and the garbage collector's state
as it was."""

from __future__ import annotations

import gc
from typing import Any

import concordia.signing as sdk_signing
import pytest

import concordia_rs as rs


class S(str):
    pass


class D(dict):  # type: ignore[type-arg]
    pass


class L(list):  # type: ignore[type-arg]
    pass


class I(int):
    pass


class F(float):
    pass


def value() -> Any:
    return {
        "b": [1, 2.5, -0.005, 1e21, 2**53, None, True, False, ("t", 1)],
        "a": {"é": "x\n\"\\", "\U0001f600": 1, "\ue000": 2, "z" * 40: "y" * 40},
        "signature": "sig",
        "n": 1037.25,
    }


def subclassed(v: Any) -> Any:
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, dict):
        return D({S(k): subclassed(x) for k, x in v.items()})
    if isinstance(v, (list, tuple)):
        return L(subclassed(x) for x in v)
    if isinstance(v, int):
        return I(v)
    if isinstance(v, float):
        return F(v)
    if isinstance(v, str):
        return S(v)
    return v


def test_exact_and_subclassed_values_give_the_sdks_bytes() -> None:
    want = sdk_signing.canonical_json(value())
    assert rs.canonical_json(value()) == want
    assert rs.canonical_json(subclassed(value())) == want
    # Half and half: the fast walk gives up at the first subclass and the full walk runs.
    mixed = value()
    mixed["b"].append(I(7))
    assert rs.canonical_json(mixed) == sdk_signing.canonical_json(mixed)


@pytest.mark.parametrize(
    "bad",
    [float("nan"), float("inf"), -0.0, "\ud800", 2**64, {1: 2}, {"\udfff": 1}, set(), b"x"],
)
def test_errors_after_a_partial_fast_walk_are_the_full_walks(bad: Any) -> None:
    # Valid members sort before and after the bad one, so the fast walk has written output.
    v = value()
    v["m"] = [{"k": 1}, bad, "after"]
    try:
        sdk = sdk_signing.canonical_json(v)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as got:
            rs.canonical_json(v)
        assert str(got.value) == str(e) or isinstance(got.value, ValueError)
    else:
        # 2**64: the SDK writes it; concordia_rs refuses integers beyond 2^53 (README).
        assert bad == 2**64 and sdk
        with pytest.raises(rs.CanonicalizationError):
            rs.canonical_json(v)


def test_deep_nesting_falls_back_to_the_depth_error() -> None:
    v: Any = 1
    for _ in range(rs.MAX_DEPTH):
        v = [v]
    assert rs.canonical_json(v) == sdk_signing.canonical_json(v)
    with pytest.raises(rs.CanonicalizationError):
        rs.canonical_json([v])


def test_garbage_collector_state_is_kept() -> None:
    assert gc.isenabled()
    rs.canonical_json(value())
    assert gc.isenabled()
    gc.disable()
    try:
        rs.canonical_json(value())
        rs.canonical_json({"x": "\ud800"[:0] + "ok"})
        with pytest.raises(ValueError):
            rs.canonical_json({"x": "\ud800"})
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_sign_hash_and_verify_use_the_same_bytes() -> None:
    kp = sdk_signing.KeyPair.generate()
    rkp = rs.KeyPair.from_private_bytes(kp.private_key_bytes())
    for v in (value(), subclassed(value())):
        sig = sdk_signing.sign_message(v, kp)
        assert rs.sign_message(v, rkp) == sig
        assert rs.verify_signature(v, sig, kp.public_key)
        assert rs.compute_hash(v) == rs.compute_hash(value())
