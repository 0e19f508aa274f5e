# gnuplot script for `make plot` (tools/plot.sh): the latency curve of one pmucal run with its
# levels, capacities and bucket bounds. Variables set by the caller: csv, out, marks (a file of
# gnuplot commands generated from latency-table.json: arrows and labels), title_text.
set terminal pngcairo size 1100,700 font "sans,10"
set output out
set datafile separator ","
set key top left
set title title_text noenhanced
set xlabel "working set (bytes, log scale)"
set ylabel "latency per load (TSC ticks, log scale)"
set logscale x 2
set logscale y 10
set grid xtics ytics mxtics lc rgb "#dddddd"

# x tics (powers of 4, "4K" .. "1G") come with the marks file
load marks
plot csv skip 1 using 1:($6/1000):($5/1000):($7/1000) with yerrorbars lc rgb "#9999cc" pt 0 title "p10..p90", \
     csv skip 1 using 1:($6/1000) with linespoints lc rgb "#000088" pt 7 ps 0.5 lw 1.5 title "p50"
