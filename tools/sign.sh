#!/usr/bin/env bash
# Secure Boot for pmucal: the keys to enrol, and signed images (sbsigntool, efitools, openssl;
# `make deps` installs them).
#
#   tools/sign.sh keys DIR
#       A key set of your own in DIR, for a machine whose firmware is put in setup mode:
#       PK, KEK and db key pairs (RSA 2048, ten years) as .key/.crt (PEM) and .cer (DER, what
#       firmware setup screens' "enroll from file" take), each as an EFI signature list
#       (.esl) and signed for the variable it goes into (.auth: PK signed by PK, KEK by PK,
#       db by KEK), ready for KeyTool.efi, the firmware's setup or `efi-updatevar`. Only db is
#       needed to sign pmucal; PK and KEK are there for a machine you take over entirely. An
#       existing DIR is refused rather than overwritten.
#   tools/sign.sh sign KEY CERT IN.efi OUT.efi
#       IN.efi signed with KEY/CERT (sbsign), and the signature checked against CERT
#       (sbverify) before OUT.efi is kept.
#   tools/sign.sh snakeoil DIR IN.efi
#       The test images for run-qemu.sh --secure-boot, in DIR: pmucal.snakeoil.efi signed with
#       the "snakeoil" key that Debian's OVMF/AAVMF Secure Boot variables enrol in PK, KEK and
#       db (/usr/share/ovmf/PkKek-1-snakeoil.{key,pem}; its password, "snakeoil", is published
#       in the ovmf package's README.Debian), and pmucal.tampered.efi, the same signed image
#       with one byte of its code changed afterwards, which the firmware must refuse.
set -euo pipefail

die() { echo "sign: $*" >&2; exit 1; }
need() { for t in "$@"; do command -v "$t" >/dev/null || die "$t missing (make deps installs sbsigntool, efitools, openssl)"; done; }

sign() { # KEY CERT IN OUT
        local key=$1 cert=$2 in=$3 out=$4
        need sbsign sbverify
        [ -f "$key" ] || die "key $key not found"
        [ -f "$cert" ] || die "certificate $cert not found"
        [ -f "$in" ] || die "$in not found (make first)"
        sbsign --key "$key" --cert "$cert" --output "$out.tmp" "$in" >/dev/null 2>"$out.log" ||
                { cat "$out.log" >&2; rm -f "$out.tmp" "$out.log"; die "sbsign failed for $in"; }
        sbverify --cert "$cert" "$out.tmp" >"$out.log" 2>&1 ||
                { cat "$out.log" >&2; rm -f "$out.tmp" "$out.log"; die "$out: the signature does not verify against $cert"; }
        rm -f "$out.log"
        mv "$out.tmp" "$out"
        echo "signed $out with $(openssl x509 -in "$cert" -noout -subject 2>/dev/null)"
}

keys() { # DIR
        local dir=$1 guid n
        need openssl cert-to-efi-sig-list sign-efi-sig-list
        [ ! -e "$dir" ] || die "$dir exists: refusing to overwrite keys (remove it first)"
        mkdir -p "$dir"
        guid=$(cat /proc/sys/kernel/random/uuid)
        echo "$guid" >"$dir/owner-guid.txt"
        for n in PK KEK db; do
                openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 \
                        -subj "/CN=pmucal $n/" -keyout "$dir/$n.key" -out "$dir/$n.crt" 2>/dev/null
                openssl x509 -in "$dir/$n.crt" -outform DER -out "$dir/$n.cer"
                cert-to-efi-sig-list -g "$guid" "$dir/$n.crt" "$dir/$n.esl"
        done
        chmod 600 "$dir"/*.key
        sign-efi-sig-list -g "$guid" -k "$dir/PK.key" -c "$dir/PK.crt" PK "$dir/PK.esl" "$dir/PK.auth" >/dev/null
        sign-efi-sig-list -g "$guid" -k "$dir/PK.key" -c "$dir/PK.crt" KEK "$dir/KEK.esl" "$dir/KEK.auth" >/dev/null
        sign-efi-sig-list -g "$guid" -k "$dir/KEK.key" -c "$dir/KEK.crt" db "$dir/db.esl" "$dir/db.auth" >/dev/null
        echo "keys in $dir: sign with SIGN_KEY=$dir/db.key SIGN_CERT=$dir/db.crt; enrol db.auth (or db.cer) in the firmware's db"
}

snakeoil() { # DIR IN
        local dir=$1 in=$2 key=/usr/share/ovmf/PkKek-1-snakeoil.key cert=/usr/share/ovmf/PkKek-1-snakeoil.pem off
        need openssl
        [ -f "$key" ] && [ -f "$cert" ] || die "$key or $cert missing (make deps installs ovmf)"
        mkdir -p "$dir"
        openssl rsa -in "$key" -passin pass:snakeoil -out "$dir/snakeoil.key" 2>/dev/null ||
                die "cannot read $key with the password README.Debian gives"
        chmod 600 "$dir/snakeoil.key"
        sign "$dir/snakeoil.key" "$cert" "$in" "$dir/pmucal.snakeoil.efi"
        # One byte in the middle of the first section's raw data (PE: e_lfanew at 0x3c, the
        # COFF header's SizeOfOptionalHeader at +20, section headers after it; PointerToRawData
        # at +20 and SizeOfRawData at +16 of the first header): the code the signature covers.
        local pe opt sec raw size
        pe=$(od -An -tu4 -j 60 -N 4 "$dir/pmucal.snakeoil.efi" | tr -d ' ')
        opt=$(od -An -tu2 -j $((pe + 20)) -N 2 "$dir/pmucal.snakeoil.efi" | tr -d ' ')
        sec=$((pe + 24 + opt))
        size=$(od -An -tu4 -j $((sec + 16)) -N 4 "$dir/pmucal.snakeoil.efi" | tr -d ' ')
        raw=$(od -An -tu4 -j $((sec + 20)) -N 4 "$dir/pmucal.snakeoil.efi" | tr -d ' ')
        [ "$size" -gt 0 ] || die "$dir/pmucal.snakeoil.efi: no section data to alter"
        off=$((raw + size / 2))
        cp "$dir/pmucal.snakeoil.efi" "$dir/pmucal.tampered.efi.tmp"
        printf "\\x$(printf %02x $(( ($(od -An -tu1 -j "$off" -N 1 "$dir/pmucal.tampered.efi.tmp") ^ 0xff) )))" |
                dd of="$dir/pmucal.tampered.efi.tmp" bs=1 seek="$off" conv=notrunc status=none
        if sbverify --cert "$cert" "$dir/pmucal.tampered.efi.tmp" >/dev/null 2>&1; then
                rm -f "$dir/pmucal.tampered.efi.tmp"; die "the altered image still verifies: byte $off is not covered"
        fi
        mv "$dir/pmucal.tampered.efi.tmp" "$dir/pmucal.tampered.efi"
        echo "altered $dir/pmucal.tampered.efi (byte $off of the signed image; sbverify now refuses it)"
}

case "${1:-}" in
keys)     [ $# -eq 2 ] || die "usage: sign.sh keys DIR"; keys "$2" ;;
sign)     [ $# -eq 5 ] || die "usage: sign.sh sign KEY CERT IN.efi OUT.efi"; sign "$2" "$3" "$4" "$5" ;;
snakeoil) [ $# -eq 3 ] || die "usage: sign.sh snakeoil DIR IN.efi"; snakeoil "$2" "$3" ;;
*)        die "usage: sign.sh keys DIR | sign KEY CERT IN.efi OUT.efi | snakeoil DIR IN.efi" ;;
esac
