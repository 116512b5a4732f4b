#!/usr/bin/env bash
# Draws the default/ctrsa ratios of a bench_suite CSV (--csv) as a PNG: one group of bars
# per operation (the "RSA operations through EVP" section, and the 100 signs / 100 verifies
# and key generation rows), one bar per key size, a line at 1 (above: ctrsa is faster).
# Needs gnuplot (Debian: gnuplot-nox); bench/run --plot installs it when missing.
#
#   bench/plot_ratios.sh CSV PNG [TITLE]
set -euo pipefail
csv=$1
png=$2
title=${3:-"default provider time / ctrsa time (above 1: ctrsa is faster)"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# operation, then the ratio per size (NaN where a size was not measured)
python3 - "$csv" > "$tmp/ratios.dat" <<'PY'
import csv, sys
rows = {}
sizes = set()
order = []
for r in csv.DictReader(open(sys.argv[1])):
    if r["provider"] != "ratio" or r["section"] not in ("ops", "classic"):
        continue
    op = r["operation"]
    if r["section"] == "classic":
        op = {"100 signs": "sign x100", "100 verifies": "verify x100",
              "keygen": "keygen"}.get(op, op)
    bits = int(r["bits"])
    if op not in rows:
        rows[op] = {}
        order.append(op)
    rows[op][bits] = float(r["median"])
    sizes.add(bits)
sizes = sorted(sizes)
if not order:
    sys.exit("plot_ratios: no ratio rows in the CSV")
print("op " + " ".join("%d-bit" % b for b in sizes))
for op in order:
    print('"%s" ' % op + " ".join(("%.4f" % rows[op][b]) if b in rows[op] else "NaN"
                                  for b in sizes))
PY
ncols=$(head -1 "$tmp/ratios.dat" | wc -w)

gnuplot <<GP
set terminal pngcairo size 1400,600 font "sans,10" noenhanced
set output "$png"
set title "$title"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left
set grid ytics
set yrange [0:*]
set ylabel "default / ctrsa"
set xtics rotate by -35 scale 0
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb "black"
plot for [c=2:$ncols] "$tmp/ratios.dat" using c:xtic(1) title columnheader(c)
GP
echo "plot_ratios: wrote $png" >&2
