#!/usr/bin/env bash
# Builds libconcordia (the C ABI, crate concordia-ffi) and installs it the way a C library
# is installed, in the layout of cargo-c's `cargo cinstall` (ffi-c/README.md, "Install"):
#
#   tools/install-c.sh [--prefix DIR] [--libdir DIR] [--includedir DIR] [--destdir DIR] [--profile NAME]
#
#   PREFIX/include/concordia.h
#   LIBDIR/libconcordia.so.X.Y.Z     SONAME libconcordia.so.ABI (ffi-c/build.rs), debug info stripped
#   LIBDIR/libconcordia.so.ABI -> libconcordia.so.X.Y.Z
#   LIBDIR/libconcordia.so     -> libconcordia.so.ABI
#   LIBDIR/libconcordia.a            debug info and LLVM bitcode stripped
#   LIBDIR/pkgconfig/concordia.pc          -lconcordia; Libs.private for `pkg-config --static`
#   LIBDIR/pkgconfig/concordia-static.pc   LIBDIR/libconcordia.a and its system libraries
#
# --prefix defaults to /usr/local; --libdir (default lib) and --includedir (default include)
# are relative to the prefix unless absolute; --destdir (or $DESTDIR) stages the files under
# DIR for a package while the pkg-config files keep the final prefix. --profile is the cargo
# profile (default release). Respects CARGO_TARGET_DIR and cargo's other settings; STRIP
# names the strip program (default strip). Needs cargo, binutils (readelf, strip) and
# coreutils. Linux and the BSDs (ELF); for macOS or Windows use cargo-c.
set -euo pipefail

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

die() {
    echo "install-c.sh: $*" >&2
    exit 2
}

prefix=/usr/local libdir=lib includedir=include destdir="${DESTDIR:-}" profile=release
while (($#)); do
    case "$1" in
        --prefix | --libdir | --includedir | --destdir | --profile)
            (($# >= 2)) || die "$1 needs a value"
            declare "${1#--}=$2"
            shift 2
            ;;
        --prefix=* | --libdir=* | --includedir=* | --destdir=* | --profile=*)
            opt="${1%%=*}"
            declare "${opt#--}=${1#*=}"
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done
[[ "$prefix" == /* ]] || die "--prefix must be an absolute path: $prefix"
[[ -z "$destdir" || "$destdir" == /* ]] || die "--destdir must be an absolute path: $destdir"
prefix="${prefix%/}"
[[ -n "$prefix" ]] || prefix=/
# Directories as the pkg-config files spell them (relative ones under ${prefix}).
pc_dir() { if [[ "$1" == /* ]]; then echo "${1%/}"; else echo "\${prefix}/${1%/}"; fi; }
abs_dir() { if [[ "$1" == /* ]]; then echo "${1%/}"; else echo "${prefix%/}/${1%/}"; fi; }
pc_libdir="$(pc_dir "$libdir")" pc_includedir="$(pc_dir "$includedir")"
libdir="$(abs_dir "$libdir")" includedir="$(abs_dir "$includedir")"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
strip_cmd="${STRIP:-strip}"
for tool in cargo readelf "$strip_cmd" install; do
    command -v "$tool" >/dev/null || die "$tool not found"
done

# The crate version (Cargo.toml) must be the one the committed header declares.
pkgid="$(cargo pkgid --locked -p concordia-ffi)"
version="${pkgid##*[#@]}"
header_version="$(sed -n 's/^#define CONCORDIA_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' include/concordia.h | paste -sd.)"
[[ "$version" == "$header_version" ]] ||
    die "include/concordia.h declares $header_version, the crate is $version: regenerate the header (ffi-c/README.md)"

# One build of the library's crate types (staticlib, cdylib, rlib); rustc also prints the
# system libraries a static link needs (cargo replays the note when nothing changed).
case "$profile" in
    dev) profile_dir=debug ;;
    *) profile_dir="$profile" ;;
esac
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
echo "==> cargo rustc --locked --profile $profile -p concordia-ffi --lib -- --print native-static-libs"
cargo rustc --locked --profile "$profile" -p concordia-ffi --lib -- --print native-static-libs 2>&1 | tee "$log" >&2
static_libs="$(sed -n 's/^note: native-static-libs: //p' "$log" | tail -n 1)"
[[ -n "$static_libs" ]] || die "rustc printed no native-static-libs line"

target_dir="$(cargo metadata --locked --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
built="$target_dir/$profile_dir"
[[ -f "$built/libconcordia.so" && -f "$built/libconcordia.a" ]] || die "no libconcordia.so/.a in $built"
soname="$(readelf -d "$built/libconcordia.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')"
[[ "$soname" == libconcordia.so.* ]] || die "$built/libconcordia.so has no SONAME (ffi-c/build.rs sets it)"

stage_lib="$destdir$libdir" stage_inc="$destdir$includedir"
echo "==> installing libconcordia $version (SONAME $soname) from $built into ${destdir:+$destdir (staged) }$prefix"
install -d "$stage_lib/pkgconfig" "$stage_inc"
install -m 644 include/concordia.h "$stage_inc/concordia.h"
# As Debian's dh_strip does: debug info off the static library, and off the shared
# library also the symbols it does not export (its dynamic symbol table stays whole). The
# archive also loses the LLVM bitcode that the standard library's objects carry for
# rustc's LTO (half its size; a C linker never reads it).
install -m 644 "$built/libconcordia.a" "$stage_lib/libconcordia.a"
"$strip_cmd" --strip-debug --remove-section=.llvmbc --remove-section=.llvmcmd "$stage_lib/libconcordia.a"
install -m 755 "$built/libconcordia.so" "$stage_lib/libconcordia.so.$version"
"$strip_cmd" --strip-unneeded "$stage_lib/libconcordia.so.$version"
if [[ "$soname" != "libconcordia.so.$version" ]]; then
    ln -sfn "libconcordia.so.$version" "$stage_lib/$soname"
fi
ln -sfn "$soname" "$stage_lib/libconcordia.so"

for name in concordia concordia-static; do
    sed -e "s|@PREFIX@|$prefix|" -e "s|@LIBDIR@|$pc_libdir|" -e "s|@INCLUDEDIR@|$pc_includedir|" \
        -e "s|@VERSION@|$version|" -e "s|@LIBS_PRIVATE@|$static_libs|" \
        "ffi-c/$name.pc.in" > "$stage_lib/pkgconfig/$name.pc"
    chmod 644 "$stage_lib/pkgconfig/$name.pc"
done

echo "$stage_inc/concordia.h"
for f in libconcordia.so.$version "$soname" libconcordia.so libconcordia.a pkgconfig/concordia.pc pkgconfig/concordia-static.pc; do
    if [[ -L "$stage_lib/$f" ]]; then
        echo "$stage_lib/$f -> $(readlink "$stage_lib/$f")"
    else
        echo "$stage_lib/$f"
    fi
done
case "$libdir" in
    /usr/lib | /usr/lib64 | /usr/local/lib | /usr/local/lib64 | /lib | /lib64) [[ -n "$destdir" ]] || echo "(run ldconfig so that the loader sees $soname)" ;;
esac
