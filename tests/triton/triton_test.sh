#!/usr/bin/env bash
# place --emit triton=DIR on a model, then: the repository's config.pbtxt files parse against
# Triton's model_config.proto and wire up (check_triton.py), and the ensemble's steps run in ONNX
# Runtime reproduce the original's outputs at each dimension set (run_ensemble.mjs).
#
# usage: triton_test.sh ONNX_PLACER MODEL.onnx "PLACE OPTIONS" DIMENSION_SETS
set -u
cli=$1 model=$2 options=$3 sets=$4
here=$(cd "$(dirname "$0")" && pwd)
# What the ONNX Runtime scripts check before they run, their scratch directory, and ONNX Runtime's
# memory in transparent huge pages.
# shellcheck source=../ort/common.sh
. "$here/../ort/common.sh"
ort_require
ort_scratch triton
# shellcheck disable=SC2086  # the options are words
"$cli" place "$model" $options --emit "triton=$tmp/repo" -q >"$tmp/place.log" 2>&1 || {
  echo "FAIL: place failed:"; cat "$tmp/place.log"; exit 1; }
name=$(basename "$model" .onnx)
/usr/bin/python3 "$here/check_triton.py" "$here/../data/triton/model_config.proto" "$tmp/repo" "$name" \
  >"$tmp/steps.json" || exit 1
echo "config.pbtxt files parse and wire up: $(ls "$tmp/repo" | wc -l) models"
node "$here/run_ensemble.mjs" "$model" "$tmp/steps.json" "$sets"
