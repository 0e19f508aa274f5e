#!/bin/sh
# The tree's figures at house scale, to compare two commits: lines and files of product code
# per folder, the folder include graph and its layering verdict, the largest files and the
# largest functions.
#
#     tools/house-figures.sh [--root DIR] [--most N]
#
# Product code is what builds pmucal.efi, pmucal-host, libpmucal, pmucal-table and the Python
# reader: C, assembly and Python under lib/ boot/ pmu/ bench/ analysis/ report/ app/ host/
# python/, without python/tests/. Tests, tools/ and data (events JSON, schemas, dumps) are not
# counted.
# Lines are the file's lines; "code" leaves out blank lines and lines that are only a comment.
# Function lengths come from Universal Ctags (definition line to closing line).
set -eu

root=.
most=12
while [ $# -gt 0 ]; do
	case $1 in
	--root) root=$2; shift 2 ;;
	--most) most=$2; shift 2 ;;
	-h|--help) sed -n '2,11p' "$0"; exit 0 ;;
	*) echo "usage: $0 [--root DIR] [--most N]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
cd "$root"

FOLDERS="lib boot pmu bench analysis report app host python"
list_product() {
	git ls-files -- $FOLDERS | grep -E '\.(c|h|S|inc|py)$' | grep -v '^python/tests/' || true
}

# code lines: blank lines and lines inside /* */ or after a leading // or # are left out
count_code() {
	awk '
	FNR == 1 { inc = 0; py = (FILENAME ~ /\.py$/) }
	{
		s = $0; sub(/^[ \t]+/, "", s)
		if (py) { if (s != "" && s !~ /^#/) n++; next }
		if (inc) { if (s ~ /\*\//) { inc = 0; t = s; sub(/.*\*\//, "", t); if (t ~ /[^ \t]/) n++ } next }
		if (s == "" || s ~ /^\/\//) next
		if (s ~ /^\/\*/) { if (s !~ /\*\//) inc = 1; else { t = s; sub(/.*\*\//, "", t); if (t ~ /[^ \t]/) n++ } next }
		n++
	}
	END { print n + 0 }' "$@"
}

files=$(list_product)
echo "== commit: $(git rev-parse --short HEAD) ($(git log -1 --format=%cd --date=iso-strict))"
echo
echo "== product code per folder (files, lines, code lines)"
total_f=0 total_l=0 total_c=0
for d in $FOLDERS; do
	fs=$(printf '%s\n' $files | grep "^$d/" || true)
	[ -n "$fs" ] || continue
	nf=$(printf '%s\n' $fs | wc -l)
	nl=$(cat $fs | wc -l)
	nc=$(count_code $fs)
	printf '  %-8s %4d files %7d lines %7d code\n' "$d" "$nf" "$nl" "$nc"
	total_f=$((total_f + nf)) total_l=$((total_l + nl)) total_c=$((total_c + nc))
	# one level of subfolders
	for sub in $(printf '%s\n' $fs | awk -F/ 'NF > 2 { print $1 "/" $2 }' | sort -u); do
		ss=$(printf '%s\n' $fs | grep "^$sub/")
		printf '    %-14s %4d files %7d lines\n' "$sub/" "$(printf '%s\n' $ss | wc -l)" \
			"$(cat $ss | wc -l)"
	done
done
printf '  %-8s %4d files %7d lines %7d code\n' total "$total_f" "$total_l" "$total_c"
echo
echo "== build files"
for f in Makefile $(git ls-files -- ':(glob)mk/*.mk' ':(glob)tests/*.cfg' 2>/dev/null); do
	[ -f "$f" ] && printf '  %-24s %5d lines\n' "$f" "$(wc -l < "$f")"
done
echo
echo "== folder include graph (tools/check_layering.py --graph)"
python3 "$here/check_layering.py" --root . --graph 2>&1 | sed 's/^/  /' || true
echo
echo "== largest files (lines)"
for f in $files; do printf '%7d %s\n' "$(wc -l < "$f")" "$f"; done | sort -rn | head -n "$most"
echo
echo "== largest functions (lines, C)"
c_files=$(printf '%s\n' $files | grep -E '\.c$')
ctags --languages=C --kinds-C=f --fields=+ne -o - $c_files 2>/dev/null |
	awk -F'\t' '{ l = e = 0
		for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) l = substr($i, 6); if ($i ~ /^end:/) e = substr($i, 5) }
		if (e) print e - l + 1, $2 ":" l, $1 }' |
	sort -rn > "${TMPDIR:-/tmp}/house-figures.$$"
n_fn=$(wc -l < "${TMPDIR:-/tmp}/house-figures.$$")
awk -v n="$n_fn" '{ s += $1; if ($1 > 100) big++ }
	END { printf "  %d functions, %.1f lines on average, %d over 100 lines\n", n, s / (n ? n : 1), big }' \
	"${TMPDIR:-/tmp}/house-figures.$$"
head -n "$most" "${TMPDIR:-/tmp}/house-figures.$$" | awk '{ printf "%7d %s %s\n", $1, $2, $3 }'
rm -f "${TMPDIR:-/tmp}/house-figures.$$"
