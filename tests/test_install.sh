#!/bin/bash
# make install PREFIX=DIR, then the example consumer docs/libpmucal-example.c built against the
# installed files only (`pkg-config --cflags --libs pmucal` with PKG_CONFIG_PATH into DIR),
# dynamically and statically, and run on a table from the test corpus with no LD_LIBRARY_PATH
# (pmucal.pc's rpath finds the library); the shared library exports only the API; the installed
# pmucal-table runs with the installed libpmucal.so.1 (RUNPATH $ORIGIN/../lib), from
# DESTDIR=... PREFIX=... and from a prefix moved elsewhere, with an empty LD_LIBRARY_PATH. TAP
# output; run from the repository root (make test: shell stage).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
. "$(dirname "$0")/tap.sh"
table=tests/corpus/table/zen4-kvm.json

out=$(make -s --no-print-directory install PREFIX="$prefix" 2>&1); rc=$?
t $rc "make install PREFIX=..." "$out"
for f in include/pmucal/pmucal.h include/pmucal/table.h include/pmucal/tlb.h lib/libpmucal.a \
         lib/libpmucal.so lib/pkgconfig/pmucal.pc bin/pmucal-table; do
        [ -e "$prefix/$f" ] || missing="${missing:-} $f"
done
t "$([ -z "${missing:-}" ]; echo $?)" "installed: headers, static and shared library, pmucal.pc, pmucal-table${missing:+ (missing:$missing)}"
ver=$(awk '/define PMUCAL_VERSION_(MAJOR|MINOR|PATCH) / { v = v s $3; s = "." } END { print v }' \
      host/include/pmucal/pmucal.h)
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
t "$([ "$(pkg-config --modversion pmucal 2>&1)" = "$ver" ]; echo $?)" "pkg-config --modversion pmucal is $ver"

# Dynamic: only the installed header directory and library, nothing of the source tree.
cp docs/libpmucal-example.c "$tmp/example.c"
out=$(cd "$tmp" && cc -std=c11 -Wall -Werror example.c $(pkg-config --cflags --libs pmucal) -o example-dyn 2>&1); rc=$?
t $rc "the example builds with pkg-config --cflags --libs pmucal" "$out"
out=$(env -u LD_LIBRARY_PATH ldd "$tmp/example-dyn" 2>&1)
t "$(grep -q "libpmucal.so.${ver%%.*} => $prefix/lib/" <<<"$out"; echo $?)" \
  "it runs against the installed libpmucal.so.${ver%%.*}, with no LD_LIBRARY_PATH" "$out"
out=$(env -u LD_LIBRARY_PATH "$tmp/example-dyn" "$table" tsc 2.8 15 37 1000 -1 2>&1); rc=$?
t "$([ $rc -eq 0 ] && grep -q "^15 tsc: L2$" <<<"$out" && grep -q "^1000 tsc: DRAM$" <<<"$out" &&
     grep -q "^-1 tsc: not a latency$" <<<"$out" && grep -q "1 of 5 samples were not latencies" <<<"$out";
     echo $?)" "the example classifies TSC latencies" "$out"
out=$(env -u LD_LIBRARY_PATH "$tmp/example-dyn" "$table" core 60 2>&1); rc=$?
t "$([ $rc -eq 1 ] && grep -q "core latencies: this table has no clock ratio" <<<"$out"; echo $?)" \
  "core cycles on a TSC table: the no-ratio status" "$out"

# The profiler example: data sources from a PEBS data_src and IBS registers, into the numa
# buckets, in core cycles (numa-c2c.json: core 3 GHz, so 450 cycles = 150 ns, remote 1hop).
cp docs/libpmucal-profiler-example.c "$tmp/profiler.c"
out=$(cd "$tmp" && cc -std=c11 -Wall -Werror profiler.c $(pkg-config --cflags --libs pmucal) -lm -o profiler 2>&1); rc=$?
t $rc "the profiler example builds" "$out"
numa=tests/corpus/table/numa-c2c.json
out=$(env -u LD_LIBRARY_PATH "$tmp/profiler" "$numa" perf 2000002042 450 2>&1); rc=$?
t "$([ $rc -eq 0 ] && grep -q "^source dram-remote: DRAM-remote-1hop fits" <<<"$out"; echo $?)" \
  "the profiler example sorts a PEBS remote-DRAM sample" "$out"
out=$(env -u LD_LIBRARY_PATH "$tmp/profiler" "$numa" ibs 13 1c200100081 2>&1); rc=$?
t "$([ $rc -eq 0 ] && grep -q "^latency 450 core cycles: DRAM-remote-1hop" <<<"$out"; echo $?)" \
  "the profiler example sorts an IBS op by its DcMissLat" "$out"
out=$(env -u LD_LIBRARY_PATH "$tmp/profiler" "$table" --core-ghz 2.596178 perf 200000142 5 2>&1); rc=$?
t "$([ $rc -eq 0 ] && grep -q "^source L1: L1 fits" <<<"$out" && grep -q "ratio 1.000 (override)" <<<"$out"; echo $?)" \
  "core cycles on a TSC table with --core-ghz" "$out"

# Static: the archive and its private dependencies from pkg-config --static.
out=$(cd "$tmp" && cc -std=c11 example.c $(pkg-config --cflags pmucal) "$prefix/lib/libpmucal.a" \
      $(pkg-config --static --libs-only-l pmucal | sed 's/-lpmucal//') -o example-static 2>&1); rc=$?
t $rc "the example links the static library" "$out"
out=$("$tmp/example-static" "$table" table 5.306 5.307 2>&1); rc=$?
t "$([ $rc -eq 0 ] && grep -q "^5.306 table: L1$" <<<"$out" && grep -q "^5.307 table: L2$" <<<"$out"; echo $?)" \
  "the static example classifies (bounds inclusive)" "$out"

other=$(nm -D --defined-only "$prefix/lib/libpmucal.so" | awk '{ print $3 }' | grep -v '^pmucal_')
t "$([ -z "$other" ]; echo $?)" "libpmucal.so exports pmucal_* only" "$other"
out=$(env LD_LIBRARY_PATH= "$prefix/bin/pmucal-table" classify "$table" 15 2>&1)
t "$([ "$out" = "15 L2" ]; echo $?)" "the installed pmucal-table runs" "$out"
out=$(env LD_LIBRARY_PATH= ldd "$prefix/bin/pmucal-table" 2>&1)
t "$(grep -q "libpmucal.so.${ver%%.*} => $prefix/bin/../lib/libpmucal.so.${ver%%.*}" <<<"$out"; echo $?)" \
  "the installed pmucal-table uses the installed libpmucal.so.${ver%%.*} (RUNPATH \$ORIGIN/../lib)" "$out"

# A staged install (DESTDIR, as a package build does) runs from where it was staged, and a
# prefix moved elsewhere still finds its library: the RUNPATH is relative to the binary.
dest=$tmp/dest
out=$(make -s --no-print-directory install DESTDIR="$dest" PREFIX=/opt/pmucal 2>&1); rc=$?
t $rc "make install DESTDIR=... PREFIX=/opt/pmucal" "$out"
out=$(cd / && env LD_LIBRARY_PATH= "$dest/opt/pmucal/bin/pmucal-table" classify "$OLDPWD/$table" 1000 2>&1)
t "$([ "$out" = "1000 DRAM" ]; echo $?)" "the staged pmucal-table runs with an empty LD_LIBRARY_PATH" "$out"
mv "$dest/opt/pmucal" "$tmp/moved"
out=$(env LD_LIBRARY_PATH= "$tmp/moved/bin/pmucal-table" classify "$table" 15 2>&1)
lib=$(env LD_LIBRARY_PATH= ldd "$tmp/moved/bin/pmucal-table" 2>&1 | grep libpmucal)
t "$([ "$out" = "15 L2" ] && grep -q "=> $tmp/moved/bin/../lib/" <<<"$lib"; echo $?)" \
  "a moved prefix's pmucal-table finds the library beside it" "$out $lib"

echo "1..$n"
[ "$failed" -eq 0 ]
