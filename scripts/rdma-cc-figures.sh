#!/usr/bin/env bash
# The time-series figures of docs/rdma-cc.md (one seed each, with 1 us jitter): the bottleneck
# queue of a 16:1 incast under each controller (configs/rdma-incast.yaml), and the rates of the
# three flows of the fairness study (configs/rdma-fairness.yaml) under DCQCN and TIMELY. Each
# timeseries.csv is turned into a summary.csv (one "point" per sample time and run, a CI of zero
# width) so that `incastsim plot` draws it like a sweep's curve.
# Usage: scripts/rdma-cc-figures.sh [path/to/incastsim] (from the repository root).
set -euo pipefail
bin=${1:-target/release/incastsim}
out=${OUT:-out/rdma-cc-figures}
fig=docs/rdma-cc
mkdir -p "$out" "$fig"

# summary.csv from timeseries.csv files: to_summary <metric> <object-filter> <time from> <to> <out dir> <label=dir>...
to_summary() {
  python3 - "$@" <<'PY'
import csv, sys
metric, obj, t0, t1, dst = sys.argv[1:6]
t0, t1 = float(t0), float(t1)
rows = []
for arg in sys.argv[6:]:
    label, d = arg.split('=', 1)
    for r in csv.DictReader(open(d + '/timeseries.csv')):
        t = float(r['time_s'])
        if r['metric'] != metric or not r['object'].startswith(obj) or not t0 <= t <= t1:
            continue
        series = label if obj.startswith('port') else f"{label} {r['object']}"
        rows.append((round(t * 1e6, 3), series, float(r['value'])))
with open(dst + '/summary.csv', 'w', newline='') as f:
    w = csv.writer(f)
    w.writerow(['point', 'time_us', 'run', 'metric', 'mean', 'ci95_low', 'ci95_high'])
    for i, (t, s, v) in enumerate(rows):
        w.writerow([i, t, s, metric, v, v, v])
PY
}

# 16:1 incast, the switch's port to the client, sampled every 5 us.
args=()
for cc in none dcqcn hpcc timely; do
  case $cc in
    none) set_cc=(--set 'topology.switch_queue={kind: drop_tail}') ;;   # DCQCN never marked: line rate
    dcqcn) set_cc=() ;;
    hpcc) set_cc=(--set 'tcp.transport.congestion_control={kind: hpcc}') ;;
    timely) set_cc=(--set 'tcp.transport.congestion_control={kind: timely, preset: hpcc_fork}') ;;
  esac
  timeout 600 "$bin" run configs/rdma-incast.yaml "${set_cc[@]}" --out "$out/incast-$cc" > /dev/null
  args+=("$cc=$out/incast-$cc")
done
mkdir -p "$out/incast-queue"
to_summary queue_bytes "port switch0->host16" 0 0.008 "$out/incast-queue" "${args[@]}"
timeout 600 "$bin" plot "$out/incast-queue" --x time_us --y queue_bytes --series run \
  --name rdma-incast-queue --out "$fig" > /dev/null

# Fairness: the three flows' rates, sampled every 20 us, 100 ms.
args=()
for cc in dcqcn timely; do
  timeout 600 "$bin" run configs/rdma-fairness.yaml \
    --set "tcp.transport.congestion_control={kind: $cc, preset: paper}" \
    --set 'time_series={interval: 20us, flows: [0, 1, 2]}' --out "$out/fair-$cc" > /dev/null
  args+=("$cc=$out/fair-$cc")
done
mkdir -p "$out/fair-rate"
to_summary rate_gbps "flow" 0 0.1 "$out/fair-rate" "${args[@]}"
timeout 600 "$bin" plot "$out/fair-rate" --x time_us --y rate_gbps --series run \
  --name rdma-fairness-rates --out "$fig" > /dev/null
rm -f "$fig"/*.svg   # tens of MB for ~10^4 points: the PNGs are the figures
ls "$fig"
