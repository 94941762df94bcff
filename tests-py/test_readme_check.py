"""tools/ci/readme_check.py, the README check: it runs transcript blocks, matches `…`, and
fails (naming the README line) on a mismatch, a non-zero exit that the block does not show,
or a README without any transcript block. The real README is checked by tools/ci/readme.sh."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

CHECK = REPO_ROOT / "tools" / "ci" / "readme_check.py"


def check(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    readme = tmp_path / "README.md"
    readme.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, str(CHECK), str(readme)], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120)


def test_matching_blocks_pass(tmp_path: Path) -> None:
    text = """# t

```sh
echo not run
```

```
$ echo '{"b": 1, "a": [1.50]}' | concordia jcs
{"a":[1.5],"b":1}
$ concordia keygen | concordia hash
sha256:…
$ printf 'a\\nb\\nc\\n'
a
…
$ echo $? ; ls examples/consensus/email.txt
0
examples/consensus/email.txt
$ echo '{' | concordia jcs
concordia: <stdin>: malformed JSON at byte …
$ echo $?
2
$ echo one \\
    two
one two
```
"""
    p = check(tmp_path, text)
    assert p.returncode == 0, p.stdout
    assert "1 blocks, 7 commands, 0 mismatches" in p.stdout


def test_a_mismatch_fails_and_names_the_line(tmp_path: Path) -> None:
    p = check(tmp_path, "x\n\n```\n$ echo '[1.0]' | concordia jcs\n[1.0]\n```\n")
    assert p.returncode == 1
    assert "README.md:4: `echo '[1.0]' | concordia jcs` printed" in p.stdout
    assert "1 mismatches" in p.stdout


def test_placeholder_stays_within_a_line(tmp_path: Path) -> None:
    p = check(tmp_path, "```\n$ printf 'a\\nb\\n'\na…\n```\n")
    assert p.returncode == 1, p.stdout


def test_an_unshown_failure_fails(tmp_path: Path) -> None:
    p = check(tmp_path, "```\n$ false\n```\n")
    assert p.returncode == 1
    assert "`false` exited 1" in p.stdout


def test_no_transcript_block_fails(tmp_path: Path) -> None:
    p = check(tmp_path, "```sh\nconcordia demo\n```\n")
    assert p.returncode == 1
    assert "no transcript block" in p.stdout
