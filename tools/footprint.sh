#!/usr/bin/env bash
# Embedded footprint of concordia-core on thumbv7em-none-eabihf (Cortex-M4F), issue 2.
#
# Builds conformance/no-std-check (parse + canonicalize + verify one signed 1 KB message,
# no allocator, opt-level "z", LTO, panic=abort) with and without the core's `small`
# feature (and `small` with the core's `es256`, which also verifies an ES256 signature), and
# reports for each:
#   .text / .rodata / .bss   from `arm-none-eabi-size -A`
#   stack high-water mark    measured by running the program under qemu-system-arm
#                            (mps2-an386, Cortex-M4): cortex-m-rt paints the stack with
#                            0xCCCCCCCC at reset; the program finds the lowest overwritten
#                            word after the run and prints it over semihosting.
# The `small` build must meet the issue's goals: .text <= 48 KiB, stack <= 12 KiB; the
# script exits 1 otherwise (or if the message fails to verify on the target).
#
# Usage: tools/footprint.sh            (installs what is missing: rustup target, and with
#                                       apt as root: qemu-system-arm, binutils-arm-none-eabi)
#        FOOTPRINT_NO_INSTALL=1 tools/footprint.sh   (never installs)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
crate="$root/conformance/no-std-check"
target=thumbv7em-none-eabihf
bin=concordia-no-std-check
text_goal=$((48 * 1024))
stack_goal=$((12 * 1024))
started=$SECONDS

say() { echo "footprint: $*" >&2; }

ensure_tools() {
    if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
        [[ -z "${FOOTPRINT_NO_INSTALL:-}" ]] || { say "missing rustup target $target"; exit 2; }
        rustup target add "$target"
    fi
    local missing=()
    command -v qemu-system-arm >/dev/null || missing+=(qemu-system-arm)
    command -v arm-none-eabi-size >/dev/null || missing+=(binutils-arm-none-eabi)
    if ((${#missing[@]})); then
        if [[ -n "${FOOTPRINT_NO_INSTALL:-}" || "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
            say "missing: ${missing[*]} (apt-get install ${missing[*]})"
            exit 2
        fi
        say "installing ${missing[*]}"
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

# section_size ELF NAME -> bytes (0 when absent)
section_size() {
    arm-none-eabi-size -A "$1" | awk -v s="$2" '$1 == s { print $2; found = 1 } END { if (!found) print 0 }'
}

# measure LABEL [cargo args...] -> prints one table row, sets last_text / last_stack
measure() {
    local label=$1
    shift
    # One target dir for both builds: only the crates a feature touches are rebuilt.
    # Not --locked: the crate's Cargo.lock pins what it lists, and new core dependencies
    # are added to it rather than failing the run.
    (cd "$crate" && cargo build --release --target "$target" "$@" >&2)
    local elf="$crate/target/$target/release/$bin-$label"
    cp "$crate/target/$target/release/$bin" "$elf"
    local text rodata bss report
    text=$(section_size "$elf" .text)
    rodata=$(section_size "$elf" .rodata)
    bss=$(section_size "$elf" .bss)
    report=$(timeout 120 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic -monitor none \
        -semihosting-config enable=on,target=native -kernel "$elf" </dev/null 2>&1) || {
        say "$label: program failed under QEMU: $report"
        exit 1
    }
    local result stack_total stack_path
    result=$(sed -n 's/.*result=\([0-9]*\).*/\1/p' <<<"$report")
    stack_total=$(sed -n 's/.*stack_total=\([0-9]*\).*/\1/p' <<<"$report")
    stack_path=$(sed -n 's/.*stack_path=\([0-9]*\).*/\1/p' <<<"$report")
    if [[ "$result" != 0 ]]; then
        say "$label: message did not verify on the target: $report"
        exit 1
    fi
    printf '| %-11s | %7d | %7d | %6d | %11d | %10d |\n' "$label" "$text" "$rodata" "$bss" "$stack_total" "$stack_path"
    last_text=$text
    last_stack=$stack_total
}

ensure_tools
echo "concordia-core on $target (opt-level z, lto, codegen-units 1, panic abort; qemu mps2-an386 Cortex-M4)"
echo "| build       |   .text | .rodata |   .bss | stack total | stack path |"
echo "|-------------|--------:|--------:|-------:|------------:|-----------:|"
measure default
measure small --features small
small_text=$last_text
small_stack=$last_stack
# The core's `es256` feature (issue 24): the same path plus one ES256 verification of the
# same message; the difference to `small` is what ES256 adds to an embedded verifier.
measure small+es256 --features small,es256
echo "(bytes; 'stack total' = high-water mark from the top of RAM, reset + main + path;"
echo " 'stack path' = below main's frame, i.e. parse + hash + verify alone;"
echo " .bss is the static node buffer, 547 nodes x 24 bytes, plus the report line)"
status=0
if ((small_text <= text_goal)); then
    echo "goal .text <= $text_goal (48 KiB) with small: met ($small_text)"
else
    echo "goal .text <= $text_goal (48 KiB) with small: NOT met ($small_text)"
    status=1
fi
if ((small_stack <= stack_goal)); then
    echo "goal stack <= $stack_goal (12 KiB) with small: met ($small_stack)"
else
    echo "goal stack <= $stack_goal (12 KiB) with small: NOT met ($small_stack)"
    status=1
fi
echo "footprint.sh took $((SECONDS - started)) s"
exit $status
