# shellcheck shell=bash
# Sourced by the tools/ci scripts: the one way they install a missing Debian package.
#
#   apt_install WHY PACKAGE...
#
# As root on a machine with apt-get: installs the packages, saying so first (waits up to
# 120 s for a busy apt lock). Otherwise prints the `apt-get install` line to run, naming
# what needs it (WHY), and exits 2.
apt_install() {
    local why=$1
    shift
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "==> apt-get install $* ($why)"
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 update -qq
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 install -y -qq "$@" >/dev/null
    else
        echo "${0##*/}: $why needs: apt-get install $* (as root)" >&2
        exit 2
    fi
}
