#!/usr/bin/env bash
# The committed fuzz seed corpora are one archive per target, fuzz/seeds/<target>.tar.gz
# (a few hundred small files per target would otherwise be most of the repository's
# files). Fuzzing reads them unpacked, from the gitignored fuzz/corpus/<target>/.
#
#   tools/fuzz-seeds.sh unpack [DIR]      # every archive into DIR/<target>/ (default fuzz/corpus);
#                                          # a target folder that exists already is left alone
#   tools/fuzz-seeds.sh pack TARGET...    # fuzz/corpus/<target>/ into fuzz/seeds/<target>.tar.gz
#   tools/fuzz-seeds.sh check             # each archive is exactly what `pack` makes of its content
#
# `pack` is deterministic (sorted names, no times or owners, gzip -n), so packing the same
# files again gives the same bytes and git sees a change only when the seeds change.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seeds="$root/fuzz/seeds"

usage() {
    sed -n '6,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

# pack_dir DIR OUT: the files of DIR (flat) as a deterministic archive.
pack_dir() {
    local dir=$1 out=$2
    if find "$dir" -mindepth 1 ! -type f | grep -q .; then
        echo "tools/fuzz-seeds.sh: $dir holds something other than files" >&2
        exit 1
    fi
    (cd "$dir" && find . -type f -printf '%P\n' | LC_ALL=C sort) >"$out.list"
    tar --create --file=- --directory="$dir" --no-recursion --verbatim-files-from \
        --files-from="$out.list" --sort=none --format=gnu --mtime=@0 \
        --owner=0 --group=0 --numeric-owner --mode=a=r,u+w \
        | gzip -9 -n >"$out"
    rm -f "$out.list"
}

unpack_to() {
    local dir=$1 archive t n
    for archive in "$seeds"/*.tar.gz; do
        t="$(basename "$archive" .tar.gz)"
        if [[ -d "$dir/$t" ]]; then
            echo "==> $dir/$t exists: left alone"
            continue
        fi
        mkdir -p "$dir/$t.tmp"
        tar --extract --gzip --file="$archive" --directory="$dir/$t.tmp" --no-same-owner
        mv "$dir/$t.tmp" "$dir/$t"
        n="$(find "$dir/$t" -type f | wc -l)"
        echo "==> $t: $n seeds in $dir/$t"
    done
}

case "${1:-}" in
    unpack)
        unpack_to "${2:-$root/fuzz/corpus}"
        ;;
    pack)
        shift
        (($#)) || usage
        mkdir -p "$seeds"
        for t in "$@"; do
            [[ -d "$root/fuzz/corpus/$t" ]] || { echo "tools/fuzz-seeds.sh: no fuzz/corpus/$t" >&2; exit 1; }
            pack_dir "$root/fuzz/corpus/$t" "$seeds/$t.tar.gz"
            echo "==> fuzz/seeds/$t.tar.gz: $(find "$root/fuzz/corpus/$t" -type f | wc -l) seeds, $(wc -c <"$seeds/$t.tar.gz") bytes"
        done
        ;;
    check)
        scratch="$(mktemp -d)"
        trap 'rm -rf "$scratch"' EXIT
        unpack_to "$scratch" >/dev/null
        for archive in "$seeds"/*.tar.gz; do
            t="$(basename "$archive" .tar.gz)"
            pack_dir "$scratch/$t" "$scratch/$t.tar.gz"
            cmp -s "$archive" "$scratch/$t.tar.gz" || {
                echo "tools/fuzz-seeds.sh: fuzz/seeds/$t.tar.gz is not what pack makes of its files (repack it)" >&2
                exit 1
            }
        done
        echo "==> fuzz/seeds: $(find "$scratch" -mindepth 2 -type f | wc -l) seeds in $(find "$seeds" -name "*.tar.gz" | wc -l) archives, each as pack makes it"
        ;;
    *) usage ;;
esac
