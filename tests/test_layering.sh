#!/bin/bash
# Tests for tools/check_layering.py: builds a small synthetic tree that obeys every rule, checks
# that it passes, then plants one violation of each kind in a fresh copy and checks that the
# tool names it (kind and file:line) and nothing else. Finally checks that a copy of the real
# tree (tracked and untracked, not ignored files) passes, and that one planted verdict is caught.
# Prints one TAP line per case. Run from the repository root.
set -u
TOOL=$PWD/tools/check_layering.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_layering.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2"; }

# mk PATH: write stdin to $clean/PATH.
clean=$tmp/clean
mk() { mkdir -p "$(dirname "$clean/$1")"; cat >"$clean/$1"; }

mk lib/status.h <<'EOF'
/** @file Status codes. */
#include <stdint.h>
typedef int status_t;
EOF
mk lib/status.c <<'EOF'
#include "lib/status.h"
const char *status_str(status_t st) { return st ? "error" : "ok"; }
EOF
mk boot/plat.h <<'EOF'
/** @file The platform: busy-waits on gBS->Stall under UEFI; EFI_STATUS never leaks out. */
#include <stddef.h>
#include "lib/status.h"
status_t plat_delay_us(unsigned us);
EOF
mk boot/uefi/uefi_priv.h <<'EOF'
# include <efi.h>
#include <efilib.h>
#include "boot/plat.h"
extern EFI_HANDLE uefi_image;
EOF
mk boot/uefi/uefi_main.c <<'EOF'
#include "uefi_priv.h"
EFI_HANDLE uefi_image;
EFI_STATUS efi_main(EFI_HANDLE h, EFI_SYSTEM_TABLE *st)
{
        UINTN n = 0;
        InitializeLib(h, st);
        return uefi_call_wrapper(gBS->Stall, 1, n);
}
EOF
mk boot/x86/msr.h <<'EOF'
#include "../../lib/status.h"
static inline unsigned long rdmsr(unsigned msr)
{
        unsigned lo, hi;
        __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
        return ((unsigned long)hi << 32) | lo;
}
status_t rdmsr_safe(unsigned msr, unsigned long *out);
EOF
mk boot/x86/msr.c <<'EOF'
#include "msr.h"
status_t rdmsr_safe(unsigned msr, unsigned long *out) { *out = rdmsr(msr); return 0; }
EOF
mk boot/x86/trap.S <<'EOF'
/* entry stubs */
        .text
        cpuid
        rdmsr   # read it
EOF
mk boot/arm64/sysreg.h <<'EOF'
static inline unsigned long pmcr_read(void)
{
        unsigned long v;
        __asm__ volatile("mrs %0, pmcr_el0" : "=r"(v));
        return v;
}
EOF
mk boot/linux/linux_plat.c <<'EOF'
#include <stdio.h>
#include <unistd.h>
#include "boot/plat.h"
status_t plat_delay_us(unsigned us) { return usleep(us) ? 1 : 0; }
EOF
mk pmu/pmu.h <<'EOF'
#include <stdbool.h>
#include "boot/plat.h"
#include "pmu/x86/regs.h"
bool pmu_has_counters(void);
EOF
mk pmu/x86/regs.h <<'EOF'
#define MSR_DEMO_PERFEVTSEL0 0x186
EOF
mk pmu/pmu.c <<'EOF'
#include "pmu.h"
#include "boot/plat.h"
/* #include <efi.h> is for boot/uefi only; so are EFI_STATUS and rep_check( verdicts. */
bool pmu_has_counters(void) { unsigned long v; return rdmsr_safe(0x345, &v) == 0; }
EOF
mk pmu/x86/drv_intel.c <<'EOF'
#include "pmu/pmu.h"
#include "boot/x86/msr.h"
unsigned long drv_intel_read(void) { return rdmsr(0xc1); }
EOF
mk bench/kernel.h <<'EOF'
#include <stdint.h>
#include "../pmu/pmu.h"
uint64_t bench_kernel_run(void);
EOF
mk bench/kernel.c <<'EOF'
#include "kernel.h"
uint64_t bench_kernel_run(void)
{
        uint32_t lo, hi;
        __asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi));
        return ((uint64_t)hi << 32) | lo;
}
EOF
mk bench/loop.S <<'EOF'
/* no rdmsr or cpuid here: those are boot/'s */
        .text
        lfence  // not cpuid
        rdtsc
EOF
mk report/rep.h <<'EOF'
#include <stdbool.h>
#include "bench/kernel.h"
bool rep_check(bool ok, const char *what);
EOF
mk report/rep.c <<'EOF'
#include "rep.h"
bool rep_check(bool ok, const char *what) { (void)what; return ok; } /* "PASS:" / "FAIL:" */
const char *rep_word(bool ok) { return ok ? "PASS: " : "FAIL: "; }
EOF
mk app/phase.h <<'EOF'
#include <stdbool.h>
bool app_phase_run(void);
EOF
mk app/phase.c <<'EOF'
#include "app/phase.h"
#include "report/rep.h"
#include "pmu/pmu.h"
/* UINTN, EFI_STATUS and CHAR16 stay in boot/uefi; rdmsr_safe( stays in boot/ and pmu/. */
bool app_phase_run(void)
{
        return rep_check(pmu_has_counters(), "EFI_STATUS-free, no rdmsr_safe( here, asm(\"rdmsr\")");
}
EOF
mk host/arch.h <<'EOF'
/* host/'s interface header: its architecture's folder */
#include "host/x86/cpu_host.h"
EOF
mk host/x86/cpu_host.h <<'EOF'
#include "boot/x86/msr.h"
unsigned long host_cpu_rev(void);
EOF
mk host/main.c <<'EOF'
#include <stdio.h>
#include <jansson.h>
#include "app/phase.h"
#include "host/arch.h"
int main(void) { return app_phase_run() && host_cpu_rev() ? 0 : 1; }
EOF
mk tests/test_phase.c <<'EOF'
#include <stdio.h>
#include "app/phase.h"
#include "boot/x86/msr.h"
status_t rdmsr_safe(unsigned msr, unsigned long *out) { *out = msr; puts("PASS: fake"); return 0; }
EOF

# run DIR ARGS...: sets out (stdout) and rc.
run() { local d=$1; shift; out=$(python3 "$TOOL" --root "$d" "$@" 2>/dev/null); rc=$?; }

run "$clean" --quiet
if [ "$rc" -eq 0 ] && [ -z "$out" ]; then ok "the clean synthetic tree passes (comments and strings naming EFI_STATUS, rdmsr_safe( do not count)"
else not_ok "the clean synthetic tree passes (exit $rc)" "$out"; fi

# plant NAME FILE WANT_KINDS [WANT_LINE_RE]: copy the clean tree, append stdin to FILE (created
# if missing), and expect exit 1, exactly the sorted kinds WANT_KINDS (space-separated) and a
# line "layering: <first kind>: FILE:<line of the first appended line>: ..." (or WANT_LINE_RE).
case_n=0
plant() {
        local name=$1 file=$2 want_kinds=$3 want_re=${4:-} d line kinds
        case_n=$((case_n + 1)); d=$tmp/case$case_n
        cp -r "$clean" "$d"; mkdir -p "$(dirname "$d/$file")"; touch "$d/$file"
        line=$(($(wc -l <"$d/$file") + 1))
        cat >>"$d/$file"
        run "$d" --quiet
        kinds=$(sed -n 's/^layering: \([a-z]*\): .*/\1/p' <<<"$out" | sort | tr '\n' ' ' | sed 's/ $//')
        [ -n "$want_re" ] || want_re="^layering: ${want_kinds%% *}: $file:$line: "
        if [ "$rc" -eq 1 ] && [ "$kinds" = "$want_kinds" ] && grep -qE -- "$want_re" <<<"$out"; then
                ok "$name"
        else
                not_ok "$name (exit $rc, kinds '$kinds', want '$want_kinds' and /$want_re/)" "$out"
        fi
}

plant "upward include, root-relative (lib -> app; its folder circle is reported too)" lib/status.c "circle upward" \
        '^layering: upward: lib/status.c:3: includes app/phase.h \(app/ is above lib/\) \(lib/ may include only lib\)$' <<'EOF'
#include "app/phase.h"
EOF
plant "upward include, ../ form (bench -> app)" bench/kernel.c "circle upward" \
        '^layering: upward: bench/kernel.c:8: includes app/phase.h ' <<'EOF'
#include "../app/phase.h"
EOF
plant "the upward include's folder loop is printed" bench/kernel.c "circle upward" \
        '^layering: circle: .*bench/kernel.c:8: folder loop bench -> app -> report -> bench via bench/kernel.c:8 \(app/phase.h\), app/phase.c:2 \(report/rep.h\), report/rep.h:2 \(bench/kernel.h\) ' <<'EOF'
#include "../app/phase.h"
EOF
mkdir -p "$clean/app"
cat >"$clean/app/ca.h" <<'EOF'
void ca(void);
EOF
cat >"$clean/app/cb.h" <<'EOF'
void cb(void);
EOF
cat >"$clean/app/cc.h" <<'EOF'
void cc(void);
EOF
printf '#include "ca.h"\n#include "cb.h"\nvoid cb(void) {}\n' >"$clean/app/cb.c"
plant "2-file circle: ca.c includes cb.h, cb.c includes ca.h" app/ca.c "circle" \
        '^layering: circle: app/ca.c:1: module loop app/ca -> app/cb -> app/ca via app/ca.c:1 \(app/cb.h\), app/cb.c:1 \(app/ca.h\) ' <<'EOF'
#include "cb.h"
void ca(void) {}
EOF
printf '#include "cc.h"\n#include "ca.h"\nvoid cc(void) {}\n' >"$clean/app/cc.c"
printf '#include "cc.h"\n#include "cb.h"\nvoid cb(void) {}\n' >"$clean/app/cb.c"
plant "3-file circle: ca -> cb -> cc -> ca" app/ca.c "circle" \
        '^layering: circle: app/ca.c:1: module loop app/ca -> app/cb -> app/cc -> app/ca via app/ca.c:1 \(app/cb.h\), app/cb.c:1 \(app/cc.h\), app/cc.c:2 \(app/ca.h\) ' <<'EOF'
#include "cb.h"
void ca(void) {}
EOF
rm -f "$clean"/app/c[abc].[ch]

run "$clean" --quiet
[ "$rc" -eq 0 ] || not_ok "the synthetic tree is clean again after the circle cases" "$out"

# One module split along its seams: mo.c and mo_part.c share mo_priv.h, which includes mo.h.
# mo.c calls into mo_part.c and mo_part.c uses mo.h's types: one module, not a circle.
split=$tmp/split; cp -r "$clean" "$split"
printf 'struct mo { int x; };\nvoid mo(void);\n' >"$split/app/mo.h"
printf '#include "app/mo.h"\nvoid mo_part(struct mo *m);\n' >"$split/app/mo_priv.h"
printf '#include "app/mo.h"\n#include "app/mo_priv.h"\nvoid mo(void) { struct mo m; mo_part(&m); }\n' >"$split/app/mo.c"
printf '#include "app/mo_priv.h"\nvoid mo_part(struct mo *m) { m->x = 0; }\n' >"$split/app/mo_part.c"
run "$split" --quiet
if [ "$rc" -eq 0 ] && [ -z "$out" ]; then ok "a module split into mo.c and mo_part.c around mo_priv.h is one module, no circle"
else not_ok "a module split into mo.c and mo_part.c around mo_priv.h is one module (exit $rc)" "$out"; fi

plant "'# include <efi.h>' outside boot/uefi" pmu/pmu.c "uefi" \
        '^layering: uefi: pmu/pmu.c:5: includes <efi.h> \(UEFI headers only in boot/uefi/\)$' <<'EOF'
  # include <efi.h>
EOF
plant "EFI_HANDLE in a pmu file" pmu/pmu.c "uefi" \
        '^layering: uefi: pmu/pmu.c:5: uses EFI_HANDLE \(UEFI names only in boot/uefi/\)$' <<'EOF'
static EFI_HANDLE pmu_image;
EOF
plant "UINTN in a pmu/x86 file" pmu/x86/drv_intel.c "uefi" \
        '^layering: uefi: pmu/x86/drv_intel.c:4: uses UINTN ' <<'EOF'
static UINTN drv_n;
EOF
plant "include of boot/uefi/uefi_priv.h from pmu/" pmu/pmu.c "uefi" \
        '^layering: uefi: pmu/pmu.c:5: includes "../boot/uefi/uefi_priv.h" \(boot/uefi/uefi_priv.h\) ' <<'EOF'
#include "../boot/uefi/uefi_priv.h"
EOF
plant "<stdio.h> in bench/" bench/kernel.c "hosted" \
        '^layering: hosted: bench/kernel.c:8: includes <stdio.h> \(freestanding bench/ may include only <stdint.h>' <<'EOF'
#include <stdio.h>
EOF
plant "rdmsr in inline asm in app/" app/phase.c "hardware" \
        '^layering: hardware: app/phase.c:10: rdmsr instruction \(hardware access only in boot/, pmu/' <<'EOF'
static void app_peek(void) { __asm__ volatile("mov $0x10, %%ecx\n\t"
                                              "rdmsr" ::: "eax", "ecx", "edx"); }
EOF
plant "rdmsr_safe( call in app/" app/phase.c "hardware" \
        '^layering: hardware: app/phase.c:9: calls rdmsr_safe\(\) ' <<'EOF'
unsigned long app_peek(void) { unsigned long v = 0; rdmsr_safe (0x10, &v); return v; }
EOF
plant "arm64 mrs of a PMU register in app/" app/phase.c "hardware" \
        '^layering: hardware: app/phase.c:9: mrs/msr of a PMU/ID system register instruction ' <<'EOF'
static unsigned long app_pmcr(void) { unsigned long v; asm volatile("mrs %0, PMCR_EL0" : "=r"(v)); return v; }
EOF
plant "cpuid in a .S file in app/" app/stub.S "hardware" \
        '^layering: hardware: app/stub.S:3: cpuid instruction ' <<'EOF'
/* a stub */
        .text
        cpuid
EOF
plant "rep_check( in pmu/" pmu/pmu.c "verdict" \
        '^layering: verdict: pmu/pmu.c:5: calls rep_check\(\) \(only app/ decides PASS/FAIL/SKIP' <<'EOF'
void pmu_self_check(void) { rep_check(pmu_has_counters(), "counters"); }
EOF
plant '"FAIL:" printed from bench/' bench/kernel.c "verdict" \
        '^layering: verdict: bench/kernel.c:8: prints "FAIL:" ' <<'EOF'
const char *bench_verdict = "FAIL: too slow";
EOF
plant "x86 code includes arm64 code" boot/x86/msr.c "arch" \
        '^layering: arch: boot/x86/msr.c:3: includes boot/arm64/sysreg.h \(arm64 code in x86 code\) ' <<'EOF'
#include "boot/arm64/sysreg.h"
EOF
plant "shared app/ code includes an x86 header" app/phase.c "arch" \
        '^layering: arch: app/phase.c:9: includes boot/x86/msr.h \(x86 code in shared code\) \(shared code reaches an architecture.s folder only through its layer.s interface header: bench/ownpt.h, boot/arch.h, host/arch.h, pmu/pmu.h\)$' <<'EOF'
#include "boot/x86/msr.h"
EOF
plant "a shared pmu/ file other than the interface header includes pmu/x86/" pmu/pmu.c "arch" \
        '^layering: arch: pmu/pmu.c:5: includes pmu/x86/regs.h \(x86 code in shared code\) ' <<'EOF'
#include "x86/regs.h"
EOF
plant "the interface header pmu/pmu.h includes another layer's x86 folder" pmu/pmu.h "arch" \
        '^layering: arch: pmu/pmu.h:5: includes boot/x86/msr.h \(x86 code in shared code\) ' <<'EOF'
#include "boot/x86/msr.h"
EOF
plant "a shared report/ header includes boot/arm64/ (report/ has no interface header)" report/rep.h "arch" \
        '^layering: arch: report/rep.h:4: includes boot/arm64/sysreg.h \(arm64 code in shared code\) ' <<'EOF'
#include "boot/arm64/sysreg.h"
EOF
plant "shared host/ code includes boot/x86/ itself, not through host/arch.h" host/main.c "arch" \
        '^layering: arch: host/main.c:6: includes boot/x86/msr.h \(x86 code in shared code\) ' <<'EOF'
#include "boot/x86/msr.h"
EOF
plant "the interface header host/arch.h includes another layer's x86 folder" host/arch.h "arch" \
        '^layering: arch: host/arch.h:3: includes boot/x86/msr.h \(x86 code in shared code\) ' <<'EOF'
#include "boot/x86/msr.h"
EOF

# --graph: folder edges with counts, upward ones marked.
run "$clean" --graph
if grep -qE '^  app +-> report +1$' <<<"$out" && grep -qE '^files: lib 2, boot 8, pmu 4' <<<"$out" &&
   ! grep -q UPWARD <<<"$out"; then ok "--graph prints folder edges and file counts"
else not_ok "--graph prints folder edges and file counts" "$out"; fi
d=$tmp/graph; cp -r "$clean" "$d"; echo '#include "report/rep.h"' >>"$d/pmu/pmu.h"
run "$d" --graph
if grep -qE '^  pmu +-> report +1  UPWARD$' <<<"$out"; then ok "--graph marks an upward edge"
else not_ok "--graph marks an upward edge" "$out"; fi

# The real tree, copied (tracked and untracked files, not ignored ones): it must pass, and a
# verdict call planted in it must be the one line reported.
real=$tmp/real
mkdir -p "$real"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$real" 2>/dev/null
python3 "$TOOL" --root "$real" --quiet >"$tmp/real.out" 2>"$tmp/real.err"; rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/real.out" ]; then
        ok "the real tree passes: no upward include, circle, UEFI name, hosted header, hardware access, verdict or architecture's file out of place"
else
        not_ok "the real tree passes (exit $rc)" "$(cat "$tmp/real.out" "$tmp/real.err")"
fi
echo 'void pmu_planted(void) { rep_fail("planted"); }' >>"$real/pmu/x86/pmu.c"
want="^layering: verdict: pmu/x86/pmu.c:$(wc -l <"$real/pmu/x86/pmu.c"): calls rep_fail\(\) "
python3 "$TOOL" --root "$real" --quiet >"$tmp/real2.out"; rc=$?
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/real2.out")" -eq 1 ] && grep -qE "$want" "$tmp/real2.out"; then
        ok "a verdict call planted in the real tree's pmu/x86/pmu.c is the one line reported"
else
        not_ok "a verdict call planted in the real tree's pmu/x86/pmu.c is the one line reported (exit $rc)" \
                "$(cat "$tmp/real2.out")"
fi

echo '#include "boot/x86/cpuid.h"' >>"$real/app/latency.c"
want="^layering: arch: app/latency.c:$(wc -l <"$real/app/latency.c"): includes boot/x86/cpuid.h \(x86 code in shared code\) "
python3 "$TOOL" --root "$real" --quiet >"$tmp/real3.out"; rc=$?
if [ "$rc" -eq 1 ] && grep -qE "$want" "$tmp/real3.out" && [ "$(grep -c ': arch: ' "$tmp/real3.out")" -eq 1 ]; then
        ok "an x86 header included by the real tree's shared app/latency.c is reported as arch"
else
        not_ok "an x86 header included by the real tree's shared app/latency.c is reported as arch (exit $rc)" \
                "$(cat "$tmp/real3.out")"
fi

echo '#include "boot/x86/cpuid.h"' >>"$real/host/pmucal_table_match.c"
want="^layering: arch: host/pmucal_table_match.c:$(wc -l <"$real/host/pmucal_table_match.c"): includes boot/x86/cpuid.h \(x86 code in shared code\) "
python3 "$TOOL" --root "$real" --quiet >"$tmp/real4.out"; rc=$?
if [ "$rc" -eq 1 ] && grep -qE "$want" "$tmp/real4.out" && [ "$(grep -c ': arch: ' "$tmp/real4.out")" -eq 2 ]; then
        ok "an x86 header included by the real tree's shared host/pmucal_table_match.c is reported as arch"
else
        not_ok "an x86 header included by the real tree's shared host/pmucal_table_match.c is reported as arch (exit $rc)" \
                "$(cat "$tmp/real4.out")"
fi

echo "1..$n"
[ "$failed" -eq 0 ]
