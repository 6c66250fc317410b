#!/usr/bin/env bash
# Models placed on machines given as topologies (issue 30): the DGX-1 preset (hybrid cube-mesh of
# NVLinks), a generated two-level cluster, the mixed preset (two A100s and two V100s: two kinds) and
# the DGX-1 again with two replicas per stage. For each, `place --topology` maps the stages onto
# physical devices; the stage sub-models must compose in ONNX Runtime to the original's outputs
# (run_stages.mjs), and every accelerator stage must name a distinct physical device, the same one
# in the report, the report's mapping, the layer assignment string and the stage manifest. On the
# mixed machine each stage also names its kind, which must be its device's; with replicas every
# replica names a device of its own.
#
# usage: topology_test.sh PATH/TO/onnx-placer MODEL.onnx...
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
ort_scratch topology

# Two nodes of four devices: 50 GB/s inside a node, 2 GB/s between them.
"$cli" topology cluster --nodes 2 --gpus 4 --bandwidth 5e10 --inter-bandwidth 2e9 -o "$tmp/cluster.json" || {
  echo "FAIL: onnx-placer topology cluster"
  exit 1
}

failed=0
for model in "$@"; do
  # The last run (the first model only): the DGX-1's eight V100s as four stages of two replicas each.
  runs=(dgx1-8xv100-nvlink "$tmp/cluster.json" mixed-2xa100-2xv100)
  [ "$model" = "$1" ] && runs+=("dgx1-8xv100-nvlink 2")
  for run in "${runs[@]}"; do
    machine=${run% 2}
    replicas=1
    [ "$machine" != "$run" ] && replicas=2
    name="$(basename "$model") on $(basename "$machine"), $replicas replica(s)"
    dir="$tmp/run"
    rm -rf "$dir" && mkdir -p "$dir"
    # Split for throughput over the machine's devices (the bundled models' weights fit on one).
    if ! "$cli" place "$model" --topology "$machine" --cpus 0 --replicas "$replicas" -o "$dir/annot.onnx" \
        --stages-dir "$dir/stages" --report "$dir/report.json" -q >"$dir/place.log" 2>&1; then
      echo "FAIL [$name]: place failed:"
      sed 's/^/    /' "$dir/place.log"
      failed=1
      continue
    fi
    if ! node "$here/run_stages.mjs" "$model" "$dir/annot.onnx" "$dir/stages" >"$dir/ort.log" 2>"$dir/ort.err"; then
      echo "FAIL [$name]: the stages do not compose:"
      sed 's/^/    /' "$dir/ort.log"
      failed=1
      continue
    fi
    # The devices: distinct, and the same everywhere they are named.
    if ! node --input-type=module - "$dir/report.json" "$dir/stages/pipeline.json" "$machine" "$replicas" \
        >"$dir/check.log" 2>&1 <<'JS'
import { readFileSync } from 'node:fs';
const [reportPath, manifestPath, machine, replicaArg] = process.argv.slice(2);
const replicas = Number(replicaArg);
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const fail = (why) => { console.log(why); process.exit(1); };
const stages = report.stages.filter((s) => s.device.startsWith('gpu:'));
if (stages.length < 2) fail(`expected at least 2 accelerator stages, got ${stages.length}`);
const names = stages.map((s) => s.device_name);
if (new Set(names).size !== names.length) fail(`devices repeat: ${names}`);
if (replicas === 1) {
  if (JSON.stringify(report.mapping.mapping) !== JSON.stringify(names)) fail(`report stages ${names} != mapping ${report.mapping.mapping}`);
} else {
  // Every replica of every stage on its own device, named alike in the report, its mapping and the manifest.
  const all = stages.map((s) => s.replica_device_names);
  for (const [i, s] of stages.entries()) {
    if (s.replicas !== replicas || all[i].length !== replicas || all[i][0] !== s.device_name) fail(`stage ${s.label}: replicas ${JSON.stringify(s)}`);
  }
  if (new Set(all.flat()).size !== stages.length * replicas) fail(`replica devices repeat: ${all}`);
  if (JSON.stringify(report.mapping.mapping) !== JSON.stringify(all)) fail(`report replicas ${all} != mapping ${report.mapping.mapping}`);
  const manifestAll = manifest.stages.filter((s) => s.device.startsWith('gpu:')).map((s) => s.replica_device_names);
  if (JSON.stringify(manifestAll) !== JSON.stringify(all)) fail(`manifest replicas ${manifestAll} != report ${all}`);
  if (report.replicas.replicas !== replicas || report.replicas.stages !== 4) fail(`report.replicas ${JSON.stringify(report.replicas)}`);
}
if (report.mapping.status !== 'optimal') fail(`mapping status ${report.mapping.status}`);
if (!(report.mapping.maxStageTime <= report.mapping.consecutiveMaxStageTime)) fail('mapping worse than consecutive');
const expected = report.stages.map((s) => `${s.device}(=${s.label})`).join('; ');
if (report.layer_assignment_settings !== expected) fail(`layer assignment ${report.layer_assignment_settings} != ${expected}`);
const manifestNames = manifest.stages.filter((s) => s.device.startsWith('gpu:')).map((s) => s.device_name);
if (JSON.stringify(manifestNames) !== JSON.stringify(names)) fail(`manifest ${manifestNames} != report ${names}`);
const devices = stages.map((s) => s.device);
if (new Set(devices).size !== devices.length) fail(`device strings repeat: ${devices}`);
if (machine === 'mixed-2xa100-2xv100') {
  // The preset's devices: gpu1 and gpu3 are A100s, gpu0 and gpu2 V100s.
  const kindOf = { gpu0: 'v100', gpu1: 'a100', gpu2: 'v100', gpu3: 'a100' };
  for (const s of stages) {
    if (s.device_kind !== kindOf[s.device_name]) fail(`stage ${s.label} placed for ${s.device_kind} runs on ${s.device_name} (${kindOf[s.device_name]})`);
  }
  const manifestKinds = manifest.stages.filter((s) => s.device.startsWith('gpu:')).map((s) => s.device_kind);
  if (JSON.stringify(manifestKinds) !== JSON.stringify(stages.map((s) => s.device_kind))) fail(`manifest kinds ${manifestKinds}`);
  if (new Set(manifestKinds).size !== 2) fail(`expected stages of both kinds, got ${manifestKinds}`);
} else if (stages.some((s) => s.device_kind !== undefined)) {
  fail('a machine of one kind names kinds');
}
console.log(`devices ${names.join(', ')}; ${report.mapping.speedup.toFixed(3)}x over consecutive`);
JS
    then
      echo "FAIL [$name]: $(cat "$dir/check.log")"
      failed=1
      continue
    fi
    echo "PASS [$name]: $(grep -c '^ok ' "$dir/ort.log") outputs compared; $(cat "$dir/check.log")"
  done
done
exit $failed
