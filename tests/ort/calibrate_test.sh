#!/usr/bin/env bash
# Calibration end to end (issue 10): records a trace of each model with onnxruntime-node's profiler
# on this CPU (one thread, tests/ort/run_model.mjs --profile), fits the cpu-only-8 preset to it with
# `onnx-placer calibrate`, and checks, per model:
#   - the calibrated specification predicts the measured per-operator times better than the
#     datasheet: a lower geometric-mean error factor (the geometric mean over operators of
#     max(predicted/measured, measured/predicted)), and its total within 20% of the measured total;
#   - `inspect --devices CALIBRATED.json` costs the model on one CPU core at that total (within 20%);
#   - `place --devices CALIBRATED.json` places it, at a max-load other than the datasheet's;
#   - the report's per-operator rows add up to its totals.
#
# usage: calibrate_test.sh PATH/TO/onnx-placer MODEL.onnx...
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 ONNX_PLACER MODEL.onnx..." >&2
  exit 2
fi
cli=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
ort_require
ort_scratch calibrate

if ! node "$here/run_model.mjs" --profile "$tmp" --runs 10 "$@" >"$tmp/run.log" 2>&1; then
  echo "FAIL: recording the traces:"
  sed 's/^/    /' "$tmp/run.log"
  exit 1
fi

failed=0
for model in "$@"; do
  stem=$(basename "$model" .onnx)
  spec="$tmp/$stem.spec.json"
  if ! "$cli" calibrate "$model" --profile "$tmp/$stem.json" --devices cpu-only-8 -o "$spec" --json \
      >"$tmp/$stem.report.json" 2>"$tmp/$stem.err" ||
     ! "$cli" inspect "$model" --devices "$spec" --json >"$tmp/$stem.inspect.json" 2>>"$tmp/$stem.err" ||
     ! "$cli" place "$model" --devices "$spec" -q >"$tmp/$stem.calibrated.json" 2>>"$tmp/$stem.err" ||
     ! "$cli" place "$model" --devices cpu-only-8 -q >"$tmp/$stem.datasheet.json" 2>>"$tmp/$stem.err"; then
    echo "FAIL [$stem]: onnx-placer failed:"
    sed 's/^/    /' "$tmp/$stem.err"
    failed=1
    continue
  fi
  if ! node -e '
    const fs = require("fs");
    const [report, inspect, calibrated, datasheet] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f)));
    const cpu = report.reports.find((r) => r.kind === "cpu");
    const fail = (why) => { console.log(why); process.exit(1); };
    if (!cpu) fail("no cpu calibration");
    const { before, after } = cpu;
    const ratio = after.predicted_seconds / after.measured_seconds;
    const oneCpu = inspect.costs.seconds_per_sample.one_cpu / after.measured_seconds;
    console.log(`error factor ${before.error_factor.toFixed(3)} -> ${after.error_factor.toFixed(3)}, ` +
                `Spearman ${before.spearman.toFixed(3)} -> ${after.spearman.toFixed(3)}, ` +
                `total x${(before.predicted_seconds / before.measured_seconds).toFixed(3)} -> x${ratio.toFixed(3)}, ` +
                `inspect x${oneCpu.toFixed(3)}, max-load ${datasheet.max_load_seconds} -> ${calibrated.max_load_seconds} s`);
    const sum = (key) => cpu.operators.reduce((a, op) => a + op[key], 0);
    const near = (a, b) => Math.abs(a - b) <= 1e-9 + 1e-6 * Math.abs(b);
    if (cpu.operators.length !== after.operators) fail(`${cpu.operators.length} operator rows for ${after.operators} operators`);
    if (!near(sum("measured_seconds"), after.measured_seconds) || !near(sum("datasheet_seconds"), before.predicted_seconds) ||
        !near(sum("calibrated_seconds"), after.predicted_seconds)) fail("the operator rows do not add up to the totals");
    if (!(after.error_factor < before.error_factor)) fail("the calibrated error is not lower");
    if (Math.abs(ratio - 1) > 0.2) fail("the calibrated total is not within 20% of the measured one");
    if (Math.abs(oneCpu - 1) > 0.2) fail("inspect with the calibrated specification is not within 20%");
    if (!(calibrated.max_load_seconds > 0) || calibrated.max_load_seconds === datasheet.max_load_seconds) fail("place did not use the calibrated rates");
  ' "$tmp/$stem.report.json" "$tmp/$stem.inspect.json" "$tmp/$stem.calibrated.json" "$tmp/$stem.datasheet.json" \
      >"$tmp/$stem.check" 2>&1; then
    echo "FAIL [$stem]: $(cat "$tmp/$stem.check")"
    failed=1
    continue
  fi
  echo "PASS [$stem]: $(cat "$tmp/$stem.check")"
done
exit $failed
