#!/usr/bin/env bash
# Writes concordia.pc (shared library, with an rpath to LIBDIR) and concordia-static.pc
# (libconcordia.a) into PCDIR for a library directory and an include directory.
#   ffi-c/gen-pkgconfig.sh LIBDIR INCLUDEDIR PCDIR [PREFIX]
# In-tree:   ffi-c/gen-pkgconfig.sh "$PWD/target/release" "$PWD/include" "$PWD/target/release/pkgconfig"
# Installed: ffi-c/gen-pkgconfig.sh /usr/local/lib /usr/local/include /usr/local/lib/pkgconfig /usr/local
# (A PCDIR ending in .pc is read as the path of concordia.pc, as older versions took it.)
set -euo pipefail
libdir="$1" includedir="$2" pcdir="$3" prefix="${4:-$1}"
case "$pcdir" in *.pc) pcdir="$(dirname "$pcdir")" ;; esac
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(sed -n 's/^#define CONCORDIA_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$here/../include/concordia.h" | paste -sd.)"
mkdir -p "$pcdir"
for name in concordia concordia-static; do
    sed -e "s|@PREFIX@|$prefix|" -e "s|@LIBDIR@|$libdir|" -e "s|@INCLUDEDIR@|$includedir|" -e "s|@VERSION@|$version|" \
        "$here/$name.pc.in" > "$pcdir/$name.pc"
done
