#!/usr/bin/env bash
# Lay out the corpora for a --confirm run of a judged sample (scripts/gpu/confirm_sample.py), on the
# device machine, from the repository root:
#   carry: .evalcorp (corpora.tar.xz, a copy of shared/eval/corpora.tar.xz) and .whl
#   bash scripts/gpu/sample/prepare.sh ROOT      # gives ROOT/corpora/{hecbench,cuda-samples,...}
# HeCBench gets this folder's cudalint.toml (include-dirs, confirm-args), the stand-in headers of
# include/ in cudalint-include/, and the inputs gen_inputs.py writes in inputs/.
set -eu
ROOT=${1:?usage: prepare.sh ROOT}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TARBALL=${EVALCORP:-.evalcorp/corpora.tar.xz}
[ -f "$TARBALL" ] || { echo "prepare.sh: no $TARBALL (carry .evalcorp, or set EVALCORP)" >&2; exit 1; }
mkdir -p "$ROOT"
tar -xJf "$TARBALL" -C "$ROOT"
H="$ROOT/corpora/hecbench"
[ -d "$H/src" ] || { echo "prepare.sh: $TARBALL gave no corpora/hecbench/src under $ROOT" >&2; exit 1; }
# in case the tarball's entries are read-only: the copies and links below go beside them
chmod -R u+w "$ROOT/corpora"
cp "$HERE/hecbench.cudalint.toml" "$H/cudalint.toml"
mkdir -p "$H/cudalint-include"
cp "$HERE"/include/* "$H/cudalint-include/"
python3 "$HERE/gen_inputs.py" "$H"
echo "prepare.sh: $H ready (cudalint.toml, cudalint-include/, inputs/)"
