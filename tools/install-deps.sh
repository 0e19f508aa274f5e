#!/usr/bin/env bash
# Install the Debian packages named as arguments, but only those that are missing, so that
# `make run` / `make test` are quick on a machine that already has them.
#
#   tools/install-deps.sh [--gnuefi-arm64 DIR] PACKAGE...
#
# --gnuefi-arm64 DIR also puts GNU-EFI for arm64 (headers, crt0-efi-aarch64.o,
# elf_aarch64_efi.lds, libefi.a, libgnuefi.a) under DIR/usr/. The arm64 package cannot be
# installed beside the amd64 one (both own /usr/include/efi), so it is downloaded with
# `apt-get download` and unpacked with `dpkg -x`; that needs arm64 as a foreign architecture.
set -eu
arm64_dir=""
if [ "${1:-}" = "--gnuefi-arm64" ]; then
        arm64_dir=${2:?--gnuefi-arm64 needs a folder}
        shift 2
fi

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update() { [ "$updated" -eq 1 ] || { $sudo apt-get update -qq; updated=1; }; }

missing=()
for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
        echo "pmucal: installing missing Debian packages: ${missing[*]}"
        apt_update
        $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ -n "$arm64_dir" ] || exit 0
[ -f "$arm64_dir/usr/lib/crt0-efi-aarch64.o" ] && exit 0
echo "pmucal: unpacking GNU-EFI for arm64 into $arm64_dir"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
        $sudo dpkg --add-architecture arm64
        updated=0
fi
apt_update
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt-get download writes into the current folder; the _apt sandbox user may not reach a
# private temporary folder, which only costs a warning.
(cd "$tmp" && apt-get download -qq gnu-efi:arm64 2>&1 | grep -v 'unsandboxed' || true)
deb=$(ls "$tmp"/gnu-efi_*_arm64.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "pmucal: apt-get download gnu-efi:arm64 failed" >&2; exit 1; }
mkdir -p "$arm64_dir"
dpkg -x "$deb" "$arm64_dir"
[ -f "$arm64_dir/usr/lib/crt0-efi-aarch64.o" ] || {
        echo "pmucal: $deb has no crt0-efi-aarch64.o" >&2; exit 1; }
