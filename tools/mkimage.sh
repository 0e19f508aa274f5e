#!/usr/bin/env bash
# Build a bootable disk image without root: a GPT disk with one EFI system partition (FAT32)
# holding \EFI\BOOT\BOOTX64.EFI or \EFI\BOOT\BOOTAA64.EFI (the removable-media path every UEFI
# firmware boots; the name follows the PE machine type of the image), an empty
# \pmucal\results\ and, if given, \pmucal\pmucal.cfg.
#
#   tools/mkimage.sh OUT.img PMUCAL.efi [CONFIG] [SIZE_MIB]
#
# The ESP starts at sector 2048 (1 MiB), so mtools reach it as OUT.img@@1M.
set -euo pipefail

out=${1:?usage: mkimage.sh OUT.img PMUCAL.efi [CONFIG] [SIZE_MIB]}
efi=${2:?usage: mkimage.sh OUT.img PMUCAL.efi [CONFIG] [SIZE_MIB]}
cfg=${3:-}
size_mib=${4:-64}

for tool in sgdisk mkfs.vfat mmd mcopy; do
        command -v "$tool" >/dev/null || { echo "mkimage: $tool missing (make deps)" >&2; exit 1; }
done
[ -f "$efi" ] || { echo "mkimage: $efi not found (make first)" >&2; exit 1; }

# UEFI spec "Removable Media Boot Behavior": the file name depends on the machine type in the
# PE header (offset 0x3c -> "PE\0\0", then the 16-bit machine: 0x8664 x64, 0xaa64 AArch64).
[ "$(head -c 2 "$efi")" = MZ ] && [ "$(stat -c %s "$efi")" -ge 64 ] ||
        { echo "mkimage: $efi is not a UEFI application (no PE/COFF 'MZ' header)" >&2; exit 1; }
pe=$(od -An -tu4 -j 60 -N 4 "$efi" | tr -d ' ')
machine=$(od -An -tx2 -j $((pe + 4)) -N 2 "$efi" | tr -d ' ')
case "$machine" in
8664) boot_name=BOOTX64.EFI ;;
aa64) boot_name=BOOTAA64.EFI ;;
*)    echo "mkimage: $efi: PE machine type '$machine' is neither x64 nor AArch64" >&2; exit 1 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rm -f "$out"
truncate -s "${size_mib}M" "$out"
sgdisk --clear --new=1:2048:0 --typecode=1:ef00 --change-name=1:"pmucal ESP" "$out" >/dev/null
last=$(sgdisk --info=1 "$out" | sed -n 's/^Last sector: \([0-9]*\).*/\1/p')
esp_kib=$(( (last - 2048 + 1) / 2 ))

# FAT32 wants at least 65525 clusters: at 512-byte sectors and 1 sector per cluster that is
# ~32 MiB; smaller images get FAT16, which UEFI reads just as well.
fat=32
[ "$size_mib" -lt 40 ] && fat=16
mkfs.vfat -F "$fat" -n PMUCAL -C "$tmp/esp.img" "$esp_kib" >/dev/null
mmd -i "$tmp/esp.img" ::/EFI ::/EFI/BOOT ::/pmucal ::/pmucal/results
mcopy -i "$tmp/esp.img" "$efi" "::/EFI/BOOT/$boot_name"
[ -n "$cfg" ] && mcopy -i "$tmp/esp.img" "$cfg" ::/pmucal/pmucal.cfg
dd if="$tmp/esp.img" of="$out" bs=1M seek=1 conv=notrunc,sparse status=none
echo "mkimage: $out (${size_mib} MiB GPT, FAT$fat ESP at 1 MiB, \\EFI\\BOOT\\$boot_name)"
