"""Deterministic generator of new mutated conformance vectors.

Starting from the positive vectors of the vendored suite
(conformance/vectors/manifest.json, section `positive`), this module derives
new vectors by applying one small mutation at a JSON pointer inside `input`
(or, less often, inside `context`). The differential test
(test_conformance_differential.py) runs them through the reference runner
and through `concordia conformance --json` and compares the two verdicts;
`expected` is set to "reject" on every mutated vector and means nothing here.

Operators (one per mutated vector):

  drop       remove an object member or an array element
  duplicate  repeat an array element (next to itself or at the end)
  retype     replace a value by one of another JSON type
             (string/number/bool/null/object/array; also int <-> float)
  reorder    swap/reverse/rotate array elements, or reorder object members
  edit       replace, insert or delete one character of a string
             (sometimes of a member name)
  sigbit     flip one bit of a base64url Ed25519 signature (sometimes of a
             public key, or one of the unused trailing bits of the encoding)
  digest     change one hex digit of a sha256 digest (sometimes only its case)
  timestamp  shift an ISO 8601 timestamp by +-1 s or +-1 day, same format
             (sometimes: rewrite it without offset, Z <-> +00:00, with or
             without a fraction, with a space separator)

Everything is derived from a seeded random.Random, so a (seed, count) pair
always yields the same vectors. Mutations that reproduce the source vector,
an earlier mutation, or a vector of the vendored mutation battery are skipped.

Command line (writes a suite directory both runners accept):

  python tests-py/mutate_vectors.py OUT_DIR [--count N] [--seed S]
"""

from __future__ import annotations

import argparse
import base64
import binascii
import copy
import datetime as dt
import hashlib
import json
import random
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

REPO_ROOT = Path(__file__).resolve().parent.parent
VECTORS = REPO_ROOT / "conformance" / "vectors"

DEFAULT_SEED = 20260503
DEFAULT_COUNT = 5400

# Relative weights of the operators; an operator with no target in a vector is
# skipped for that vector.
OP_WEIGHTS = {
    "drop": 2.0,
    "duplicate": 1.0,
    "retype": 2.0,
    "reorder": 1.0,
    "edit": 2.0,
    "sigbit": 1.5,
    "digest": 1.5,
    "timestamp": 1.5,
}
CONTEXT_SHARE = 0.15  # how often the pointer is chosen inside `context`

DIGEST_RE = re.compile(r"^(sha256:)?([0-9a-fA-F]{64})$")
TIMESTAMP_RE = re.compile(
    r"^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$"
)
B64_RE = re.compile(r"^[A-Za-z0-9_\-+/]+={0,2}$")
# Characters an `edit` may write: ASCII, JSON specials, a deal-term trigger,
# non-ASCII letters, a non-BMP character and a few whitespace/control chars.
EDIT_CHARS = (
    "aZ09_-:/.~ @$#%+=,;!?'\"\\"
    "\u00e9\u00a0\u20ac\u00a3\u2028\U0001F600\u0130\u212a"
    "\t\n\x00"
)

Path_ = tuple  # a JSON location: tuple of str keys and int indices


# --------------------------------------------------------------------------
# JSON locations


def pointer(path: Path_) -> str:
    """RFC 6901 pointer of a location."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def walk(value: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every location in a JSON value, parents before children."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, path + (i,))


def get_at(root: Any, path: Path_) -> Any:
    for p in path:
        root = root[p]
    return root


def set_at(root: Any, path: Path_, value: Any) -> Any:
    """Returns the new root (the root itself may be replaced)."""
    if not path:
        return value
    get_at(root, path[:-1])[path[-1]] = value
    return root


def b64_decode_any(s: str) -> tuple[bytes, str] | None:
    """Decodes base64url or standard base64, padded or not. Returns the bytes and
    the alphabet ('url' or 'std'), or None."""
    if not B64_RE.match(s) or len(s) < 40:
        return None
    alphabet = "std" if ("+" in s or "/" in s) else "url"
    body = s.rstrip("=")
    padded = body + "=" * (-len(body) % 4)
    try:
        if alphabet == "url":
            raw = base64.urlsafe_b64decode(padded)
        else:
            raw = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw, alphabet


def b64_encode_like(raw: bytes, template: str, alphabet: str) -> str:
    enc = base64.urlsafe_b64encode(raw) if alphabet == "url" else base64.b64encode(raw)
    s = enc.decode("ascii")
    return s if template.endswith("=") else s.rstrip("=")


# --------------------------------------------------------------------------
# operators: each returns (new_root, detail) or None when it cannot apply


@dataclass
class Target:
    where: str  # "input" or "context"
    path: Path_


def targets(op: str, root: Any) -> list[Path_]:
    out: list[Path_] = []
    for path, v in walk(root):
        if op == "drop":
            if path:
                out.append(path)
        elif op == "duplicate":
            if isinstance(v, list) and v:
                out.append(path)
        elif op == "retype":
            out.append(path)
        elif op == "reorder":
            if isinstance(v, list) and len(v) >= 2 and any(x != v[0] for x in v[1:]):
                out.append(path)
            elif isinstance(v, dict) and len(v) >= 2:
                out.append(path)
        elif op == "edit":
            if isinstance(v, str):
                out.append(path)
            elif isinstance(v, dict) and v:
                out.append(path)  # edit a member name
        elif op == "sigbit":
            if isinstance(v, str):
                dec = b64_decode_any(v)
                if dec is not None and len(dec[0]) in (32, 64):
                    out.append(path)
        elif op == "digest":
            if isinstance(v, str) and DIGEST_RE.match(v):
                out.append(path)
        elif op == "timestamp":
            if isinstance(v, str) and TIMESTAMP_RE.match(v):
                out.append(path)
    if op == "edit":
        # Prefer string values; member names get roughly one edit in six.
        strings = [p for p in out if isinstance(get_at(root, p), str)]
        names = [p for p in out if not isinstance(get_at(root, p), str)]
        out = strings + names[: max(1, len(strings) // 5)] if strings else names
    return out


def op_drop(rng: random.Random, root: Any, path: Path_) -> tuple[Any, str]:
    parent = get_at(root, path[:-1])
    if isinstance(parent, dict):
        del parent[path[-1]]
        return root, "member"
    del parent[path[-1]]
    return root, "element"


def op_duplicate(rng: random.Random, root: Any, path: Path_) -> tuple[Any, str]:
    arr = get_at(root, path)
    i = rng.randrange(len(arr))
    if rng.random() < 0.5:
        arr.insert(i + 1, copy.deepcopy(arr[i]))
        return root, f"element {i} next to itself"
    arr.append(copy.deepcopy(arr[i]))
    return root, f"element {i} at the end"


def _retype_choices(v: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if isinstance(v, bool):
        out += [("bool->string", "true" if v else "false"), ("bool->number", int(v)),
                ("bool->null", None), ("bool->negated", not v)]
    elif isinstance(v, int):
        out += [("int->string", str(v)), ("int->float", float(v)), ("int->bool", bool(v)),
                ("int->null", None), ("int->object", {}), ("int->array", [v])]
    elif isinstance(v, float):
        out += [("float->string", repr(v)), ("float->int", int(v)), ("float->null", None)]
    elif isinstance(v, str):
        num: Any = int(v) if re.fullmatch(r"-?\d{1,15}", v) else len(v)
        out += [("string->number", num), ("string->bool", True), ("string->null", None),
                ("string->object", {}), ("string->array", [v]), ("string->float", 1.5)]
    elif v is None:
        out += [("null->string", "null"), ("null->number", 0), ("null->bool", False),
                ("null->object", {})]
    elif isinstance(v, dict):
        out += [("object->string", "{}"), ("object->null", None), ("object->array", list(v.values())),
                ("object->number", len(v)), ("object->empty", {})] if v else \
               [("object->null", None), ("object->array", []), ("object->string", "")]
    elif isinstance(v, list):
        out += [("array->object", {str(i): x for i, x in enumerate(v)}), ("array->null", None),
                ("array->string", ""), ("array->number", len(v))]
        if v:
            out.append(("array->empty", []))
            out.append(("array->first-element", v[0]))
    return out


def op_retype(rng: random.Random, root: Any, path: Path_) -> tuple[Any, str]:
    v = get_at(root, path)
    detail, new = rng.choice(_retype_choices(v))
    return set_at(root, path, new), detail


def op_reorder(rng: random.Random, root: Any, path: Path_) -> tuple[Any, str] | None:
    v = get_at(root, path)
    if isinstance(v, dict):
        items = list(v.items())
        rng.shuffle(items)
        if [k for k, _ in items] == list(v):
            items.reverse()
        return set_at(root, path, dict(items)), "object members"
    how = rng.choice(["swap", "reverse", "rotate"])
    new = list(v)
    if how == "swap":
        pairs = [(i, j) for i in range(len(v)) for j in range(i + 1, len(v)) if v[i] != v[j]]
        i, j = rng.choice(pairs)
        new[i], new[j] = new[j], new[i]
        how = f"swap {i},{j}"
    elif how == "reverse":
        new.reverse()
    else:
        new = new[1:] + new[:1]
    if new == v:
        return None
    return set_at(root, path, new), how


def _edit_string(rng: random.Random, s: str) -> tuple[str, str]:
    kinds = ["replace", "insert", "delete"] if s else ["insert"]
    kind = rng.choice(kinds)
    i = rng.randrange(len(s) + (1 if kind == "insert" else 0))
    if kind == "delete":
        return s[:i] + s[i + 1:], f"delete char {i}"
    c = rng.choice(EDIT_CHARS)
    if kind == "replace":
        if s[i] == c:
            c = "b" if c != "b" else "c"
        # An ASCII letter sometimes changes case only (a one-bit byte edit).
        if s[i].isascii() and s[i].isalpha() and rng.random() < 0.3:
            c = s[i].swapcase()
        return s[:i] + c + s[i + 1:], f"replace char {i} with {c!r}"
    return s[:i] + c + s[i:], f"insert {c!r} at {i}"


def op_edit(rng: random.Random, root: Any, path: Path_) -> tuple[Any, str] | None:
    v = get_at(root, path)
    if isinstance(v, str):
        new, detail = _edit_string(rng, v)
        return set_at(root, path, new), detail
    # a member name
    key = rng.choice(list(v))
    new_key, detail = _edit_string(rng, key)
    if new_key in v:
        return None
    items = [(new_key if k == key else k, x) for k, x in v.items()]
    return set_at(root, path, dict(items)), f"member name {key!r}: {detail}"


def op_sigbit(rng: random.Random, root: Any, path: Path_) -> tuple[Any, str] | None:
    s = get_at(root, path)
    dec = b64_decode_any(s)
    if dec is None:
        return None
    raw, alphabet = dec
    what = "signature" if len(raw) == 64 else "public key"
    if rng.random() < 0.15:
        # One of the unused low bits of the last base64 character: the bytes
        # stay the same, only the encoding becomes non-canonical.
        body = s.rstrip("=")
        alpha = ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                 + ("-_" if alphabet == "url" else "+/"))
        unused = (6 * len(body)) - 8 * len(raw)
        if unused <= 0:
            return None
        bit = rng.randrange(unused)
        last = alpha.index(body[-1]) ^ (1 << bit)
        new = body[:-1] + alpha[last] + s[len(body):]
        return set_at(root, path, new), f"{what}: unused trailing bit {bit} of the encoding"
    bit = rng.randrange(len(raw) * 8)
    flipped = bytearray(raw)
    flipped[bit // 8] ^= 1 << (bit % 8)
    return set_at(root, path, b64_encode_like(bytes(flipped), s, alphabet)), f"{what}: bit {bit}"


def op_digest(rng: random.Random, root: Any, path: Path_) -> tuple[Any, str] | None:
    s = get_at(root, path)
    m = DIGEST_RE.match(s)
    if m is None:
        return None
    prefix, hexpart = m.group(1) or "", m.group(2)
    letters = [i for i, c in enumerate(hexpart) if c in "abcdefABCDEF"]
    if letters and rng.random() < 0.1:
        i = rng.choice(letters)
        new = hexpart[:i] + hexpart[i].swapcase() + hexpart[i + 1:]
        return set_at(root, path, prefix + new), f"case of hex digit {i}"
    i = rng.randrange(len(hexpart))
    c = rng.choice([d for d in "0123456789abcdef" if d != hexpart[i].lower()])
    new = hexpart[:i] + c + hexpart[i + 1:]
    return set_at(root, path, prefix + new), f"hex digit {i} -> {c}"


def op_timestamp(rng: random.Random, root: Any, path: Path_) -> tuple[Any, str] | None:
    s = get_at(root, path)
    m = TIMESTAMP_RE.match(s)
    if m is None:
        return None
    y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
    frac, zone = m.group(7) or "", m.group(8)
    try:
        t = dt.datetime(y, mo, d, h, mi, sec)
    except ValueError:
        return None
    if rng.random() < 0.15:
        # Same instant (or a naive one) written differently: what the date-time
        # rule and the temporal checks accept is part of the contract too.
        body = s[: len(s) - len(zone)]
        variants = [
            (body, "without its UTC offset"),
            (body + ("+00:00" if zone == "Z" else "Z"), "offset Z <-> +00:00"),
            (body + ".5" + zone if not frac else body[: -len(frac)] + zone, "fraction added/removed"),
            (s[:10] + " " + s[11:], "space as date/time separator"),
        ]
        new, label = rng.choice([v for v in variants if v[0] != s])
        return set_at(root, path, new), label
    delta, label = rng.choice([
        (dt.timedelta(seconds=1), "+1s"), (dt.timedelta(seconds=-1), "-1s"),
        (dt.timedelta(days=1), "+1d"), (dt.timedelta(days=-1), "-1d"),
    ])
    try:
        t2 = t + delta
    except OverflowError:
        return None
    new = t2.strftime("%Y-%m-%dT%H:%M:%S") + frac + zone
    return set_at(root, path, new), label


OPERATORS = {
    "drop": op_drop,
    "duplicate": op_duplicate,
    "retype": op_retype,
    "reorder": op_reorder,
    "edit": op_edit,
    "sigbit": op_sigbit,
    "digest": op_digest,
    "timestamp": op_timestamp,
}


# --------------------------------------------------------------------------
# the generator


@dataclass
class Mutation:
    """One generated vector and how it was made."""

    n: int
    id: str
    source: str  # source vector id
    profile: str
    op: str
    detail: str
    where: str  # "input" or "context"
    pointer: str
    vector: dict[str, Any]

    def describe(self) -> str:
        return (f"{self.id}: {self.op} ({self.detail}) at {self.where}{self.pointer or ' (root)'} "
                f"of {self.source} [{self.profile}]")

    def meta(self) -> dict[str, Any]:
        return {"id": self.id, "source": self.source, "profile": self.profile, "op": self.op,
                "detail": self.detail, "where": self.where, "pointer": self.pointer}


def load_positive(vectors: Path = VECTORS) -> list[dict[str, Any]]:
    manifest = json.loads((vectors / "manifest.json").read_text(encoding="utf-8"))
    base = vectors.parent.parent
    return [json.loads((base / rel).read_text(encoding="utf-8"))
            for rel in manifest["files"]["positive"]]


def _fingerprint(profile: str, inp: Any, ctx: Any) -> str:
    # Member order matters to a runner reading raw JSON, so it is kept.
    text = json.dumps([profile, inp, ctx], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _existing_fingerprints(vectors: Path) -> set[str]:
    manifest = json.loads((vectors / "manifest.json").read_text(encoding="utf-8"))
    base = vectors.parent.parent
    seen = set()
    for section in ("positive", "mutation", "canary"):
        for rel in manifest["files"][section]:
            v = json.loads((base / rel).read_text(encoding="utf-8"))
            seen.add(_fingerprint(v["verification_profile"], v["input"], v["context"]))
    return seen


def generate(count: int = DEFAULT_COUNT, seed: int = DEFAULT_SEED,
             vectors: Path = VECTORS) -> list[Mutation]:
    """`count` distinct new mutated vectors, deterministically from `seed`."""
    rng = random.Random(seed)
    sources = load_positive(vectors)
    seen = _existing_fingerprints(vectors)
    out: list[Mutation] = []
    # Operators and target lists per (source, where), computed once.
    cache: dict[tuple[int, str, str], list[Path_]] = {}

    def candidates(si: int, where: str, op: str) -> list[Path_]:
        key = (si, where, op)
        if key not in cache:
            cache[key] = targets(op, sources[si][where])
        return cache[key]

    attempts = 0
    i = 0
    while len(out) < count:
        attempts += 1
        if attempts > count * 20:
            raise RuntimeError(f"only {len(out)} distinct mutations after {attempts} attempts")
        si = i % len(sources)
        i += 1
        src = sources[si]
        where = "context" if (src["context"] and rng.random() < CONTEXT_SHARE) else "input"
        ops = [op for op in OP_WEIGHTS if candidates(si, where, op)]
        if not ops:
            continue
        op = rng.choices(ops, weights=[OP_WEIGHTS[o] for o in ops])[0]
        path = rng.choice(candidates(si, where, op))
        inp = copy.deepcopy(src["input"])
        ctx = copy.deepcopy(src["context"])
        root = inp if where == "input" else ctx
        res = OPERATORS[op](rng, root, path)
        if res is None:
            continue
        new_root, detail = res
        if where == "input":
            inp = new_root
        else:
            ctx = new_root
        fp = _fingerprint(src["verification_profile"], inp, ctx)
        if fp in seen:
            continue
        seen.add(fp)
        n = len(out) + 1
        mid = f"dmut-{n:05d}-{src['id']}"
        ptr = pointer(path)
        vector = {k: v for k, v in src.items() if k not in ("input", "context", "expected_reason_class")}
        vector.update({
            "id": mid,
            "title": f"differential mutation {n}: {op} ({detail}) at {where}{ptr or ' root'} of {src['id']}",
            "input": inp,
            "context": ctx,
            "expected": "reject",
        })
        out.append(Mutation(n, mid, src["id"], src["verification_profile"], op, detail,
                            where, ptr, vector))
    return out


def write_suite(out_dir: Path, mutations: list[Mutation], vectors: Path = VECTORS) -> Path:
    """Writes a suite directory `out_dir/conformance/vectors` (schemas/ and fixtures/
    copied from `vectors`, the mutations under mutation/, a manifest listing them in
    its `mutation` section) and returns its path. Both runners take that path."""
    suite = out_dir / "conformance" / "vectors"
    if suite.exists():
        shutil.rmtree(suite)
    (suite / "mutation").mkdir(parents=True)
    for sub in ("schemas", "fixtures"):
        shutil.copytree(vectors / sub, suite / sub)
    files = []
    for m in mutations:
        name = f"{m.id}.json"
        (suite / "mutation" / name).write_text(
            json.dumps(m.vector, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        files.append(f"conformance/vectors/mutation/{name}")
    manifest = {
        "schema_version": "concordia-conformance-manifest/v1-draft",
        "generated_by": "tests-py/mutate_vectors.py",
        "counts": {"positive": 0, "mutation": len(files), "canary": 0},
        "files": {"positive": [], "mutation": files, "canary": []},
    }
    (suite / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    (suite / "mutations.json").write_text(
        json.dumps([m.meta() for m in mutations], ensure_ascii=False, indent=0) + "\n",
        encoding="utf-8")
    return suite


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path, help="where to write conformance/vectors/")
    ap.add_argument("--count", type=int, default=DEFAULT_COUNT)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = ap.parse_args(argv)
    muts = generate(args.count, args.seed)
    suite = write_suite(args.out_dir, muts)
    by_op: dict[str, int] = {}
    for m in muts:
        by_op[m.op] = by_op.get(m.op, 0) + 1
    print(f"{len(muts)} mutated vectors in {suite} "
          + " ".join(f"{k}={v}" for k, v in sorted(by_op.items())), file=sys.stderr)
    print(suite)
    return 0


if __name__ == "__main__":
    sys.exit(main())
