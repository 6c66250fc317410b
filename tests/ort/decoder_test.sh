#!/usr/bin/env bash
# A KV-cache decoder placed for each phase and run as a generator runs it (run_decoder.mjs): its
# stages, over a prompt step and two token steps fed with their own presents, give the original's
# logits and presents, and no KV tensor crosses a stage boundary. The report says the phase.
#
# usage: decoder_test.sh PATH/TO/onnx-placer DECODER.onnx "PLACE OPTIONS"
set -u
if [ $# -ne 3 ]; then
  echo "usage: $0 ONNX_PLACER DECODER.onnx \"PLACE OPTIONS\"" >&2
  exit 2
fi
cli=$1 model=$2 options=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
ort_scratch decoder
failed=0
for phase in prompt token; do
  extra=(--dim sequence_length=5)
  [ "$phase" = token ] && extra=(--dim past_sequence_length=16)
  # shellcheck disable=SC2086  # the options are words
  if ! "$cli" place "$model" --phase "$phase" "${extra[@]}" $options --stages-dir "$tmp/$phase" \
      --report "$tmp/$phase.json" -q >"$tmp/place.log" 2>&1; then
    echo "FAIL [$phase]: onnx-placer place failed:"; sed 's/^/    /' "$tmp/place.log"; failed=1; continue
  fi
  if ! grep -q "\"phase\": \"$phase\"" "$tmp/$phase.json"; then
    echo "FAIL [$phase]: the report does not say the phase"; failed=1
  fi
  stages=$(grep -c '"file": "stage' "$tmp/$phase/pipeline.json")
  if [ "$stages" -lt 2 ]; then
    echo "FAIL [$phase]: placed in $stages stage(s); the test needs a split"; failed=1
  fi
  if node "$here/run_decoder.mjs" "$model" "$tmp/$phase" 2 5 2 >"$tmp/ort.log" 2>&1; then
    echo "PASS [$phase]: $(tail -n 1 "$tmp/ort.log")"
  else
    echo "FAIL [$phase]:"; sed 's/^/    /' "$tmp/ort.log"; failed=1
  fi
  # The same placement as ONNX Runtime GenAI's decoder-pipeline, followed as GenAI runs it.
  # shellcheck disable=SC2086
  if ! "$cli" place "$model" --phase "$phase" "${extra[@]}" $options --emit "genai=$tmp/genai-$phase" -q \
      >"$tmp/place.log" 2>&1; then
    echo "FAIL [$phase genai]: onnx-placer place failed:"; sed 's/^/    /' "$tmp/place.log"; failed=1; continue
  fi
  if node "$here/run_decoder.mjs" "$model" "$tmp/genai-$phase" 2 5 2 >"$tmp/ort.log" 2>&1; then
    echo "PASS [$phase genai]: $(tail -n 1 "$tmp/ort.log")"
  else
    echo "FAIL [$phase genai]:"; sed 's/^/    /' "$tmp/ort.log"; failed=1
  fi
done
exit $failed
