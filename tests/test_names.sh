#!/bin/bash
# Tests for tools/check_names.py: compiles a small tree of objects whose every exported symbol
# carries its layer's prefix and checks that it passes, then plants one misnamed symbol in a
# fresh copy and checks that the tool names it (file and symbol) and nothing else. Finally the
# real build's objects (build/efi, build/aarch64/obj, build/host/obj, where built) must pass.
# Prints one TAP line per case. Run from the repository root.
set -u
TOOL=$PWD/tools/check_names.py
CC=${HOST_CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_names.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2"; }

# obj TREE PATH SYMBOL...: TREE/src/PATH.c defines each SYMBOL as a function, plus a static
# one, compiled into TREE/obj/PATH.o.
obj() {
        local tree=$1 path=$2 s src; shift 2
        mkdir -p "$(dirname "$tree/src/$path")" "$(dirname "$tree/obj/$path")"
        src="static int helper(void) { return 1; }"
        for s in "$@"; do src="$src int $s(void) { return helper(); }"; done
        echo "$src" >"$tree/src/$path.c"
        $CC -fno-builtin -w -c -o "$tree/obj/$path.o" "$tree/src/$path.c" || echo "cannot compile $path"
}

clean=$tmp/clean
obj "$clean" lib/stats lib_sort_u64
obj "$clean" boot/uefi/uefi_libc memcmp strlen
obj "$clean" boot/uefi/uefi_file plat_file_write uefi_file_open
obj "$clean" boot/x86/prefetch prefetch_disable
obj "$clean" boot/arm64/smp smp_init smp_cpu_start
obj "$clean" pmu/x86/pmu pmu_init pmu_read
obj "$clean" build/events_gen pmu_events
obj "$clean" bench/tlb bench_tlb_plan bench_tlb_side_name
obj "$clean" analysis/levels lv_detect lv_log2_q8
obj "$clean" report/lattable rep_lat_csv rep_lat_clock_name
obj "$clean" app/latency phase_latency lat_dram_page
obj "$clean" app/x86/sampling_lbr samp_lbr_run
obj "$clean" app/x86/sampling phase_sampling samp_plan
obj "$clean" app/arm64/validate val_arm64_suite
obj "$clean" host/libpmucal pmucal_table_load pmucal__parse_doc
obj "$clean" host/pmucal_table main cli_usage

# run ARGS...: sets out (stdout and stderr) and rc.
run() { out=$(python3 "$TOOL" "$@" 2>&1); rc=$?; }
# tree DIR: the tool on DIR's objects and sources.
tree() { run --root "$1/src" "$1/obj"; }

tree "$clean"
if [ "$rc" -eq 0 ] && grep -q '^names: ok (' <<<"$out"; then ok "the clean object tree passes"
else not_ok "the clean object tree passes (exit $rc)" "$out"; fi

# plant NAME PATH SYMBOL WANT_RE: a copy of the clean tree where PATH.o also defines SYMBOL;
# expect exit 1 and exactly one violation line, matching WANT_RE.
case_n=0
plant() {
        local name=$1 path=$2 sym=$3 want_re=$4 d
        case_n=$((case_n + 1)); d=$tmp/case$case_n
        cp -r "$clean" "$d"
        obj "$d" "${path}_planted" "$sym"
        tree "$d"
        if [ "$rc" -eq 1 ] && [ "$(grep -vc '^names: [0-9]* violations' <<<"$out")" -eq 1 ] &&
           grep -qE -- "$want_re" <<<"$out"; then
                ok "$name"
        else
                not_ok "$name (exit $rc, want one line /$want_re/)" "$out"
        fi
}

plant "app/ exports a pmu_ name" app/numa pmu_numa_place \
        '^names: app/numa_planted: pmu_numa_place: pmu_ is pmu/\*, build/events_gen, build/syms_gen.s \(the PMU\), not app/numa_planted.s$'
plant "smp_ outside SMP bring-up (sampling code in app/)" app/x86/sampling_ibs smp_ibs_walk \
        '^names: app/x86/sampling_ibs_planted: smp_ibs_walk: smp_ is boot/arm64/smp\*.s \(SMP bring-up'
plant "sampling code exports a name other than samp_ (app_, app/'s own)" app/x86/sampling_pebs app_pebs_hist \
        '^names: app/x86/sampling_pebs_planted: app_pebs_hist: sampling code is named samp_ \(samp_, phase_sampling\)$'
plant "SMP bring-up exports a name other than smp_" boot/arm64/smp cpu_smp_count \
        '^names: boot/arm64/smp_planted: cpu_smp_count: SMP bring-up exports smp_ only '
plant "analysis/ exports the report's rep_" analysis/levels rep_levels_detect \
        '^names: analysis/levels_planted: rep_levels_detect: rep_ is report/\*.s '
plant "bench/ exports a tlb_ name (the TLB writers')" bench/tlb tlb_side_name \
        '^names: bench/tlb_planted: tlb_side_name: tlb_ is report/tlbdetect_out.s '
plant "boot/ exports a bench_ name" boot/x86/prefetch bench_prefetch_disable \
        '^names: boot/x86/prefetch_planted: bench_prefetch_disable: bench_ is bench/\*.s '
plant "a name with no layer's prefix" report/json write_escaped \
        '^names: report/json_planted: write_escaped: no layer.s prefix '
plant "a C library name outside boot/uefi/uefi_libc" lib/stats memcmp \
        '^names: lib/stats_planted: memcmp: no layer.s prefix '

d=$tmp/stale; cp -r "$clean" "$d"
obj "$d" app/moved pmu_moved_away
rm "$d/src/app/moved.c"
tree "$d"
if [ "$rc" -eq 0 ]; then ok "the object of a source no longer in the tree (moved since the build) is left out"
else not_ok "the object of a source no longer in the tree is left out (exit $rc)" "$out"; fi
obj "$d" app/moved pmu_moved_away
tree "$d"
if [ "$rc" -eq 1 ] && grep -q '^names: app/moved: pmu_moved_away: ' <<<"$out"; then ok "... and counts while its source is there"
else not_ok "... and counts while its source is there (exit $rc)" "$out"; fi

run "$tmp/nowhere"
if [ "$rc" -eq 2 ] && grep -q 'no such object folder' <<<"$out"; then ok "a missing object folder is a usage error (exit 2), not a pass"
else not_ok "a missing object folder is a usage error (exit $rc)" "$out"; fi
mkdir -p "$tmp/empty"
run --root "$tmp/empty" "$tmp/empty"
if [ "$rc" -eq 2 ] && grep -q 'no object files' <<<"$out"; then ok "a folder without objects is a usage error (exit 2), not a pass"
else not_ok "a folder without objects is a usage error (exit $rc)" "$out"; fi

# The real build: every object folder that is built must pass.
dirs=()
for d in build/efi build/aarch64/obj build/host/obj; do [ -d "$d" ] && dirs+=("$d"); done
if [ "${#dirs[@]}" -eq 0 ]; then
        ok "the real build's objects pass # SKIP nothing built (make all host)"
else
        run "${dirs[@]}"
        if [ "$rc" -eq 0 ]; then ok "the real build's objects pass (${dirs[*]}): $(tail -1 <<<"$out")"
        else not_ok "the real build's objects pass (${dirs[*]}, exit $rc)" "$out"; fi
fi

echo "1..$n"
[ "$failed" -eq 0 ]
