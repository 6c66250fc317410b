// A KV-cache decoder and its stages, run as a generator runs them (ONNX Runtime, CPU).
//
// usage: node run_decoder.mjs ORIGINAL.onnx STAGES_DIR [BATCH PROMPT_LENGTH TOKEN_STEPS]
//
// STAGES_DIR is a stage directory (pipeline.json) or a GenAI directory (genai_config.json, from
// --emit genai): then the stages run as its decoder-pipeline says (entries in order, each on the
// steps its run_on_prompt / run_on_token_gen allow), every entry key must be one GenAI accepts for
// a pipeline model (src/config.cpp), and is_lm_head must mark exactly the entry giving the logits.
//
// The original model runs a prompt step (no past: past length 0) and then TOKEN_STEPS steps of one
// token each, every step fed the presents of the step before as its past (present.<i>.<kind> ->
// past_key_values.<i>.<kind>), with attention_mask all ones over past + new tokens and position_ids
// counting on from the past. The stages of STAGES_DIR (pipeline.json) run the same steps: each stage
// takes the graph inputs it declares (its own layers' pasts among them) and the tensors earlier
// stages of the same step produced, and gives its own presents back for the next step. Every step's
// logits and presents must equal the original's (max |ref - got| / max(1, |ref|) <= 1e-5), and no
// stage may receive a KV tensor from another stage. Exits 0 only if all of that holds.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ort from 'onnxruntime-node';

const TOLERANCE = 1e-5;
const [originalPath, stagesDir, batchArg, promptArg, stepsArg] = process.argv.slice(2);
if (!originalPath || !stagesDir) {
  console.error('usage: node run_decoder.mjs ORIGINAL.onnx STAGES_DIR [BATCH PROMPT_LENGTH TOKEN_STEPS]');
  process.exit(2);
}
const batch = Number(batchArg ?? 2);
const promptLength = Number(promptArg ?? 5);
const tokenSteps = Number(stepsArg ?? 2);

function die(msg) {
  console.error(`FAIL: ${msg}`);
  process.exit(1);
}

// The keys ONNX Runtime GenAI accepts in a decoder-pipeline entry (PipelineModel_Element in
// src/config.cpp); any other is an error there.
const GENAI_KEYS = new Set(['filename', 'session_options', 'run_options', 'inputs', 'outputs', 'output_names_forwarder',
  'run_on_prompt', 'run_on_token_gen', 'is_lm_head', 'inherit_session_options', 'reset_session_idx']);
const genaiPath = path.join(stagesDir, 'genai_config.json');
const genai = fs.existsSync(genaiPath);
const options = { logSeverityLevel: 3 };
const original = await ort.InferenceSession.create(originalPath, options);
// Every stage as {index, file, inputs: [names], prompt, token}.
const plan = [];
if (genai) {
  const config = JSON.parse(fs.readFileSync(genaiPath, 'utf8'));
  if (config.model?.type !== 'decoder-pipeline') die(`${genaiPath}: model.type is not decoder-pipeline`);
  const pipeline = config.model.decoder?.pipeline;
  if (!Array.isArray(pipeline) || pipeline.length !== 1) die(`${genaiPath}: decoder.pipeline is not [ {...} ]`);
  let heads = 0;
  for (const [id, entry] of Object.entries(pipeline[0])) {
    for (const key of Object.keys(entry)) if (!GENAI_KEYS.has(key)) die(`${genaiPath}: ${id} has key ${key}, which GenAI refuses`);
    if (entry.is_lm_head !== entry.outputs.includes('logits')) die(`${id}: is_lm_head is ${entry.is_lm_head}`);
    heads += entry.is_lm_head ? 1 : 0;
    plan.push({ index: plan.length, file: entry.filename, inputs: entry.inputs, prompt: entry.run_on_prompt !== false,
      token: entry.run_on_token_gen !== false });
  }
  if (heads !== 1) die(`${genaiPath}: ${heads} entries are the LM head`);
} else {
  const manifest = JSON.parse(fs.readFileSync(path.join(stagesDir, 'pipeline.json'), 'utf8'));
  for (const stage of manifest.stages) {
    for (const input of stage.inputs) {
      if (input.from_stage !== null && /past|present/i.test(input.name)) {
        die(`stage ${stage.index} receives KV tensor ${input.name} from stage ${input.from_stage}`);
      }
    }
    plan.push({ index: stage.index, file: stage.file, inputs: stage.inputs.map((t) => t.name), prompt: true, token: true });
  }
}
const stages = [];
for (const stage of plan) {
  stages.push({ stage, session: await ort.InferenceSession.create(path.join(stagesDir, stage.file), options) });
}

// The past input each present output feeds at the next step.
const pastOf = (present) => present.replace(/^present/, 'past_key_values');
const presents = original.outputNames.filter((n) => n.startsWith('present'));
for (const p of presents) {
  if (!original.inputNames.includes(pastOf(p))) die(`no past input ${pastOf(p)} for output ${p}`);
}
const pastMeta = Object.fromEntries(original.inputMetadata.map((m) => [m.name, m]));

function ints(shape, at) {
  const n = shape.reduce((a, b) => a * b, 1);
  return new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(at(i))), shape);
}

function emptyPast(name) {
  // [batch, heads, 0, head size]: the model's own fixed sizes, the batch and a past of 0.
  const shape = pastMeta[name].shape.map((d, axis) => (axis === 0 ? batch : typeof d === 'number' ? d : 0));
  return new ort.Tensor('float32', new Float32Array(0), shape);
}

function feedsFor(step, past, pastLength) {
  const seq = step === 0 ? promptLength : 1;
  const feeds = {
    input_ids: ints([batch, seq], (i) => (i * 7 + step * 13 + 3) % 90),
    attention_mask: ints([batch, pastLength + seq], () => 1),
    position_ids: ints([batch, seq], (i) => pastLength + (i % seq)),
  };
  for (const p of presents) feeds[pastOf(p)] = past[p] ?? emptyPast(pastOf(p));
  return feeds;
}

function compare(ref, got) {
  if (!got) return { ok: false, why: 'not produced' };
  if (ref.dims.join(',') !== got.dims.join(',')) return { ok: false, why: `shape [${got.dims}] != [${ref.dims}]` };
  let maxErr = 0;
  for (let i = 0; i < ref.data.length; ++i) {
    const x = Number(ref.data[i]);
    const y = Number(got.data[i]);
    maxErr = Math.max(maxErr, x === y ? 0 : Math.abs(x - y) / Math.max(1, Math.abs(x)));
  }
  return { ok: maxErr <= TOLERANCE, why: `max_rel_err=${maxErr.toExponential(3)}` };
}

let failures = 0;
let compared = 0;
let pastRef = {};
let pastStages = {};
let pastLength = 0;
for (let step = 0; step <= tokenSteps; ++step) {
  const label = step === 0 ? `prompt (${promptLength} tokens)` : `token step ${step}`;
  const feeds = feedsFor(step, pastRef, pastLength);
  const reference = await original.run(feeds);
  // The stages: graph inputs from this step's feeds (their pasts from their own earlier presents).
  const stageFeeds = feedsFor(step, pastStages, pastLength);
  const values = new Map(Object.entries(stageFeeds));
  for (const { stage, session } of stages) {
    if (!(step === 0 ? stage.prompt : stage.token)) continue;
    const inputs = {};
    for (const name of stage.inputs) {
      const v = values.get(name);
      if (v === undefined) die(`${label}: stage ${stage.index} input ${name} has no value`);
      inputs[name] = v;
    }
    const out = await session.run(inputs);
    for (const [name, t] of Object.entries(out)) values.set(name, t);
  }
  for (const name of original.outputNames) {
    const r = compare(reference[name], values.get(name));
    ++compared;
    if (!r.ok) {
      ++failures;
      console.log(`MISMATCH ${label} ${name}: ${r.why}`);
    }
  }
  console.log(`ok ${label}: ${original.outputNames.length} outputs compared`);
  pastRef = Object.fromEntries(presents.map((p) => [p, reference[p]]));
  pastStages = Object.fromEntries(presents.map((p) => [p, values.get(p)]));
  pastLength += step === 0 ? promptLength : 1;
}
const summary = `${path.basename(originalPath)}: ${plan.length} stages${genai ? ' (GenAI pipeline)' : ''}, ${tokenSteps + 1} steps, ${compared} outputs`;
if (failures > 0) {
  console.log(`FAIL ${summary}: ${failures} mismatch(es)`);
  process.exit(1);
}
console.log(`PASS ${summary}`);
