"""The end of a tools/ci check script: print each problem, then one summary line.

    sys.exit(ci_report.finish("limits.py", problems, failed="3 problems", passed="ok"))

returns 1 (the summary `failed` on stderr) when there are problems, else 0 (`passed` on
stdout).
"""

from __future__ import annotations

import sys
from typing import Iterable


def finish(tool: str, problems: Iterable[str], *, failed: str, passed: str) -> int:
    problems = list(problems)
    for p in problems:
        print(p)
    if problems:
        print(f"{tool}: {failed}", file=sys.stderr)
        return 1
    print(f"{tool}: {passed}")
    return 0
