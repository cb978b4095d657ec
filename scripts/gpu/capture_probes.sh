#!/bin/bash
# Capture real compute-sanitizer / ncu outputs of the probes in scripts/gpu/probes
# (they become tests/data/gpu/), then smoke-test confirm_fixtures.py on the probes.
# Run on the device machine from the repository root:
#   bash scripts/gpu/capture_probes.sh            all captures (writes under $OUT)
#   PHASE=1 / PHASE=2 bash scripts/gpu/capture_probes.sh   the first / second batch only
# (tests/data/gpu/ holds phase 1 from the first device call, phase 2 from the second)
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/capture-out}
C=$OUT/cap; B=/tmp/probebin; P=scripts/gpu/probes
mkdir -p "$C" "$B"
T="timeout -k 5 45"
{ which nvcc compute-sanitizer ncu; nvidia-smi -L; python3 -c 'import cupy; print(cupy.__version__)'
  nvcc --version | tail -2; compute-sanitizer --version | tail -1; ncu --version | tail -1; uname -r; python3 --version; } > "$C/env.txt" 2>&1
cat "$C/env.txt"
cs() { local out=$1; shift; echo "== $out"; local t0=$(date +%s%N)
  $T compute-sanitizer "$@" > "$C/$out" 2>&1; local rc=$?
  echo "$out rc=$rc ms=$(( ($(date +%s%N) - t0) / 1000000 ))" >> "$C/rc.txt"; }
PHASE=${PHASE:-all}
if [ "$PHASE" != 2 ]; then
for f in races/race_probe races/global_race barriers/divergent_block barriers/divergent_warp \
         misaligned/vec4_probe host/leak_probe bank/bank_probe; do
  n=$(basename $f)
  nvcc -arch=sm_90 -lineinfo -O2 -o $B/$n $P/$f.cu >> "$C/build.txt" 2>&1 || echo "BUILD FAILED $f" | tee -a "$C/build.txt"
done
nvcc -arch=sm_90 -O2 -o $B/race_probe_nolineinfo $P/races/race_probe.cu >> "$C/build.txt" 2>&1
cs racecheck_race_probe.txt --tool racecheck $B/race_probe
cs racecheck_hazard_race_probe.txt --tool racecheck --racecheck-report hazard --print-limit 40 $B/race_probe
cs racecheck_nolineinfo_race_probe.txt --tool racecheck $B/race_probe_nolineinfo
cs synccheck_race_probe.txt --tool synccheck $B/race_probe
cs synccheck_divergent_block.txt --tool synccheck $B/divergent_block
cs synccheck_divergent_warp.txt --tool synccheck $B/divergent_warp
cs racecheck_divergent_block.txt --tool racecheck $B/divergent_block
cs memcheck_vec4_probe.txt --tool memcheck $B/vec4_probe
cs leakcheck_leak_probe.txt --leak-check full --tool memcheck $B/leak_probe
cs leakcheck_leak_probe_reset.txt --leak-check full --tool memcheck $B/leak_probe reset
for n in vec4_probe leak_probe divergent_block divergent_warp race_probe; do timeout -k 5 20 $B/$n > "$C/plain_$n.txt" 2>&1; echo "rc=$?" >> "$C/plain_$n.txt"; done
for i in 1 2 3; do timeout -k 5 20 $B/global_race > "$C/plain_global_race_$i.txt" 2>&1; done
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
W=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
echo "== ncu"
timeout -k 5 180 ncu --clock-control none --csv --metrics $M $B/bank_probe > "$C/ncu_csv_bank_probe.txt" 2>&1
timeout -k 5 180 ncu --clock-control none --csv --metrics $W $B/bank_probe > "$C/ncu_csv_wavefronts_bank_probe.txt" 2>&1
timeout -k 5 180 ncu --clock-control none --metrics $M $B/bank_probe > "$C/ncu_text_bank_probe.txt" 2>&1
head -c 3000 "$C/racecheck_race_probe.txt"; head -c 1500 "$C/ncu_csv_bank_probe.txt"
fi
if [ "$PHASE" != 1 ]; then
for f in barriers/warp_exit barriers/warp_mask races/last_writer misaligned/shared_float2 host/leak_noinline; do
  nvcc -arch=sm_90 -lineinfo -O2 -o $B/$(basename $f) $P/$f.cu >> "$C/build.txt" 2>&1 || echo "BUILD FAILED $f" | tee -a "$C/build.txt"
done
cs synccheck_warp_exit.txt --tool synccheck $B/warp_exit
cs synccheck_warp_mask.txt --tool synccheck $B/warp_mask
cs racecheck_last_writer.txt --tool racecheck $B/last_writer
cs memcheck_shared_float2.txt --tool memcheck $B/shared_float2
cs leakcheck_leak_noinline.txt --leak-check full --tool memcheck $B/leak_noinline
for n in warp_exit warp_mask shared_float2; do timeout -k 5 20 $B/$n > "$C/plain_$n.txt" 2>&1; echo "rc=$?" >> "$C/plain_$n.txt"; done
for i in 1 2 3; do timeout -k 5 20 $B/last_writer > "$C/plain_last_writer_$i.txt" 2>&1; done
head -c 4000 "$C/synccheck_warp_exit.txt" "$C/synccheck_warp_mask.txt" "$C/memcheck_shared_float2.txt" "$C/leakcheck_leak_noinline.txt" "$C"/plain_last_writer_*
fi
tar czf "$OUT/captures.tar.gz" -C "$OUT" cap && rm -rf "$C"
echo "== smoke test of confirm_fixtures.py"
PYTHONUNBUFFERED=1 timeout -k 5 300 python3 scripts/gpu/confirm_fixtures.py --fixtures $P --out "$OUT/smoke"
cat "$OUT/smoke/results.md"
if [ -n "$FIXTURES_TOO" ]; then
  echo "== confirm_fixtures.py on fixtures/ (work in progress by others)"
  PYTHONUNBUFFERED=1 timeout -k 5 ${FIXTURES_TIMEOUT:-150} python3 scripts/gpu/confirm_fixtures.py --fixtures fixtures --out "$OUT/fixtures" --work /tmp/cf-fixtures
  cat "$OUT/fixtures/results.md"
fi
