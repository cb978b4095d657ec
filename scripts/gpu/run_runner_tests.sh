#!/usr/bin/env bash
# GPU checks of the --confirm runner, on the device machine (H200), from the repository root:
#   carry: .whl (site312.tar.xz: libclang-ng 22.1.4.2 + z3-solver unpacked for CPython 3.12)
#   bash scripts/gpu/run_runner_tests.sh            # writes under $OUT
set -u
OUT=${OUT:-runner-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
mkdir -p /tmp/site && tar -xJf .whl/site312.tar.xz -C /tmp/site || exit 1
# cudalint from the checkout: cudalint.rules is the rules/ folder (pyproject's package-dir mapping)
[ -e cudalint/rules ] || ln -s ../rules cudalint/rules
export PYTHONPATH=$PWD:/tmp/site
CL="python3 -m cudalint"
{ nvidia-smi -L; python3 -c "import cupy, z3, clang.cindex; print('cupy', cupy.__version__, 'z3', z3.get_version_string())"; } 2>&1 | tee "$OUT/env.txt"
# 1. unit + GPU tests
python3 -m pytest -q -p no:cacheprovider tests/test_runner.py tests/test_gpu_runner.py 2>&1 | tee "$OUT/pytest.txt"
# 2. cudalint --confirm examples/ (end to end, text output)
$CL --confirm examples/ -j 8 --no-cache 2>&1 | tee "$OUT/examples.txt" || true
# 3. every fixture: must-fire findings confirmed, must-stay-clean probes not confirmed
timeout 360 python3 scripts/gpu/run_runner_fixtures.py --out "$OUT" --jobs 12 --timeout 30 ${RUNNER_ONLY:+--only $RUNNER_ONLY} 2>&1 | tail -5
