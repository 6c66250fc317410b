// End-to-end check of onnx-placer outputs with ONNX Runtime (CPU).
//
// usage: node run_stages.mjs ORIGINAL.onnx ANNOTATED.onnx STAGES_DIR [--dims SETS]
//
// SETS: input dimension values to run at, "name=value,name=value/name=value,..." (one set per '/').
// Without --dims, every symbolic input dimension is 1. With it, (a)-(c) run once per set, on the
// same sessions: stages placed at one value of a dimension must run at any other.
//
//  (a) runs ORIGINAL on a deterministic input (reference outputs);
//  (b) loads ANNOTATED with and without the session option
//      session.layer_assignment_settings = STAGES_DIR/pipeline.json's
//      "layer_assignment_settings", runs it and compares with (a);
//  (c) runs STAGES_DIR's stage sub-models in manifest order, wiring tensors by
//      name, and compares the original graph outputs with (a) -- and also every
//      tensor passed between stages, against the same tensor computed by the
//      original model (run once more with those tensors added as graph
//      outputs). The test models' weights are all 0.01, which makes most final
//      outputs independent of the input; the boundary tensors usually are not.
//
// Comparison: max over elements of |ref - got| / max(1, |ref|) must be <= 1e-5.
// Exits 0 only if every session loads and every output matches.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ort from 'onnxruntime-node';

const TOLERANCE = 1e-5;

function die(msg) {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
}

const [originalPath, annotatedPath, stagesDir, dimsFlag, dimsSpec] = process.argv.slice(2);
if (!originalPath || !annotatedPath || !stagesDir || (dimsFlag !== undefined && (dimsFlag !== '--dims' || !dimsSpec))) {
  console.error('usage: node run_stages.mjs ORIGINAL.onnx ANNOTATED.onnx STAGES_DIR [--dims SETS]');
  process.exit(2);
}
// The dimension sets to run at: [{}] (every symbolic dimension 1) without --dims.
const dimSets = (dimsSpec ?? '').split('/').map((set) => {
  const dims = {};
  for (const pair of set.split(',').filter((p) => p.length > 0)) {
    const [name, value] = pair.split('=');
    if (!name || !/^\d+$/.test(value ?? '')) {
      console.error(`bad --dims entry '${pair}' (want name=value)`);
      process.exit(2);
    }
    dims[name] = Number(value);
  }
  return dims;
});

const manifestPath = path.join(stagesDir, 'pipeline.json');
let manifest;
try {
  manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
} catch (e) {
  die(`cannot read ${manifestPath}: ${e.message}`);
}
if (!Array.isArray(manifest.stages) || manifest.stages.length === 0) {
  die(`${manifestPath}: no stages`);
}

// Quiet ORT's warnings (e.g. unused initializers in the zoo models); errors
// still surface as exceptions. Weight pre-packing off: at session creation it
// copies every constant weight of a MatMul, Gemm or Conv into the kernel's own
// layout, a third of these runs' time on the bundled models (VGG-16 on two
// accelerators: 22.4 s against 14.2 s), for speed on many runs where each
// session here runs once or twice. The kernels pack the same weights the same
// way on every run instead, and every session here runs with the same options,
// so the comparisons stay like for like.
const baseOptions = { logSeverityLevel: 3, extra: { session: { disable_prepacking: '1' } } };

async function createSession(file, what, options = baseOptions) {
  try {
    return await ort.InferenceSession.create(file, options);
  } catch (e) {
    die(`ONNX Runtime rejected ${what} (${file}): ${e.message}`);
  }
}

async function run(session, feeds, what) {
  try {
    return await session.run(feeds);
  } catch (e) {
    die(`ONNX Runtime failed to run ${what}: ${e.message}`);
  }
}

// ---- deterministic inputs -------------------------------------------------

function concreteShape(shape, dims = {}) {
  // Symbolic (string) dims take their --dims value, else 1; unknown (negative / missing) ones 1.
  return (shape ?? []).map((d) => (typeof d === 'number' && d >= 0 ? d : typeof d === 'string' && d in dims ? dims[d] : 1));
}

// Integer inputs take values below this (ORT_INT_RANGE, default 100): token ids, positions and
// segment ids must index tables that small fixtures keep small.
const intRange = Number(process.env.ORT_INT_RANGE ?? 100);

function makeTensor(meta, variant = 0, dims = {}) {
  if (!meta.isTensor) die(`graph input ${meta.name} is not a tensor`);
  const shape = concreteShape(meta.shape, dims);
  const n = shape.reduce((a, b) => a * b, 1);
  const floatAt = (i) => (((i + variant * 13) * 7919) % 1000) / 1000 - 0.5;
  switch (meta.type) {
    case 'float32':
      return new ort.Tensor('float32', Float32Array.from({ length: n }, (_, i) => floatAt(i)), shape);
    case 'float64':
      return new ort.Tensor('float64', Float64Array.from({ length: n }, (_, i) => floatAt(i)), shape);
    case 'int64':
      return new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt((i + variant * 13) % intRange)), shape);
    case 'int32':
      return new ort.Tensor('int32', Int32Array.from({ length: n }, (_, i) => (i + variant * 13) % intRange), shape);
    case 'int8':
      return new ort.Tensor('int8', Int8Array.from({ length: n }, (_, i) => i % 100), shape);
    case 'uint8':
      return new ort.Tensor('uint8', Uint8Array.from({ length: n }, (_, i) => i % 100), shape);
    case 'bool':
      return new ort.Tensor('bool', Uint8Array.from({ length: n }, (_, i) => i % 2), shape);
    default:
      die(`graph input ${meta.name}: unsupported element type ${meta.type}`);
  }
}

// ---- comparison -----------------------------------------------------------

// ONNX Runtime hands float16 data over as the raw 16-bit patterns (Node has no Float16Array).
function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

function numbers(tensor) {
  return tensor.type === 'float16' ? Float64Array.from(tensor.data, halfToNumber) : tensor.data;
}

function compare(ref, got) {
  if (ref.type !== got.type) return { ok: false, why: `type ${got.type} != ${ref.type}` };
  if (ref.dims.join(',') !== got.dims.join(',')) {
    return { ok: false, why: `shape [${got.dims}] != [${ref.dims}]` };
  }
  const a = numbers(ref);
  const b = numbers(got);
  let maxErr = 0;
  let worst = -1;
  for (let i = 0; i < a.length; ++i) {
    const x = Number(a[i]);
    const y = Number(b[i]);
    let err;
    if (Number.isNaN(x) || Number.isNaN(y)) {
      err = Number.isNaN(x) && Number.isNaN(y) ? 0 : Infinity;
    } else if (x === y) {
      err = 0; // covers equal infinities
    } else {
      err = Math.abs(x - y) / Math.max(1, Math.abs(x));
    }
    if (!(err <= maxErr)) {
      maxErr = err;
      worst = i;
    }
  }
  const ok = maxErr <= TOLERANCE;
  const why = worst >= 0 ? `worst at flat index ${worst}: ref ${a[worst]} got ${b[worst]}` : '';
  return { ok, maxErr, why };
}

let failures = 0;
function report(label, name, ref, got) {
  if (got === undefined) {
    console.log(`MISMATCH ${label} ${name}: not produced`);
    ++failures;
    return;
  }
  const r = compare(ref, got);
  const err = r.maxErr === undefined ? '' : ` max_rel_err=${r.maxErr.toExponential(3)}`;
  console.log(`${r.ok ? 'ok      ' : 'MISMATCH'} ${label} ${name} [${ref.dims}]${err}${r.ok ? '' : ' ' + r.why}`);
  if (!r.ok) ++failures;
}

// ---- sessions (one each, run at every dimension set) -----------------------

const original = await createSession(originalPath, 'original model');
const outputNames = original.outputNames;
const settings = manifest.layer_assignment_settings;
if (typeof settings !== 'string' || settings.length === 0) {
  die(`${manifestPath}: missing "layer_assignment_settings" string`);
}
const annotatedPlain = await createSession(annotatedPath, 'annotated model (no layer assignment option)');
const annotatedAssigned = await createSession(
  annotatedPath,
  `annotated model with session.layer_assignment_settings="${settings}"`,
  { ...baseOptions, extra: { session: { ...baseOptions.extra.session, layer_assignment_settings: settings } } },
);

// ---- the original model with every stage-boundary tensor as a graph output --
//
// Minimal protobuf surgery: append GraphProto.output (field 12) entries to
// ModelProto.graph (field 7); everything else is copied byte for byte.

function encodeVarint(n) {
  const bytes = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    bytes.push(b);
  } while (v > 0n);
  return Buffer.from(bytes);
}

function readVarint(buf, pos) {
  let v = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++];
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [v, pos];
    shift += 7n;
  }
}

function lengthDelimited(field, payload) {
  return Buffer.concat([encodeVarint((field << 3) | 2), encodeVarint(payload.length), payload]);
}

function valueInfo(name, elemType) {
  // ValueInfoProto{name=1, type=2: TypeProto{tensor_type=1: Tensor{elem_type=1}}}
  const tensor = Buffer.concat([encodeVarint((1 << 3) | 0), encodeVarint(elemType)]);
  const type = lengthDelimited(1, tensor);
  return Buffer.concat([lengthDelimited(1, Buffer.from(name, 'utf8')), lengthDelimited(2, type)]);
}

function withExtraOutputs(modelBytes, extra) {
  const parts = [];
  let pos = 0;
  let found = false;
  while (pos < modelBytes.length) {
    const start = pos;
    let key;
    [key, pos] = readVarint(modelBytes, pos);
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      [, pos] = readVarint(modelBytes, pos);
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 5) {
      pos += 4;
    } else if (wire === 2) {
      let len;
      [len, pos] = readVarint(modelBytes, pos);
      const end = pos + Number(len);
      if (field === 7) {
        found = true;
        const added = extra.map((t) => lengthDelimited(12, valueInfo(t.name, t.element_type)));
        parts.push(lengthDelimited(7, Buffer.concat([modelBytes.subarray(pos, end), ...added])));
        pos = end;
        continue;
      }
      pos = end;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire}`);
    }
    parts.push(modelBytes.subarray(start, pos));
  }
  if (!found) throw new Error('no graph in model');
  return Buffer.concat(parts);
}

const boundary = [];
{
  const seen = new Set(outputNames);
  for (const stage of manifest.stages) {
    for (const out of stage.outputs) {
      if (!seen.has(out.name)) {
        seen.add(out.name);
        boundary.push(out);
      }
    }
  }
}
let probe = null;
if (boundary.length > 0) {
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-stages-'));
  const probePath = path.join(tmpDir, 'probe.onnx');
  try {
    const originalBytes = fs.readFileSync(originalPath);
    // External data resolves from the probe's directory: the data files the model names (the files
    // beside it whose names its bytes hold) are hard-linked there, or copied across file systems.
    const modelText = originalBytes.toString('latin1');
    const originalDir = path.dirname(originalPath);
    for (const entry of fs.readdirSync(originalDir, { withFileTypes: true })) {
      if (!entry.isFile() || entry.name.endsWith('.onnx') || !modelText.includes(entry.name)) continue;
      try {
        fs.linkSync(path.join(originalDir, entry.name), path.join(tmpDir, entry.name));
      } catch {
        fs.copyFileSync(path.join(originalDir, entry.name), path.join(tmpDir, entry.name));
      }
    }
    fs.writeFileSync(probePath, withExtraOutputs(originalBytes, boundary));
    probe = await createSession(probePath, 'original model with stage-boundary tensors as outputs');
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }
}
const stageSessions = [];
const sameSet = (a, b) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
for (const stage of manifest.stages) {
  const file = path.join(stagesDir, stage.file);
  const what = `stage ${stage.index} (${stage.label}, ${stage.file})`;
  const session = await createSession(file, what);
  const declaredIn = stage.inputs.map((t) => t.name);
  const declaredOut = stage.outputs.map((t) => t.name);
  if (!sameSet(declaredIn, session.inputNames)) {
    die(`${what}: manifest inputs [${declaredIn}] != model inputs [${session.inputNames}]`);
  }
  if (!sameSet(declaredOut, session.outputNames)) {
    die(`${what}: manifest outputs [${declaredOut}] != model outputs [${session.outputNames}]`);
  }
  stageSessions.push({ stage, session, what });
}

// The shape a stage output must have: the manifest's "dims" where it gives them (a symbolic entry
// matches any size), else its "shape" (the placed dimensions' shape, for a tensor that never varies).
function shapeMatches(meta, dims) {
  const declared = meta.dims ?? meta.shape;
  if (!declared) return true;
  return declared.length === dims.length && declared.every((d, i) => typeof d === 'string' || d === dims[i]);
}

let boundaryCount = 0;
let sensitive = 0;
for (const dims of dimSets) {
  const at = Object.keys(dims).length > 0 ? ` at ${Object.entries(dims).map(([k, v]) => `${k}=${v}`).join(',')}` : '';
  // ---- (a) reference run
  const feeds = {};
  for (const meta of original.inputMetadata) feeds[meta.name] = makeTensor(meta, 0, dims);
  const reference = await run(original, feeds, `original model${at}`);

  // ---- (b) annotated model, with and without layer assignment
  for (const [label, session] of [['annotated', annotatedPlain], ['annotated+layers', annotatedAssigned]]) {
    const out = await run(session, feeds, `${label} model${at}`);
    for (const name of outputNames) report(label + at, name, reference[name], out[name]);
  }

  // ---- the original model with every stage-boundary tensor as a graph output
  let boundaryReference = {};
  let boundaryAlternative = {};
  if (probe) {
    boundaryReference = await run(probe, feeds, `original model with stage-boundary outputs${at}`);
    // A second, different input: tells whether a comparison can see anything.
    const altFeeds = {};
    for (const meta of original.inputMetadata) altFeeds[meta.name] = makeTensor(meta, 1, dims);
    boundaryAlternative = await run(probe, altFeeds, `original model on a second input${at}`);
    // Within the tolerance, not bit for bit: a tensor inside a pattern ONNX Runtime fuses (a
    // LayerNormalization written out as Sub/Pow/ReduceMean/...) stops the fusion when it becomes an
    // output, which changes the rounding of everything after it.
    for (const name of outputNames) {
      if (!compare(boundaryReference[name], reference[name]).ok) {
        die(`original model with extra outputs disagrees with itself on ${name}${at}`);
      }
    }
  }

  // ---- (c) the pipeline stages
  const values = new Map(Object.entries(feeds));
  for (const { stage, session, what } of stageSessions) {
    const stageFeeds = {};
    for (const input of stage.inputs) {
      if (input.from_stage === null) {
        if (!(input.name in feeds)) die(`${what}: input ${input.name} has from_stage null but is not a graph input`);
      } else if (!(input.from_stage < stage.index)) {
        die(`${what}: input ${input.name} comes from stage ${input.from_stage}, not an earlier stage`);
      }
      const v = values.get(input.name);
      if (v === undefined) die(`${what}: input ${input.name} was not produced by stage ${input.from_stage}`);
      stageFeeds[input.name] = v;
    }
    const out = await run(session, stageFeeds, what + at);
    for (const name of stage.outputs.map((t) => t.name)) {
      const t = out[name];
      const meta = stage.outputs.find((o) => o.name === name);
      if (!shapeMatches(meta, t.dims)) {
        die(`${what}${at}: output ${name} has shape [${t.dims}], manifest says [${meta.dims ?? meta.shape}]`);
      }
      values.set(name, t);
    }
  }
  const dependence = (name) => {
    const alt = boundaryAlternative[name];
    if (alt === undefined) return '';
    return compare(boundaryReference[name], alt).maxErr > 0 ? '(input-dependent)' : '(input-independent)';
  };
  for (const name of outputNames) report(`stages${dependence(name)}${at}`, name, reference[name], values.get(name));
  for (const t of boundary) {
    const ref = boundaryReference[t.name];
    const alt = boundaryAlternative[t.name];
    const changes = alt !== undefined && compare(ref, alt).maxErr > 0;
    if (changes) ++sensitive;
    ++boundaryCount;
    report(`boundary(${changes ? 'input-dependent' : 'input-independent'})${at}`, t.name, ref, values.get(t.name));
  }
}

const summary =
  `${path.basename(originalPath)}: ${manifest.stages.length} stages, ${outputNames.length} output(s), ` +
  `${boundary.length} boundary tensor(s) (${sensitive} input-dependent of ${boundaryCount} compared)` +
  (dimsSpec ? `, at ${dimSets.length} dimension set(s)` : '');
if (failures > 0) {
  console.log(`FAIL ${summary}: ${failures} mismatch(es)`);
  process.exit(1);
}
console.log(`PASS ${summary}`);
