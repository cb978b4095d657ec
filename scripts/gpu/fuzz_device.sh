#!/usr/bin/env bash
# The fuzz and the all-corpora sweep of issue 14 on the device machine's 16 cores (no GPU needed),
# from the repository root:
#   carry: .whl (site312.tar.xz, as for run_runner_tests.sh) and .evalcorp (fuzz.py and
#   corpora.tar.xz copied from ../shared/eval/)
#   FUZZ_SEED=31 bash scripts/gpu/fuzz_device.sh fuzz      # 3000 mutants, results under $OUT
#   bash scripts/gpu/fuzz_device.sh corpora                # every corpus file: internal errors, and
#                                                          # $OUT/results.tar.xz for eval_external.py score
set -u
OUT=${OUT:-fuzz-out}; mkdir -p "$OUT"
mkdir -p /tmp/site /tmp/corp /tmp/bin
[ -e /tmp/site/z3 ] || tar -xJf .whl/site312.tar.xz -C /tmp/site || exit 1
[ -e /tmp/corp/corpora ] || tar -xJf .evalcorp/corpora.tar.xz -C /tmp/corp || exit 1
[ -e cudalint/rules ] || ln -s ../rules cudalint/rules
printf '#!/bin/sh\nexec python3 -m cudalint "$@"\n' > /tmp/bin/cudalint && chmod +x /tmp/bin/cudalint
export PATH=/tmp/bin:$PATH PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
LINT='cudalint --output-format json --exit-zero --no-cache -j 1 --file-budget 5'
case "${1:-fuzz}" in
fuzz)
  python3 .evalcorp/fuzz.py --seeds /tmp/corp/corpora fixtures -n "${FUZZ_N:-3000}" --jobs 16 \
    --seed "${FUZZ_SEED:-31}" --deadline "${FUZZ_DEADLINE:-400}" --timeout 150 --work /tmp/fz --linter "$LINT" \
    2>&1 | tail -30
  cp /tmp/fz/fuzz.json "$OUT/fuzz-${FUZZ_SEED:-31}.json"
  [ -d /tmp/fz/culprits ] && tar -cJf "$OUT/culprits-${FUZZ_SEED:-31}.tar.xz" -C /tmp/fz culprits ;;
corpora)
  # the harness with each corpus's include dirs ({includes}); every finding an internal error
  # (CUDA002 "internal error") is listed
  W=/tmp/evw; mkdir -p $W; ln -sfn /tmp/corp/corpora $W/corpora
  cp .evalcorp/labels.json .evalcorp/manifest.json $W/
  # gpuverify-dims: GPUVerify with the launch shapes its headers state ({dims})
  for name in ${CORPORA:-gpuverify gpuverify-dims indigo-hirace indigo2 cuda-samples hecbench}; do
    c=${name%-dims}; dims=; [ "$name" != "$c" ] && dims='{dims}'
    python3 .evalcorp/eval_external.py --work $W run --corpus $c --jobs 16 --batch-size 10 \
      --linter "cudalint --output-format json --exit-zero -n -j 1 --file-budget 60 $dims {includes}" \
      > "$OUT/run-$name.log" 2>&1
    mkdir -p $W/out && cp "$W/results-$c.json" "$W/out/results-$name.json"
    python3 - "$W/out/results-$name.json" "$name" <<'PY' | tee -a "$OUT/internal-errors.txt"
import json, sys
d = json.load(open(sys.argv[1]))
bad = [f for f in d["findings"] if "internal error" in str(f.get("message", ""))]
print(sys.argv[2], len(d["files"]), "files,", d["n_findings"], "findings,", d["n_crashed_files"],
      "crashed,", len(bad), "internal errors,", round(d["wall_seconds"]), "s")
for f in bad[:30]:
    print("  ", f.get("path"), f.get("line"), f.get("rule"), str(f.get("message"))[:200])
PY
    # one file back, every corpus so far (a run cut short keeps the corpora it finished)
    tar -cJf "$OUT/results.tar.xz" -C $W/out .
  done ;;
esac
