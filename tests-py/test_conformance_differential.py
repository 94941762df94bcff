"""Differential conformance test: `concordia conformance --json` against the
reference runner of the Concordia protocol (concordia-protocol==0.10.0).

mutate_vectors.py derives >= 5,000 new vectors from the suite's positive
vectors (drop, duplicate, retype, reorder, edit a string, flip a signature
bit, change a digest digit, shift a timestamp). They are written into a
temporary suite directory laid out like conformance/vectors (schemas/ and
fixtures/ copied), run through both runners, and the verdicts (accept or
reject; `expected` is meaningless here) are compared vector by vector.

The reference runner is not vendored: tools/fetch-reference-runner.sh
downloads the source distribution from PyPI into .cache/ and prints the path
of conformance/reference-runner/runner.py. It runs under this interpreter
(rfc8785, PyNaCl and jsonschema are pinned in requirements.txt).

Every disagreement must match a rule of conformance_known_differences.txt
(a documented, justified deviation); anything else fails the test, which
prints the first disagreements and writes their vectors to a directory.
See conformance/DIFFERENTIAL.md.

Environment: CONFORMANCE_DIFF_COUNT / CONFORMANCE_DIFF_SEED (generator),
CONFORMANCE_DIFF_REPRO_DIR (where undocumented disagreements are written;
default: a pytest temporary directory), REFERENCE_RUNNER (an already fetched
runner.py; skips the fetch), CONCORDIA_BIN (the CLI).
"""

from __future__ import annotations

import collections
import copy
import datetime as dt
import fnmatch
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import mutate_vectors
from conftest import REPO_ROOT, add_summary, concordia_bin

KNOWN_DIFFERENCES = Path(__file__).resolve().parent / "conformance_known_differences.txt"
FETCH_SCRIPT = REPO_ROOT / "tools" / "fetch-reference-runner.sh"
MIN_MUTATIONS = 5000

# The reference runner refuses to start when the `concordia` package (the
# reference SDK) is importable, to prove it verifies without the SDK. This
# venv has the SDK installed for the other differential tests, so the runner
# is started through this launcher, which makes `concordia` unimportable
# (hides it from the path finder) and then runs runner.py as __main__.
RUNNER_LAUNCHER = r"""
import importlib.machinery, runpy, sys
_PF = importlib.machinery.PathFinder
class _WithoutSdk:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".")[0] == "concordia":
            return None
        return _PF.find_spec(name, path, target)
    @staticmethod
    def invalidate_caches():
        _PF.invalidate_caches()
sys.meta_path[:] = [_WithoutSdk if f is _PF else f for f in sys.meta_path]
runner = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(runner, run_name="__main__")
"""

REF_LINE = re.compile(r"^\[(OK|FAIL)\] (\S+)(?: expected=(\S+) got=(accept|reject))?$")
SUMMARY_LINE = re.compile(r"^\[SUMMARY\] positive=(\d+) mutation=(\d+) canary=(\d+) ok=(\d+) fail=(\d+)$")


# --------------------------------------------------------------------------
# known differences


SELECTOR_KEYS = {"source", "profile", "op", "detail", "where", "pointer", "ours", "ref",
                 "class", "reason", "tag"}


@dataclass
class Rule:
    name: str
    selectors: list[tuple[str, str]]
    reason: str
    line: int
    hits: int = 0

    def matches(self, facts: dict[str, Any]) -> bool:
        for key, pattern in self.selectors:
            if key == "tag":
                if not any(fnmatch.fnmatchcase(t, pattern) for t in facts["tags"]):
                    return False
            elif not fnmatch.fnmatchcase(str(facts.get(key)), pattern):
                return False
        return True


def load_rules(path: Path = KNOWN_DIFFERENCES) -> list[Rule]:
    """`NAME key=glob ... :: reason`, one rule per line; `#` starts a comment line."""
    rules: list[Rule] = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, sep, reason = line.partition("::")
        if not sep or not reason.strip():
            raise ValueError(f"{path.name}:{n}: a rule needs ':: <reason>'")
        words = shlex.split(head)
        if len(words) < 2:
            raise ValueError(f"{path.name}:{n}: a rule needs a name and at least one selector")
        selectors = []
        for w in words[1:]:
            key, eq, pattern = w.partition("=")
            if not eq or key not in SELECTOR_KEYS:
                raise ValueError(f"{path.name}:{n}: bad selector {w!r} (keys: {sorted(SELECTOR_KEYS)})")
            selectors.append((key, pattern))
        if not any(k == "ours" for k, _ in selectors) or not any(k == "ref" for k, _ in selectors):
            raise ValueError(f"{path.name}:{n}: a rule must say which verdicts it covers (ours=, ref=)")
        rules.append(Rule(words[0], selectors, reason.strip(), n))
    names = [r.name for r in rules]
    dup = {x for x in names if names.count(x) > 1}
    if dup:
        raise ValueError(f"{path.name}: duplicate rule names {sorted(dup)}")
    return rules


# --------------------------------------------------------------------------
# facts about a mutated vector, for the rules


MAX_SAFE = 2**53 - 1


def _resolve(root: Any, ptr: str) -> tuple[bool, Any]:
    cur = root
    if ptr == "":
        return True, cur
    for raw in ptr.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and re.fullmatch(r"0|[1-9][0-9]*", part) and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return False, None
    return True, cur


def _naive_datetime(v: Any) -> bool:
    """Python's date-time rule parses it, but it has no offset."""
    if not isinstance(v, str):
        return False
    try:
        return dt.datetime.fromisoformat(v.replace("Z", "+00:00")).tzinfo is None
    except ValueError:
        return False


def _has_big_int(v: Any) -> bool:
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, bool):
            continue
        if isinstance(x, int) and abs(x) > MAX_SAFE:
            return True
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def tags(m: mutate_vectors.Mutation, translated: bool) -> set[str]:
    """Properties of the mutated vector that known-difference rules can name."""
    out: set[str] = set()
    root = m.vector[m.where]
    found, value = _resolve(root, m.pointer)
    if found:
        if _naive_datetime(value):
            out.add("naive-datetime")
        if isinstance(value, list) and not value:
            out.add("empty-array")
    if _has_big_int(m.vector["input"]) or _has_big_int(m.vector["context"]):
        out.add("big-integer")
    if translated:
        out.add("ref-translated")
    return out


# --------------------------------------------------------------------------
# the 0.10.0 runner predates `jcs-sha256-pointer` in offer-binding-v1


def translate_for_old_runner(vector: dict[str, Any]) -> dict[str, Any] | None:
    """An equivalent vector the 0.10.0 runner can evaluate, or None when no
    translation is needed.

    RUNNER_CONTRACT.md, offer-binding-v1 check 2: `jcs-sha256-pointer` resolves
    `source`, computes SHA256-JCS(source), resolves `target` as a JSON pointer
    (a missing pointer is a failed check) and compares the two. That is exactly
    a `jcs-sha256` check (kind the old runner has) whose literal `expected` is
    the value found at `target`; an unresolvable target becomes `expected: null`,
    which no digest equals. Only well-formed targets are translated; anything
    else is left as it is (the old runner then rejects the unknown kind)."""
    if vector.get("verification_profile") != "offer-binding-v1":
        return None
    ctx = vector.get("context")
    checks = ctx.get("checks") if isinstance(ctx, dict) else None
    if not isinstance(checks, list):
        return None
    if not any(isinstance(c, dict) and c.get("kind") == "jcs-sha256-pointer" for c in checks):
        return None
    out = copy.deepcopy(vector)
    new_checks = []
    for c in checks:
        if isinstance(c, dict) and c.get("kind") == "jcs-sha256-pointer":
            target = c.get("target")
            if not (isinstance(target, dict) and isinstance(target.get("object"), str)
                    and isinstance(target.get("pointer"), str)):
                new_checks.append(copy.deepcopy(c))
                continue
            expected = None
            obj = target["object"]
            found, root = False, None
            if obj == "input":
                found, root = True, vector["input"]
            elif obj.startswith("context."):
                found, root = True, ctx
                for part in obj[len("context."):].split("."):
                    if isinstance(root, dict) and part in root:
                        root = root[part]
                    else:
                        found = False
                        break
            ptr = target["pointer"]
            if found and (ptr == "" or ptr.startswith("/")):
                ok, value = _resolve(root, ptr)
                if ok:
                    expected = value
            t = {k: copy.deepcopy(v) for k, v in c.items() if k != "target"}
            t["kind"] = "jcs-sha256"
            t["expected"] = expected
            new_checks.append(t)
        else:
            new_checks.append(copy.deepcopy(c))
    out["context"]["checks"] = new_checks
    return out


# --------------------------------------------------------------------------
# running both sides


@dataclass
class Run:
    mutations: list[mutate_vectors.Mutation]
    ours: list[dict[str, Any]]
    ref: list[str]
    translated: set[str]  # ids whose reference-side vector was translated
    suite: Path
    stats: dict[str, Any] = field(default_factory=dict)


def _reference_runner() -> Path:
    if os.environ.get("REFERENCE_RUNNER"):
        return Path(os.environ["REFERENCE_RUNNER"])
    proc = subprocess.run(["bash", str(FETCH_SCRIPT)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines or not Path(lines[-1]).is_file():
        msg = (f"tools/fetch-reference-runner.sh failed (exit {proc.returncode}): "
               f"{proc.stderr.strip()[-1500:]}")
        pytest.fail(msg)
    return Path(lines[-1])


def _run_ours(suite: Path) -> list[dict[str, Any]]:
    exe = concordia_bin()
    if not exe.exists():
        pytest.fail(f"concordia binary not found at {exe} "
                    "(build it with `cargo build --release -p concordia-cli` or set CONCORDIA_BIN)")
    proc = subprocess.run([str(exe), "conformance", str(suite), "--json"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    # Exit status 1 just means some verdict differs from `expected` (meaningless here).
    if proc.returncode not in (0, 1):
        pytest.fail(f"concordia conformance exited {proc.returncode}: "
                    f"{proc.stderr.decode('utf-8', 'replace')[:2000]}")
    report = json.loads(proc.stdout)
    if report.get("manifest_failures"):
        pytest.fail(f"concordia conformance reported manifest failures on {suite}")
    return report["results"]


def _run_reference(runner: Path, suite: Path) -> list[str]:
    for mod in ("rfc8785", "nacl", "jsonschema"):
        try:
            __import__(mod)
        except ImportError:
            pytest.fail(f"the reference runner needs `{mod}` in this venv: run tools/setup-venv.sh")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("RUNNER_REGRESS", None)
    proc = subprocess.run([sys.executable, "-c", RUNNER_LAUNCHER, str(runner), str(suite)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=600, env=env)
    if proc.returncode not in (0, 1):
        pytest.fail(f"reference runner exited {proc.returncode}: {proc.stderr[-2000:]}")
    verdicts: list[str] = []
    summary = None
    for line in proc.stdout.splitlines():
        if m := REF_LINE.match(line):
            # [OK] means got == expected; every mutated vector says expected=reject.
            verdicts.append("reject" if m.group(1) == "OK" else m.group(4) or "reject")
        elif m := SUMMARY_LINE.match(line):
            summary = m
    if summary is None:
        pytest.fail(f"reference runner printed no summary line: {proc.stdout[-1000:]} {proc.stderr[-1000:]}")
    return verdicts


@pytest.fixture(scope="module")
def runner() -> Path:
    return _reference_runner()


@pytest.fixture(scope="module")
def run(runner: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    count = int(os.environ.get("CONFORMANCE_DIFF_COUNT", mutate_vectors.DEFAULT_COUNT))
    seed = int(os.environ.get("CONFORMANCE_DIFF_SEED", mutate_vectors.DEFAULT_SEED))
    mutations = mutate_vectors.generate(count, seed)
    base = tmp_path_factory.mktemp("conformance-diff")
    ours_suite = mutate_vectors.write_suite(base / "ours", mutations)
    # The reference side: the same vectors, with `jcs-sha256-pointer` offer-binding
    # checks translated (see translate_for_old_runner).
    ref_muts = []
    translated: set[str] = set()
    for m in mutations:
        t = translate_for_old_runner(m.vector)
        if t is not None:
            translated.add(m.id)
            ref_muts.append(mutate_vectors.Mutation(**{**m.__dict__, "vector": t}))
        else:
            ref_muts.append(m)
    ref_suite = mutate_vectors.write_suite(base / "ref", ref_muts)
    ours = _run_ours(ours_suite)
    ref = _run_reference(runner, ref_suite)
    assert len(ours) == len(mutations), f"ours ran {len(ours)} of {len(mutations)} vectors"
    assert len(ref) == len(mutations), f"reference ran {len(ref)} of {len(mutations)} vectors"
    return Run(mutations, ours, ref, translated, ours_suite)


# --------------------------------------------------------------------------
# tests


def test_generator_is_deterministic_and_large() -> None:
    a = mutate_vectors.generate(300, 11)
    b = mutate_vectors.generate(300, 11)
    assert [m.vector for m in a] == [m.vector for m in b]
    assert [m.vector for m in a] != [m.vector for m in mutate_vectors.generate(300, 12)]
    assert mutate_vectors.DEFAULT_COUNT >= MIN_MUTATIONS


def test_translation_reproduces_contract_verdicts(runner: Path, tmp_path: Path) -> None:
    """The old runner, given the translated form of every vendored vector that uses
    `jcs-sha256-pointer` in offer-binding-v1, reaches the vector's `expected`."""
    sources = [v for v in mutate_vectors.load_positive() if translate_for_old_runner(v) is not None]
    assert len(sources) >= 3, "expected the pos-1734 / binding-1734 vectors"
    muts = []
    for i, v in enumerate(sources):
        tv = translate_for_old_runner(v)
        assert tv is not None
        muts.append(mutate_vectors.Mutation(i, v["id"], v["id"], v["verification_profile"], "none", "",
                                            "input", "", {**tv, "expected": "reject"}))
    got = _run_reference(runner, mutate_vectors.write_suite(tmp_path, muts))
    assert got == [v["expected"] for v in sources], list(zip([v["id"] for v in sources], got))


def test_known_differences_file_is_valid() -> None:
    rules = load_rules()
    assert rules, "no rules"
    for r in rules:
        assert len(r.reason) >= 40, f"rule {r.name}: the reason must explain the deviation"


def test_verdicts_match_reference(run: Run, tmp_path_factory: pytest.TempPathFactory) -> None:
    muts = run.mutations
    assert len(muts) >= MIN_MUTATIONS
    assert len({m.id for m in muts}) == len(muts)
    ops = collections.Counter(m.op for m in muts)
    assert set(ops) == set(mutate_vectors.OPERATORS), f"operators not exercised: {ops}"

    rules = load_rules()
    agree = 0
    undocumented: list[tuple[mutate_vectors.Mutation, dict[str, Any], str]] = []
    for m, o, ref in zip(muts, run.ours, run.ref):
        if o["id"] not in (m.id, f"conformance/vectors/mutation/{m.id}.json"):
            pytest.fail(f"result order differs: {o['id']} for {m.id}")
        if o["got"] == ref:
            agree += 1
            continue
        facts = {**m.meta(), "ours": o["got"], "ref": ref, "class": o.get("reason_class"),
                 "reason": o.get("reason"), "tags": tags(m, m.id in run.translated)}
        rule = next((r for r in rules if r.matches(facts)), None)
        if rule is not None:
            rule.hits += 1
        else:
            undocumented.append((m, o, ref))

    both = collections.Counter()
    for o, ref in zip(run.ours, run.ref):
        if o["got"] == ref:
            both[ref] += 1
    lines = [
        f"conformance differential vs reference runner 0.10.0: {len(muts)} mutated vectors "
        f"({', '.join(f'{k}={v}' for k, v in sorted(ops.items()))})",
        f"  agreements: {agree} (both reject {both['reject']}, both accept {both['accept']}); "
        f"{len(run.translated)} offer-binding vectors had jcs-sha256-pointer checks translated for the old runner",
        f"  documented deviations: {sum(r.hits for r in rules)}"
        + "".join(f"\n    {r.name}: {r.hits}" for r in rules),
        f"  undocumented disagreements: {len(undocumented)}",
    ]
    add_summary("\n".join(lines))

    if undocumented:
        out_dir = Path(os.environ.get("CONFORMANCE_DIFF_REPRO_DIR")
                       or tmp_path_factory.mktemp("conformance-diff-repros"))
        out_dir.mkdir(parents=True, exist_ok=True)
        for m, o, ref in undocumented:
            (out_dir / f"{m.id}.json").write_text(json.dumps(m.vector, ensure_ascii=False, indent=1) + "\n",
                                                   encoding="utf-8")
        kinds = collections.Counter((m.profile, m.op, o["got"], ref) for m, o, ref in undocumented)
        shown = "\n".join(
            f"  {m.describe()}: ours={o['got']} ({o.get('reason_class')}: {o.get('reason')}) ref={ref}"
            for m, o, ref in undocumented[:12])
        by_kind = "\n".join(f"  {n} x {k}" for k, n in kinds.most_common(12))
        note = ""
        schema_canary = _schema_canary_accepted()
        if schema_canary:
            note = ("\nnote: this build of `concordia` accepts canary-schema-skipped, so the core is not "
                    "validating JSON Schemas yet; schema-related disagreements are expected until it does.")
        pytest.fail(f"{len(undocumented)} undocumented verdict disagreements with the reference runner "
                    f"(vectors written to {out_dir}):\n{shown}\nby (profile, operator, ours, ref):\n{by_kind}{note}")


def _schema_canary_accepted() -> bool:
    exe = concordia_bin()
    try:
        proc = subprocess.run([str(exe), "conformance", str(mutate_vectors.VECTORS), "--json"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        results = json.loads(proc.stdout)["results"]
    except (OSError, ValueError, KeyError, subprocess.SubprocessError):
        return False
    return any(r.get("id") == "canary-schema-skipped" and r.get("got") == "accept" for r in results)
