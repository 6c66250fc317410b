// Runs ONNX models once in ONNX Runtime (CPU) on deterministic random inputs.
//
// usage: node run_model.mjs [--int-range N] [--allow-nan] [--dim NAME=VALUE]... [--profile DIR [--runs N]]
//                           MODEL.onnx...
//
// Every graph input gets a tensor of its declared element type and shape; a symbolic dimension
// named by --dim gets that value (as onnx-placer's --dim), other symbolic or unknown dimensions 1. Values come from a fixed-seed
// generator (seeded per input from the model's input index), so two runs see
// the same data:
//   float32 / float64 / float16   uniform in [-1, 1)
//   int64 / int32 / int16 / int8 / uint8 / uint16 / uint32 / uint64
//                                 uniform integers in [0, N), N = --int-range (default 2:
//                                 valid as indices into any table of 2 or more rows,
//                                 as segment ids and as 0/1 masks)
//   bool                          0/1
// For each model it prints every output's name, element type, shape and a checksum
// (sum and sum of absolute values over the elements, float16 decoded), and the number
// of non-finite elements. Exits 1 if a model fails to load or run, or (without
// --allow-nan) if an output holds a NaN; 2 on bad usage.
//
// With --profile DIR, each model runs --runs times (default 10) with ONNX Runtime's profiler on, on one
// thread (intra- and inter-op), sequentially, with the basic graph optimisations (constant folding
// and redundant-node elimination, which keep the nodes' names), and the trace is written to
// DIR/<model file name without .onnx>.json: what `onnx-placer calibrate --profile` reads.

import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ort from 'onnxruntime-node';

function usage() {
  console.error('usage: node run_model.mjs [--int-range N] [--allow-nan] [--dim NAME=VALUE]... [--profile DIR [--runs N]] MODEL.onnx...');
  process.exit(2);
}

let intRange = 2;
let allowNaN = false;
let profileDir = null;
const dimValues = new Map();
let runs = 1;
const models = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--int-range') {
    intRange = Number(args[++i]);
    if (!Number.isInteger(intRange) || intRange < 1) usage();
  } else if (args[i] === '--dim') {
    const m = /^([^=]+)=([0-9]+)$/.exec(args[++i] ?? '');
    if (!m || Number(m[2]) < 1) usage();
    dimValues.set(m[1], Number(m[2]));
  } else if (args[i] === '--allow-nan') {
    allowNaN = true;
  } else if (args[i] === '--profile') {
    profileDir = args[++i];
    if (!profileDir) usage();
    if (runs === 1) runs = 10;
  } else if (args[i] === '--runs') {
    runs = Number(args[++i]);
    if (!Number.isInteger(runs) || runs < 1) usage();
  } else if (args[i].startsWith('--')) {
    usage();
  } else {
    models.push(args[i]);
  }
}
if (models.length === 0) usage();

// mulberry32: a small deterministic 32-bit generator.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// float32 value -> IEEE half bits (round to nearest even; inputs here are in [-1, 1)).
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
function toHalfBits(x) {
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h += 1;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h += 1;
  return sign | h;
}

function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

function makeTensor(meta, index) {
  if (!meta.isTensor) throw new Error(`graph input ${meta.name} is not a tensor`);
  const shape = (meta.shape ?? []).map((d) => (typeof d === 'number' && d >= 0 ? d : dimValues.get(d) ?? 1));
  const n = shape.reduce((a, b) => a * b, 1);
  const rnd = generator(0x5eed + 7919 * index);
  const real = () => rnd() * 2 - 1;
  const int = () => Math.floor(rnd() * intRange);
  switch (meta.type) {
    case 'float32':
      return new ort.Tensor('float32', Float32Array.from({ length: n }, real), shape);
    case 'float64':
      return new ort.Tensor('float64', Float64Array.from({ length: n }, real), shape);
    case 'float16':
      return new ort.Tensor('float16', Uint16Array.from({ length: n }, () => toHalfBits(real())), shape);
    case 'int64':
      return new ort.Tensor('int64', BigInt64Array.from({ length: n }, () => BigInt(int())), shape);
    case 'uint64':
      return new ort.Tensor('uint64', BigUint64Array.from({ length: n }, () => BigInt(int())), shape);
    case 'int32':
      return new ort.Tensor('int32', Int32Array.from({ length: n }, int), shape);
    case 'uint32':
      return new ort.Tensor('uint32', Uint32Array.from({ length: n }, int), shape);
    case 'int16':
      return new ort.Tensor('int16', Int16Array.from({ length: n }, int), shape);
    case 'uint16':
      return new ort.Tensor('uint16', Uint16Array.from({ length: n }, int), shape);
    case 'int8':
      return new ort.Tensor('int8', Int8Array.from({ length: n }, int), shape);
    case 'uint8':
      return new ort.Tensor('uint8', Uint8Array.from({ length: n }, int), shape);
    case 'bool':
      return new ort.Tensor('bool', Uint8Array.from({ length: n }, () => (rnd() < 0.5 ? 0 : 1)), shape);
    default:
      throw new Error(`graph input ${meta.name}: unsupported element type ${meta.type}`);
  }
}

function summary(tensor) {
  const data = tensor.data;
  let sum = 0;
  let abs = 0;
  let nonFinite = 0;
  let nan = 0;
  for (let i = 0; i < data.length; ++i) {
    const v = tensor.type === 'float16' ? halfToNumber(data[i]) : Number(data[i]);
    if (!Number.isFinite(v)) {
      ++nonFinite;
      if (Number.isNaN(v)) ++nan;
      continue;
    }
    sum += v;
    abs += Math.abs(v);
  }
  return { sum, abs, nonFinite, nan };
}

let failed = false;
for (const file of models) {
  try {
    const stem = path.basename(file).replace(/\.onnx$/, '');
    const options = { logSeverityLevel: 3 };
    if (profileDir) {
      Object.assign(options, {
        enableProfiling: true,
        profileFilePrefix: path.join(profileDir, `${stem}.profile`),
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        executionMode: 'sequential',
        graphOptimizationLevel: 'basic',
      });
    }
    const session = await ort.InferenceSession.create(file, options);
    const feeds = {};
    session.inputMetadata.forEach((meta, i) => {
      feeds[meta.name] = makeTensor(meta, i);
    });
    let results;
    for (let r = 0; r < runs; ++r) results = await session.run(feeds);
    if (profileDir) {
      session.endProfiling();
      // ONNX Runtime names the trace <prefix>_<date and time>.json.
      const written = fs.readdirSync(profileDir).filter((f) => f.startsWith(`${stem}.profile_`) && f.endsWith('.json'));
      if (written.length !== 1) throw new Error(`expected one profile for ${stem} in ${profileDir}, found ${written.length}`);
      fs.renameSync(path.join(profileDir, written[0]), path.join(profileDir, `${stem}.json`));
    }
    console.log(`OK ${file}`);
    for (const name of session.outputNames) {
      const t = results[name];
      const s = summary(t);
      console.log(
        `  ${name} ${t.type} [${t.dims.join(',')}] sum=${s.sum.toPrecision(8)} abs=${s.abs.toPrecision(8)}` +
          (s.nonFinite ? ` nonfinite=${s.nonFinite}` : ''),
      );
      if (s.nan && !allowNaN) {
        console.error(`FAIL: ${file}: output ${name} has ${s.nan} NaN values`);
        failed = true;
      }
    }
    await session.release();
  } catch (e) {
    console.error(`FAIL: ${file}: ${e.message}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
