#!/usr/bin/env bash
# Builds the JVM jar of the Kotlin bindings, the way a JVM user consumes them:
#   DIR/concordia-<version>.jar          the compiled bindings (ffi-uniffi/bindings/kotlin,
#                                        package io.github.concordia_rs.concordia), the
#                                        release libconcordia_uniffi.so (debug info
#                                        stripped) as the JNA resource
#                                        linux-x86-64/libconcordia_uniffi.so, the POM under
#                                        META-INF/maven/, LICENSE and NOTICE
#   DIR/concordia-<version>.pom          ffi-uniffi/jvm/pom.xml: JNA and kotlin-stdlib
#   DIR/concordia-<version>-sources.jar  the Kotlin source
# JNA finds the library on the classpath (its resource folder linux-x86-64/), so a program
# needs only the jar, JNA and the Kotlin standard library: no -Djna.library.path and no
# LD_LIBRARY_PATH. Only Linux x86_64 is built (the host); other platforms' libraries go
# into their own JNA folders (darwin-aarch64/, win32-x86-64/, ...), built on those hosts.
#
#   tools/build-jar.sh [--out DIR]   # default DIR: target/jar
#
# The JVM toolchain (JDK 17+, JNA, the pinned Kotlin compiler) is tools/ci/kotlin-env.sh's.
set -euo pipefail

caller="$PWD"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

out="$root/target/jar"
while (($#)); do
    case $1 in
        --out) out="${2:?--out needs a directory}"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        -h | --help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "build-jar.sh: unknown argument $1 (usage: tools/build-jar.sh [--out DIR])" >&2; exit 2 ;;
    esac
done
# A relative DIR is relative to the caller's working directory.
[[ $out == /* ]] || out="$caller/$out"
cd "$root"
# shellcheck source=tools/ci/kotlin-env.sh
source tools/ci/kotlin-env.sh

readonly BINDINGS=ffi-uniffi/bindings/kotlin/io/github/concordia_rs/concordia/concordia_uniffi.kt
readonly POM=ffi-uniffi/jvm/pom.xml
readonly GROUP=io.github.concordia-rs ARTIFACT=concordia
readonly LIB="${CARGO_TARGET_DIR:-target}/release/libconcordia_uniffi.so"
# -api-version/-language-version 2.1: the classes' metadata and standard-library calls are
# those of Kotlin 2.1 (the oldest language version kotlinc 2.4 does not deprecate), the
# kotlin-stdlib version the POM declares.
readonly KOTLIN_FLAGS="-Werror -language-version 2.1 -api-version 2.1 -jvm-target 1.8"

[[ "$(uname -s)-$(uname -m)" == Linux-x86_64 ]] ||
    missing "builds the Linux x86_64 jar (JNA folder linux-x86-64/) and runs on $(uname -s)-$(uname -m)"

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)"
pom_version="$(sed -n 's|^  <version>\(.*\)</version>$|\1|p' "$POM")"
pom_jna="$(grep -A2 '<artifactId>jna</artifactId>' "$POM" | sed -n 's|.*<version>\(.*\)</version>.*|\1|p')"
[[ "$pom_version" == "$version" ]] || missing "$POM has version ${pom_version:-?}, the workspace $version"
[[ "$pom_jna" == "$JNA_VERSION" ]] || missing "$POM declares JNA ${pom_jna:-?}, CI runs JNA $JNA_VERSION (tools/ci/kotlin-env.sh)"

ensure_jdk_and_jna
ensure_kotlin
step cargo build --locked --release -p concordia-uniffi --lib
classes="$(compile jar-bindings "$KOTLIN_FLAGS" "$jna_jar:$STDLIB_JAR" "$BINDINGS")"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/classes/linux-x86-64" "$stage/classes/META-INF/maven/$GROUP/$ARTIFACT" "$stage/sources/META-INF"
cp -R "$classes/." "$stage/classes/"
# The release profile keeps line tables (debug = 1) for the CLI's backtraces; the shipped
# library does not need them.
step objcopy --strip-debug "$LIB" "$stage/classes/linux-x86-64/libconcordia_uniffi.so"
cp "$POM" "$stage/classes/META-INF/maven/$GROUP/$ARTIFACT/pom.xml"
printf 'groupId=%s\nartifactId=%s\nversion=%s\n' "$GROUP" "$ARTIFACT" "$version" \
    >"$stage/classes/META-INF/maven/$GROUP/$ARTIFACT/pom.properties"
# LICENSE and the NOTICE of what the library carries (concordia-core compiles in the
# conformance suite's JSON Schemas).
for d in classes sources; do
    cp LICENSE "$stage/$d/META-INF/LICENSE"
    cp core/NOTICE "$stage/$d/META-INF/NOTICE"
done
mkdir -p "$stage/sources/io/github/concordia_rs/concordia"
cp "$BINDINGS" "$stage/sources/io/github/concordia_rs/concordia/"
cat >"$stage/MANIFEST.MF" <<MF
Automatic-Module-Name: io.github.concordia_rs.concordia
Implementation-Title: concordia-rs
Implementation-Version: $version
MF

mkdir -p "$out"
jar_file="$out/$ARTIFACT-$version.jar"
rm -f "$jar_file" "$out/$ARTIFACT-$version-sources.jar"
step "$jar" --create --file "$jar_file" --manifest "$stage/MANIFEST.MF" -C "$stage/classes" .
step "$jar" --create --file "$out/$ARTIFACT-$version-sources.jar" --no-manifest -C "$stage/sources" .
cp "$POM" "$out/$ARTIFACT-$version.pom"
for f in "$jar_file" "$out/$ARTIFACT-$version-sources.jar" "$out/$ARTIFACT-$version.pom"; do
    echo "==> $f: $(wc -c <"$f") bytes"
done
