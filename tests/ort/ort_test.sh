#!/usr/bin/env bash
# End-to-end check of onnx-placer's outputs with ONNX Runtime (CPU, npm
# onnxruntime-node, installed by `(cd tests/ort && npm ci --ignore-scripts)`).
#
# usage: ort_test.sh PATH/TO/onnx-placer PATH/TO/tests/data/models
#        ort_test.sh PATH/TO/onnx-placer --extras PATH/TO/tests/data/models
#        ort_test.sh PATH/TO/onnx-placer --defaults MODEL.onnx...
#        ort_test.sh PATH/TO/onnx-placer --each MODEL.onnx...
#        ort_test.sh PATH/TO/onnx-placer --with "PLACE OPTIONS" MODEL.onnx...
#
# For every model and K accelerators, runs `onnx-placer place` and then
# run_stages.mjs, which runs the original model, the annotated model (with and
# without session.layer_assignment_settings) and the stage sub-models in ORT
# and compares the outputs.
# - Given a directory: every model in it on 2 and 3 accelerators, then the
#   extra checks (--extras runs only these: GPT-2 with a tied embedding on 4,
#   BERT-3 written in the other --annotate modes).
# - --defaults: each given model placed once with place's default options
#   (devices, algorithm, time limit), as a user would.
# - --each: each given model on 2 and 3 accelerators; --with: the same, with
#   the extra place options.
# Environment: ORT_ACCELERATORS (default "2 3") is the list of accelerator
# counts of --each and --with; ORT_DIMS (run_stages.mjs's --dims sets) runs
# everything at those input dimensions instead of the placed ones.
# Fails (exit 1) if ONNX Runtime is not installed or any model fails.
set -u

if [ $# -lt 2 ] || { [ "$2" != --defaults ] && [ "$2" != --each ] && [ "$2" != --with ] && [ "$2" != --extras ] &&
                     [ $# -ne 2 ]; } ||
   { { [ "$2" = --defaults ] || [ "$2" = --each ]; } && [ $# -lt 3 ]; } || { [ "$2" = --with ] && [ $# -lt 4 ]; } ||
   { [ "$2" = --extras ] && [ $# -ne 3 ]; }; then
  echo "usage: $0 ONNX_PLACER MODELS_DIR" >&2
  echo "       $0 ONNX_PLACER --extras MODELS_DIR" >&2
  echo "       $0 ONNX_PLACER --defaults MODEL.onnx..." >&2
  echo "       $0 ONNX_PLACER --each MODEL.onnx..." >&2
  echo "       $0 ONNX_PLACER --with \"PLACE OPTIONS\" MODEL.onnx..." >&2
  exit 2
fi
cli=$1
models=$2
here=$(cd "$(dirname "$0")" && pwd)

. "$here/common.sh"
ort_require

ort_scratch ort

start=$SECONDS
failed=()
accelerator_counts=${ORT_ACCELERATORS:-2 3}
case $accelerator_counts in
  *[!0-9\ ]* | "") echo "$0: ORT_ACCELERATORS must be accelerator counts, e.g. \"2 3\" (it is \"$accelerator_counts\")" >&2; exit 2 ;;
esac
runs=0

# check MODEL K [extra place options...]; K empty: the device set's own count
check() {
  local model=$1 k=$2
  shift 2
  local name
  name="$(basename "$model") K=${k:-default}${*:+ $*}"
  local dir="$tmp/run"
  rm -rf "$dir" && mkdir -p "$dir"
  runs=$((runs + 1))
  local count=()
  [ -n "$k" ] && count=(--accelerators "$k")
  if ! "$cli" place "$model" "${count[@]}" -o "$dir/annot.onnx" \
      --stages-dir "$dir/stages" -q "$@" >"$dir/place.log" 2>&1; then
    echo "FAIL [$name]: onnx-placer place failed:"
    sed 's/^/    /' "$dir/place.log"
    failed+=("$name (place)")
    return
  fi
  # ORT prints an error-level log line per layering rule it cannot map to an
  # execution provider (gpu:<n> on this CPU-only build); keep stderr for failures.
  local dims=()
  [ -n "${ORT_DIMS:-}" ] && dims=(--dims "$ORT_DIMS")
  if node "$here/run_stages.mjs" "$model" "$dir/annot.onnx" "$dir/stages" "${dims[@]}" \
      >"$dir/ort.log" 2>"$dir/ort.err"; then
    echo "PASS [$name]: $(grep -c '^ok ' "$dir/ort.log") outputs compared; $(tail -n 1 "$dir/ort.log")"
  else
    echo "FAIL [$name]: run_stages.mjs failed:"
    sed 's/^/    /' "$dir/ort.log"
    grep -v 'could not be mapped to any available Execution Provider' "$dir/ort.err" | sed 's/^/    /'
    failed+=("$name")
  fi
}

report() {
  echo "ORT end-to-end: $runs runs, ${#failed[@]} failed, $((SECONDS - start)) s"
  if [ ${#failed[@]} -ne 0 ]; then
    printf '  failed: %s\n' "${failed[@]}"
    exit 1
  fi
  exit 0
}

if [ "$models" = --defaults ]; then
  shift 2
  for model in "$@"; do
    check "$model" ""
  done
  report
fi
if [ "$models" = --each ]; then
  shift 2
  for model in "$@"; do
    for k in $accelerator_counts; do
      check "$model" "$k"
    done
  done
  report
fi
# --with "OPTIONS" MODEL...: each model on ORT_ACCELERATORS accelerators with the extra place options
# (word-split), e.g. --cpus 0 --memory N to split a model too small to be worth splitting.
if [ "$models" = --with ]; then
  options=$3
  shift 3
  for model in "$@"; do
    for k in $accelerator_counts; do
      # shellcheck disable=SC2086
      check "$model" "$k" $options
    done
  done
  report
fi

# The checks beyond 2 and 3 accelerators, on models of MODELS_DIR.
extras() {
  local dir=$1
  # The tied-embedding decoder on 4 accelerators too: its embedding is copied into the first and the
  # last stage, and the stages must still compose.
  check "$dir/gpt_tied_light.onnx" 4
  # Every --annotate mode must load in ORT (ort is the default, covered by the other runs).
  check "$dir/bert_base_l3_light.onnx" 3 --annotate metadata
  check "$dir/bert_base_l3_light.onnx" 3 --annotate onnx-ir11
}

if [ "$models" = --extras ]; then
  extras "$3"
  report
fi

shopt -s nullglob
all=("$models"/*.onnx)
if [ ${#all[@]} -eq 0 ]; then
  echo "FAIL: no models in $models" >&2
  exit 1
fi

for model in "${all[@]}"; do
  for k in 2 3; do
    check "$model" "$k"
  done
done
extras "$models"
report
