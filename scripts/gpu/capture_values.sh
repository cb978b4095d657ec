#!/bin/bash
# racecheck's hazard mode (per-byte reports with the current and incoming value) on stores that
# agree and stores that do not (scripts/gpu/probes/races/same_value.cu); outputs under $OUT.
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/capture-out}; B=/tmp/probebin; mkdir -p "$OUT" "$B"
nvcc -arch=sm_90 -G -o $B/same_value scripts/gpu/probes/races/same_value.cu || exit 1
compute-sanitizer --help 2>&1 | grep -i -A3 "print-limit\|racecheck-report\|racecheck-" > "$OUT/cs_help.txt"
for k in agree differ; do
  timeout 120 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 0 $B/same_value $k \
    > "$OUT/racecheck_hazard_same_value_$k.txt" 2>&1
  timeout 120 compute-sanitizer --tool racecheck --print-limit 0 $B/same_value $k \
    > "$OUT/racecheck_analysis_same_value_$k.txt" 2>&1
done
timeout 120 compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 5 $B/same_value agree \
  > "$OUT/racecheck_hazard_same_value_limit5.txt" 2>&1
wc -l "$OUT"/*.txt; tail -3 "$OUT"/*.txt
