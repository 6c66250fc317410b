// Runs a Triton ensemble's steps in ONNX Runtime (CPU), following input_map and output_map, and
// compares the ensemble's outputs with the original model's at each dimension set.
//
// usage: node run_ensemble.mjs ORIGINAL.onnx STEPS.json SETS
//   STEPS.json: check_triton.py's output; SETS: "name=value,.../name=value,..." as run_stages.mjs
// Exits 0 only if every output equals the original's (max |ref - got| / max(1, |ref|) <= 1e-5).
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ort = createRequire(path.join(here, '..', 'ort', 'package.json'))('onnxruntime-node');
const [originalPath, stepsPath, sets] = process.argv.slice(2);
const { steps } = JSON.parse(fs.readFileSync(stepsPath, 'utf8'));
const options = { logSeverityLevel: 3 };
const original = await ort.InferenceSession.create(originalPath, options);
const sessions = [];
for (const step of steps) sessions.push(await ort.InferenceSession.create(step.model, options));

function input(meta, dims) {
  const shape = meta.shape.map((d) => (typeof d === 'number' ? d : dims[d] ?? 1));
  const n = shape.reduce((a, b) => a * b, 1);
  if (meta.type === 'int64') return new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7 + 3) % 90)), shape);
  if (meta.type === 'float32') return new ort.Tensor('float32', Float32Array.from({ length: n }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5), shape);
  throw new Error(`input ${meta.name}: type ${meta.type}`);
}

let failures = 0;
let compared = 0;
for (const set of (sets ?? '').split('/')) {
  const dims = Object.fromEntries(set.split(',').filter((p) => p).map((p) => [p.split('=')[0], Number(p.split('=')[1])]));
  const feeds = Object.fromEntries(original.inputMetadata.map((m) => [m.name, input(m, dims)]));
  const reference = await original.run(feeds);
  const tensors = new Map(Object.entries(feeds));
  for (let k = 0; k < steps.length; ++k) {
    const inputs = {};
    for (const [modelName, ensembleName] of Object.entries(steps[k].input_map)) inputs[modelName] = tensors.get(ensembleName);
    const out = await sessions[k].run(inputs);
    for (const [modelName, ensembleName] of Object.entries(steps[k].output_map)) tensors.set(ensembleName, out[modelName]);
  }
  for (const name of original.outputNames) {
    const ref = reference[name];
    const got = tensors.get(name);
    let err = got && got.dims.join() === ref.dims.join() ? 0 : Infinity;
    for (let i = 0; err !== Infinity && i < ref.data.length; ++i) {
      const x = Number(ref.data[i]);
      err = Math.max(err, Math.abs(x - Number(got.data[i])) / Math.max(1, Math.abs(x)));
    }
    ++compared;
    if (!(err <= 1e-5)) {
      ++failures;
      console.log(`MISMATCH ${set} ${name}: ${err}`);
    }
  }
}
console.log(`${failures ? 'FAIL' : 'PASS'} ${path.basename(originalPath)}: ${steps.length} steps, ${compared} outputs compared`);
process.exit(failures ? 1 : 0);
