#!/usr/bin/env bash
# Writes concordia.pc for a library directory and an include directory.
#   ffi-c/gen-pkgconfig.sh LIBDIR INCLUDEDIR OUT.pc [PREFIX]
# In-tree:  ffi-c/gen-pkgconfig.sh "$PWD/target/release" "$PWD/include" target/release/pkgconfig/concordia.pc
# Installed: ffi-c/gen-pkgconfig.sh /usr/local/lib /usr/local/include /usr/local/lib/pkgconfig/concordia.pc /usr/local
set -euo pipefail
libdir="$1" includedir="$2" out="$3" prefix="${4:-$1}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(sed -n 's/^#define CONCORDIA_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$here/../include/concordia.h" | paste -sd.)"
mkdir -p "$(dirname "$out")"
sed -e "s|@PREFIX@|$prefix|" -e "s|@LIBDIR@|$libdir|" -e "s|@INCLUDEDIR@|$includedir|" -e "s|@VERSION@|$version|" \
    "$here/concordia.pc.in" > "$out"
