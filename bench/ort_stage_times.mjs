// ONNX Runtime side of bench/runtime_balance: profiles a model, or times a model and its stage
// sub-models, on the CPU with one intra-op thread per session.
//
//   node ort_stage_times.mjs profile MODEL.onnx OUT.json RUNS
//       runs the model RUNS times (after two warm-up runs) with profiling on (graph optimisation
//       level 'all', as the timed sessions run) and writes ONNX Runtime's trace to OUT.json.
//   node ort_stage_times.mjs time ROUNDS MODEL.onnx STAGES_DIR...
//       one session for the model and one per stage of each STAGES_DIR (pipeline.json's order; a
//       stage's inputs are the graph inputs and earlier stages' outputs, computed once); then ROUNDS
//       rounds, each running the model and every stage once in the same order, so that a noisy
//       machine slows all of them alike; prints {"whole_ms": t, "splits": [[t, ...], ...]} with
//       each session's fastest round.
//
// Inputs are deterministic; symbolic or unknown dimensions are 1 (as `place` assumes without --dim).
// ONNX Runtime comes from tests/ort/node_modules (npm ci --ignore-scripts there).

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '..', 'tests', 'ort', 'package.json'));
let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  console.error(`ort_stage_times: ONNX Runtime is not installed (cd tests/ort && npm ci --ignore-scripts): ${e.message}`);
  process.exit(1);
}

const sessionOptions = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
  logSeverityLevel: 3,
};

function die(message) {
  console.error(`ort_stage_times: ${message}`);
  process.exit(1);
}

function inputTensor(meta) {
  const shape = (meta.shape ?? []).map((d) => (typeof d === 'number' && d >= 0 ? d : 1));
  const n = shape.reduce((a, b) => a * b, 1);
  switch (meta.type) {
    case 'float32':
      return new ort.Tensor('float32', Float32Array.from({ length: n }, (_, i) => ((i * 7919) % 1000) / 1000 - 0.5), shape);
    case 'int64':
      return new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(i % 100)), shape);
    case 'int32':
      return new ort.Tensor('int32', Int32Array.from({ length: n }, (_, i) => i % 100), shape);
    default:
      die(`input ${meta.name}: unsupported element type ${meta.type}`);
  }
}

async function open(file, options = sessionOptions) {
  try {
    return await ort.InferenceSession.create(file, options);
  } catch (e) {
    die(`cannot load ${file}: ${e.message}`);
  }
}

function feedsOf(session) {
  const feeds = {};
  for (const meta of session.inputMetadata) feeds[meta.name] = inputTensor(meta);
  return feeds;
}

async function profile(model, out, runs) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-'));
  try {
    const session = await open(model, { ...sessionOptions, enableProfiling: true, profileFilePrefix: path.join(dir, 'trace') });
    const feeds = feedsOf(session);
    for (let i = 0; i < runs; ++i) await session.run(feeds);
    session.endProfiling();
    const written = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    if (written.length !== 1) die(`expected one trace from ONNX Runtime in ${dir}, found ${written.length}`);
    fs.copyFileSync(path.join(dir, written[0]), out);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function time(rounds, model, dirs) {
  const whole = await open(model);
  const feeds = feedsOf(whole);
  const splits = [];
  for (const dir of dirs) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'pipeline.json'), 'utf8'));
    const env = { ...feeds };
    const stages = [];
    for (const stage of manifest.stages) {
      const session = await open(path.join(dir, stage.file));
      const stageFeeds = {};
      for (const name of session.inputNames) {
        if (!(name in env)) die(`${dir}/${stage.file}: input ${name} comes from no earlier stage`);
        stageFeeds[name] = env[name];
      }
      Object.assign(env, await session.run(stageFeeds));
      stages.push({ session, feeds: stageFeeds, best: Infinity });
    }
    splits.push(stages);
  }
  const clock = async (session, stageFeeds) => {
    const start = process.hrtime.bigint();
    await session.run(stageFeeds);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  for (let warm = 0; warm < 2; ++warm) {
    await whole.run(feeds);
    for (const stages of splits) for (const s of stages) await s.session.run(s.feeds);
  }
  let best = Infinity;
  for (let r = 0; r < rounds; ++r) {
    best = Math.min(best, await clock(whole, feeds));
    for (const stages of splits) {
      for (const s of stages) s.best = Math.min(s.best, await clock(s.session, s.feeds));
    }
  }
  console.log(JSON.stringify({ whole_ms: best, splits: splits.map((stages) => stages.map((s) => s.best)) }));
}

const [mode, ...args] = process.argv.slice(2);
if (mode === 'profile' && args.length === 3) {
  await profile(args[0], args[1], Number(args[2]));
} else if (mode === 'time' && args.length >= 2) {
  await time(Number(args[0]), args[1], args.slice(2));
} else {
  die('usage: ort_stage_times.mjs profile MODEL OUT RUNS | time ROUNDS MODEL STAGES_DIR...');
}
