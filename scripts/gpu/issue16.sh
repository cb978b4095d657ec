#!/usr/bin/env bash
# The --confirm measurements of issue 16 on the device machine, from the repository root
# (carry .whl and .evalcorp; see scripts/gpu/sample/README.md):
#   bash scripts/gpu/issue16.sh tests sample      # then, in later calls: hirace, fixtures
# Steps, each under its own time limit, results under $OUT:
#   tests     tests/test_gpu_runner.py (the runner on a real GPU)
#   sample    the judged seed-17 sample's TRUE findings (scripts/gpu/confirm_sample.py; SAMPLE_IDS="--id 13"
#             for some of them)
#   hirace    HiRace's Indigo kernels, racy and clean files (scripts/gpu/confirm_corpus.py)
#   fixtures  every fixture: must-fire findings and must-stay-clean probes (run_runner_fixtures.py)
set -u
OUT=${OUT:-issue16-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
[ -d /tmp/site/z3 ] || { mkdir -p /tmp/site && tar -xJf .whl/site312.tar.xz -C /tmp/site; } || exit 1
[ -e cudalint/rules ] || ln -s ../rules cudalint/rules  # cudalint.rules is rules/ (pyproject's mapping)
export PYTHONPATH=$PWD:/tmp/site
[ -d /tmp/c/corpora/hecbench ] || bash scripts/gpu/sample/prepare.sh /tmp/c > "$OUT/prepare.txt" 2>&1 || exit 1
for step in "$@"; do
  start=$(date +%s)
  case $step in
    tests)
      timeout 280 python3 -m pytest -q -p no:cacheprovider tests/test_gpu_runner.py 2>&1 | tail -40 > "$OUT/pytest.txt" ;;
    sample)
      timeout 300 python3 scripts/gpu/confirm_sample.py --sample docs/eval/precision-2026-12-02-seed17-sample.json \
        --skip-false --root hecbench=/tmp/c/corpora/hecbench --root cuda-samples=/tmp/c/corpora/cuda-samples \
        -I hecbench=src/include -I cuda-samples=Common --out "$OUT/s17" --timeout 120 ${SAMPLE_IDS:+$SAMPLE_IDS} \
        > "$OUT/sample.txt" 2>&1 ;;
    hirace)
      python3 -c "import json; d = json.load(open('/tmp/c/labels.json'))['corpora']['indigo-hirace']; \
json.dump([f for f in d['files'] if f['label'] in ('race', 'clean')], open('/tmp/c/hirace-labels.json', 'w'))"
      # HIRACE_LABELS: a part of them (the files an earlier call's deadline left)
      timeout 560 python3 scripts/gpu/confirm_corpus.py --root /tmp/c/corpora/indigo-hirace \
        --labels "${HIRACE_LABELS:-/tmp/c/hirace-labels.json}" -I indigo/indigo_include --out "$OUT/hr" --jobs 16 \
        --chunk 60 --deadline "${HIRACE_DEADLINE:-520}" > "$OUT/hirace.txt" 2>&1 ;;
    fixtures)
      timeout 560 python3 scripts/gpu/run_runner_fixtures.py --out "$OUT/fx" --jobs 14 --timeout 30 ${FIXTURES_ONLY:+$FIXTURES_ONLY} \
        > "$OUT/fixtures.txt" 2>&1 ;;
    *) echo "unknown step $step" ;;
  esac
  echo "$step: exit $? after $(( $(date +%s) - start )) s" | tee -a "$OUT/steps.txt"
done
