#!/usr/bin/env python3
"""Guards the handle clone of every object class in UniFFI 0.32.2's generated Kotlin.

The generated `uniffiCloneHandle()` calls Rust's `clone_<object>` without looking at the
object's call counter. Method calls go through `callWithHandle`, which refuses a closed
object, but an object passed as an *argument* (`Signer(id, keyPair)` after
`keyPair.close()`) is lowered through `uniffiCloneHandle()` alone, and Rust then clones an
`Arc` that was already freed: a use after free reachable from safe Kotlin.

This rewrite gives `uniffiCloneHandle()` the same guard as `callWithHandle`: the counter is
raised (refusing a destroyed object with IllegalStateException) for the duration of the
clone and lowered after it, so a concurrent `close()` cannot free the object in between.
tools/ci/uniffi.sh applies it to the generator's output before comparing or writing the
committed copy, so the committed bindings are exactly "generated, then guarded".

Usage: uniffi_kotlin_guard.py FILE (rewritten in place; fails unless every clone was found).
"""

import re
import sys

CLONE = re.compile(
    r"(?P<head>    fun uniffiCloneHandle\(\): Long \{\n"
    r"        if \(handle == 0\.toLong\(\)\) \{\n"
    r"            throw InternalException\(\"uniffiCloneHandle\(\) called on NoHandle object\"\);\n"
    r"        \}\n)"
    r"        return uniffiRustCall\(\) \{ status ->\n"
    r"            (?P<call>UniffiLib\.uniffi_\w+_fn_clone_\w+\(handle, status\))\n"
    r"        \}\n"
    r"    \}\n"
)

GUARDED = """\
        // Guarded by tools/ci/uniffi_kotlin_guard.py: a destroyed object is refused here too,
        // not only in callWithHandle (an object passed as an argument is lowered through
        // this function alone).
        do {{
            val c = this.callCounter.get()
            if (c == 0L) {{
                throw IllegalStateException("${{this.javaClass.simpleName}} object has already been destroyed")
            }}
            if (c == Long.MAX_VALUE) {{
                throw IllegalStateException("${{this.javaClass.simpleName}} call counter would overflow")
            }}
        }} while (! this.callCounter.compareAndSet(c, c + 1L))
        try {{
            return uniffiRustCall() {{ status ->
                {call}
            }}
        }} finally {{
            if (this.callCounter.decrementAndGet() == 0L) {{
                cleanable?.clean()
            }}
        }}
    }}
"""


def main() -> int:
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    total = text.count("fun uniffiCloneHandle(): Long {")
    out, n = CLONE.subn(lambda m: m.group("head") + GUARDED.format(call=m.group("call")), text)
    if total == 0 or n != total:
        print(
            f"uniffi_kotlin_guard.py: {path}: guarded {n} of {total} uniffiCloneHandle() "
            "(the generator's output changed shape: update the pattern)",
            file=sys.stderr,
        )
        return 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(out)
    print(f"guarded uniffiCloneHandle() of {n} object classes in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
