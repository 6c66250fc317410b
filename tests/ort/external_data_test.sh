#!/usr/bin/env bash
# Models over 2 GB end to end (issue 29): a model whose 300 MB weight is in an external data file,
# generated here (tests/data/external/make_external_model.py), placed on two accelerators so that
# the weight and the rest land on different stages, in both --stage-data modes:
#   - the annotated model (-o, in another directory) and the stages (--stages-dir) compose in ONNX
#     Runtime to the original's outputs at two batch sizes (run_stages.mjs);
#   - reference: the stage directory's data file is a hard link to the original (no bytes copied);
#     copy: each stage's data file holds only its own weights, the largest the 300 MB one;
#   - the Triton repository (--emit triton) with its data in each version directory parses and its
#     ensemble runs (tests/triton/triton_test.sh);
#   - the original data file is never modified (same checksum and time).
#
# usage: external_data_test.sh ONNX_PLACER
set -u
cli=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
ort_scratch external
fail() { echo "FAIL: $*"; exit 1; }

/usr/bin/python3 "$here/../data/external/make_external_model.py" "$tmp/model" 300 || fail "cannot make the fixture"
model=$tmp/model/big_external.onnx data=$tmp/model/big_external.onnx.data
sum_before=$(sha256sum "$data" | cut -d' ' -f1)
time_before=$(stat -c %Y "$data")
options="--accelerators 2 --cpus 0 --memory 3.2e8 --dim batch=2"

for mode in reference copy; do
  out=$tmp/$mode
  mkdir -p "$out"
  # shellcheck disable=SC2086
  "$cli" place "$model" $options --stage-data $mode -o "$out/annotated.onnx" --stages-dir "$out/stages" -q \
    >"$out/place.log" 2>&1 || { cat "$out/place.log"; fail "[$mode] place failed"; }
  stages=$(ls "$out/stages" | grep -c '^stage[0-9]*\.onnx$')
  [ "$stages" -ge 2 ] || fail "[$mode] expected at least 2 stages, got $stages"
  if [ $mode = reference ]; then
    for linked in "$out/big_external.onnx.data" "$out/stages/big_external.onnx.data"; do
      [ "$(stat -c %i "$linked")" = "$(stat -c %i "$data")" ] || fail "[$mode] $linked is not a hard link to the data"
    done
  else
    [ "$(stat -c %i "$out/annotated.onnx.data")" != "$(stat -c %i "$data")" ] || fail "[$mode] the copy is a link"
    cmp -s "$out/annotated.onnx.data" "$data" || fail "[$mode] annotated.onnx.data differs from the data"
    largest=$(stat -c %s "$out"/stages/stage*.onnx.data | sort -n | tail -n 1)
    [ "$largest" = 314572800 ] || fail "[$mode] the largest stage data file has $largest bytes, not w1's 314572800"
  fi
  node "$here/run_stages.mjs" "$model" "$out/annotated.onnx" "$out/stages" --dims "batch=2/batch=5" \
    >"$out/ort.log" 2>"$out/ort.err" || {
    cat "$out/ort.log"; grep -v 'could not be mapped' "$out/ort.err"; fail "[$mode] the stages do not compose"; }
  echo "PASS [$mode stages]: $(tail -n 1 "$out/ort.log")"
  TMPDIR=$out bash "$here/../triton/triton_test.sh" "$cli" "$model" "$options --stage-data $mode" \
    "batch=2/batch=3" >"$out/triton.log" 2>&1 || { cat "$out/triton.log"; fail "[$mode] the Triton ensemble"; }
  echo "PASS [$mode triton]: $(tail -n 1 "$out/triton.log")"
  rm -rf "$out"
done

[ "$(sha256sum "$data" | cut -d' ' -f1)" = "$sum_before" ] || fail "the original data file changed"
[ "$(stat -c %Y "$data")" = "$time_before" ] || fail "the original data file was written"
[ "$(stat -c %h "$data")" = 1 ] || fail "links to the data file remain"
echo "PASS: the original data file is unchanged"
