// onnx-placer command line: argument parsing and output, nothing else. The work is done by the
// libraries (onnx_io for files, passes for the pipeline, solvers for the search).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "api/workload.h"
#include "onnx_placer/version.h"
#include "core/evaluate.h"
#include "core/latency.h"
#include "core/synthetic.h"
#include "onnx_io/json_text.h"
#include "onnx_io/workload_json.h"
#include "core/replicas.h"
#include "passes/partition.h"
#include "passes/pass_manager.h"
#include "solvers/bounds/certificate.h"
#include "tools/bound_command.h"
#include "tools/calibrate_command.h"
#include "tools/compare_command.h"
#include "tools/cli_common.h"
#include "tools/interrupt.h"
#include "tools/model_commands.h"
#include "tools/picture_outputs.h"
#include "tools/map_command.h"
#include "tools/simulate_command.h"
#include "tools/topology_command.h"

namespace placer::cli {
namespace {

constexpr const char* kVersion = ONNX_PLACER_VERSION;

const char* kMainHelp = R"(onnx-placer: place the operators of a DNN graph on accelerators and CPUs

Usage:
  onnx-placer place MODEL.onnx [options]          optimal pipelined placement of an ONNX model
  onnx-placer inspect MODEL.onnx [options]        operators, weights, FLOPs, shapes of a model
  onnx-placer calibrate MODEL.onnx --profile TRACE.json -o SPEC.json [options]
                                                  fit a device specification to measured times
  onnx-placer export-workload MODEL.onnx [options]
                                                  the model's placement problem as a workload
  onnx-placer partition WORKLOAD.json [options]   optimal pipelined placement of a workload
  onnx-placer evaluate WORKLOAD.json --split SPLIT.json [options]
                                                  max-load of a given placement
  onnx-placer bound WORKLOAD.json|MODEL.onnx [options]
                                                  a proven lower bound on the optimum
  onnx-placer generate [options]                  a random computation graph as a workload
  onnx-placer topology SHAPE|PRESET [options]     a machine's devices and links as a device
                                                  specification (mesh, torus, cluster, random)
  onnx-placer map STAGES.json --topology T [options]
                                                  the device of each pipeline stage on a machine
  onnx-placer simulate MAPPED.json --topology T [options]
                                                  a mapped pipeline's step on the machine's links
  onnx-placer compare INPUT... --out-dir DIR [options]
                                                  every algorithm on every model of a zoo, into
                                                  Markdown, JSON, JUnit XML and SVG reports;
                                                  against an earlier run with --baseline
  onnx-placer help [COMMAND]                      this text, or a command's options
  onnx-placer --version

Workloads use the JSON format of Tarnawski et al. (NeurIPS 2020); placements are written in the
same format as their reference tool: {"maxLoad", "fpgas": [{"load", "nodes"}], "cpus": [...]}.

Exit status: 0 success; 1 bad input (unreadable or malformed file, bad field, cycle, costs that
overflow, ...) or an output that cannot be written; 2 bad command line; 3 infeasible instance or
invalid split; 4 solver failure (too many ideals, no split within the time limit, internal error);
5 (compare) a regression against the baseline; 130 or 143 interrupted by SIGINT or SIGTERM. A run
writes all of its outputs or none: on an error or a signal, nothing it wrote remains.
)";

const char* kPartitionHelp = R"(Usage: onnx-placer partition WORKLOAD.json [options]

Finds the placement with the lowest max-load (time per sample of the pipeline; lower is higher
throughput), or with --objective latency the lowest single-sample latency (Tarnawski et al. 2020,
§4): every accelerator and CPU core holds one contiguous block of the graph unless a non-contiguous
algorithm is chosen.

Options:
  --objective throughput|latency
                          what to minimise: max-load (default) or single-sample latency
  --algorithm A           auto (default): DPL's split and cluster-dp's as quick upper bounds, then
                            the exact DP (optimal among contiguous splits), which goes on past half
                            the time limit while its own estimate says it finishes in time, otherwise
                            SliceGraph's order search with the rest of the time; it stops as soon as
                            a split is within --target-ratio of the simple bound. The output's
                            "solver" says which answered and why. With --objective latency: ip's
                            path (the greedy's and DPL's splits as starts, then the integer program
                            within the time limit);
                          dp: exact DP over ideals (optimal contiguous split);
                          dpl: DP over a DFS linearisation, polynomial but not always optimal;
                          slicegraph: optimal slicings of many topological orders (--orders),
                            never worse than DPL, no optimality proof;
                          cluster-dp: the exact DP on operator clusters (Parmesan: --cluster-target,
                            --alpha), its split refined on the operators; fast, no optimality proof;
                          ip: integer program (--mip-solver), contiguous splits;
                          ip-noncontig: integer program, non-contiguous splits (a device may hold
                            several pieces; for latency at most --subgraphs-per-accelerator);
                          greedy: fill accelerators in topological order (latency baseline, App. F)
                          Baselines of the paper's §6 (no optimality proof):
                          one-accelerator: the whole model on one accelerator (infeasible when it
                            does not fit; throughput or latency);
                          local-search: best single-node moves from random splits to a local
                            optimum, best of --restarts starts from --seed (non-contiguous);
                          pipedream: PipeDream's DP after contracting branchings into a path;
                          scotch: the Scotch graph partitioner over the accelerators; its split
                            may exceed memory: "memory_violation_bytes" in the output says by
                            how much (then it is no valid placement)
                          With --objective latency, dp and dpl score the max-load DP's split.
  --target-ratio R        auto stops once its split is proven within R of the optimum (default 1:
                          proven optimal among contiguous splits, as the exact DP proves it)
  --cluster-target K      clusters cluster-dp (and the cluster pass) leave (default: 16 per device,
                          at least 64; cluster-dp then doubles them while its DP stays fast)
  --alpha A               weight of communication in a merge's score, c(U) + c(V) - A * comm(U, V)
                          (Parmesan's default 0.001)
  --time-limit S          seconds for the whole solve (default 8 for auto, no limit otherwise):
                          auto and slicegraph answer with the best split found by then; an
                          integer program stops with the best split found, its proven bound and
                          the gap; the exact DP stops and answers with DPL's split, status
                          time-limit
  --orders SPEC           slicegraph's (and auto's) orders, comma-separated: random:N (N random
                          priority vectors), brkga:POP:GENS (genetic search over priorities),
                          mla and mla-weighted (least linear-arrangement orders; mla:POP:GENS);
                          default mla-weighted,mla,random:1000,brkga:100:100
  --seed N                random seed of the order search, local-search and scotch (default 1):
                          the same seed gives the same split, whatever --threads, unless the time
                          limit cuts the search
  --restarts N            local-search's random starts (default 10, as in the paper)
  --threads N             threads for the order search and the exact DP (default: every core);
                          the answer does not depend on it
  --mip-gap G             stop an integer program once the relative gap is at most G (default 0)
  --mip-solver glpk|cbc   what solves the integer programs (ip, ip-noncontig, latency auto) and the
                          certificate's programs: GLPK (default) or COIN-OR CBC, when this build
                          has it; the output's "solver" names it ("mipSolver") when an integer
                          program answered
  --subgraphs-per-accelerator Q
                          pieces per accelerator for ip-noncontig with --objective latency
                          (default 2)
  --gpipe                 training throughput as max FW + max BW (GPipe schedule, App. A) instead
                          of max (FW + BW); needs ip or ip-noncontig
  --replicas auto|R       run each accelerator stage on R accelerators (data parallel): the
                          accelerators form floor(K/R) stages, each replica takes every R-th sample,
                          so a stage's time per sample is its load / R (a training workload's adds
                          its all-reduce: --samples-per-step) and its memory is each replica's.
                          auto tries every stage count with the most replicas that form it (every
                          R for training), sharing the time limit, and keeps the fastest; the
                          output's "replicas" lists them. Default 1
  --topology FILE|PRESET  the machine as a topology (as for place): its accelerator count and
                          memory replace the workload's, and the solved stages are mapped onto its
                          devices over its links (the output's "mapping"; each accelerator names its
                          "device"). Needs --time-unit; a machine of several kinds is refused
  --time-unit S           the seconds of one unit of the workload's times (its times have no stated
                          unit; the mapping adds compute to link transfers in seconds, replicas of
                          a training workload add their all-reduce). The edges' "size" gives each
                          tensor's bytes
  --samples-per-step N, --allreduce-bandwidth B
                          replicas of a training workload: each replica also all-reduces its
                          stage's weight gradients (the nodes' "weightBytes") once per step of N
                          samples over links of B bytes/s (default with --topology: its narrowest
                          route between two devices): 2(R-1)/R x bytes / (B N) seconds per sample
                          added to the stage's time / R. Needs --time-unit
  --map optimal|consecutive, --map-cost p2p|allreduce|auto, --map-time-limit S
                          the mapping search, as for place
  --overlap none|max|duplex
                          accelerator load: in + compute + out (none, default), max(compute,
                          in + out) (max), or max(in, compute, out) (duplex)
  --accelerators K        number of accelerators (overrides the workload's maxFPGAs)
  --cpus L                number of CPU cores (overrides maxCPUs)
  --memory BYTES          memory per accelerator (overrides maxSizePerFPGA)
  --shared-weights replicate|colocate|auto
                          weights listed under "sharedWeights" (read by several nodes): copied onto
                          every accelerator that holds a reader, each copy counted in its memory
                          (replicate), or their readers kept on one device (colocate). auto
                          (default): replicate for inference, colocate for training (a replicated
                          weight's gradients would need combining, which is not modelled; replicate
                          is refused there)
  -o, --output OUT.json   write the placement here (atomically) instead of standard output
  --pipeline PASSES       pass pipeline (default: subdivide,colocate,orphans,scc,
                          fold-leaves,partition=auto,certify,expand; see passes/pass_manager.h for
                          the others; without certify there is no certificate); --algorithm sets
                          the partition pass's argument, whatever the pipeline writes there;
                          without it the pipeline's own partition pass decides (dp for a bare
                          "partition")
  --pass-plugin LIB.so    load a pass plugin (repeatable; include/onnx_placer/plugin.h) whose
                          passes --pipeline can name
  --max-ideals N          the exact DP refuses graphs with more than N ideals (default 4000000;
                          auto then searches orders instead)
  --verify-each           check graph invariants after every pass
  --log                   print each pass's node counts and time on standard error
  -q, --quiet             no progress or summary on standard error (progress is one line updated
                          in place on a terminal, plain lines at most once a second otherwise)

Pictures (written with the output, all or none; README.md, "Pictures"):
)" PLACER_PICTURE_OPTIONS_HELP R"(
The output has "maxLoad" (or "totalLatency") and "status" (optimal; feasible when a heuristic or a
time-limited integer program answered; time-limit when the exact DP ran out of time and DPL's split
answers), "bound" (the solver's own proven lower bound) and "gap", the certificate: "upperBound"
(the split's value), "lowerBound" (the best bound proven for the optimum of "boundSpace":
contiguous or any), "boundMethod" (dp, ip, ip-noncontig, simple, cpu-block, pooled-dp, packing
or bottleneck), "ratio" (upper / lower; 1 when proven optimal) and, for a contiguous space, "anyLowerBound" and "anyBoundMethod"
(over every placement); and "solver": the algorithm asked for, the one that answered ("chosen", for
auto), how ("how"), and its counts. When the split is not proven optimal (max-load), 10% of the time
limit is kept for the certificate: the exact DP within half of it (dpl, slicegraph, ip), so that
where it finishes the split is measured against the contiguous optimum, then with CPU cores the CPU
blocks' bound, where the DP did not finish the DP with floating operators pooled (with what is left
of the time limit), for a non-contiguous split (ip-noncontig, local-search) the largest operators'
packing, and the bottleneck bound (README.md, "Certificates").
)";

const char* kEvaluateHelp = R"(Usage: onnx-placer evaluate WORKLOAD.json --split SPLIT.json [options]

Computes the max-load (or with --objective latency the single-sample latency) of a given split (in
the placement format; loads in it are ignored). Nodes the split does not list follow their
colocation class, so a forward-only expert split can be evaluated on a training workload. Prints
the split with its loads, "valid" and any "violations" (memory, unsupported nodes, separated
colocation classes, and for throughput a non-contiguous pipeline); exits 3 if it is invalid. For
latency, an accelerator whose nodes are not contiguous runs them as several subgraphs in turn; a
split whose subgraphs wait for each other cannot run and exits 3.

Options:
  --split SPLIT.json      the split to evaluate (required)
  --objective throughput|latency
  --overlap none|max|duplex, --accelerators K, --cpus L, --memory BYTES, --shared-weights M
                          as for partition
  -o, --output OUT.json   write the result here instead of standard output
  -q, --quiet             no summary on standard error
)";

int runPartition(const Args& args) {
  if (args.positional.size() != 1) return usageError("partition takes one WORKLOAD.json", "partition");
  const std::string workload = args.positional.front();
  api::PlaceOptions options;
  if (auto error = parseRunOptions(args, options)) return usageError(*error, "partition");
  options.gpipe = args.flags.count("gpipe") > 0;
  if (int rc = validateRunOptions(options, "partition"); rc != kOk) return rc;
  const bool quiet = args.flags.count("quiet") > 0;
  PictureRequest pictures;
  if (auto error = parsePictureOptions(args, options.goal, pictures)) return usageError(*error, "partition");

  Problem problem;
  if (int rc = loadWorkloadProblem(args, "partition", workload, problem); rc != kOk) return rc;
  // Options the workload does not allow: a command-line error, before any solve.
  if (!options.topology.empty() && !options.time_unit) {
    return usageError("--topology on a workload needs --time-unit SECONDS (the seconds of one unit of its times)",
                      "partition");
  }
  if (options.replicas != 1) {
    auto allreduce = api::workloadAllReduce(options);
    if (!allreduce) return fail(allreduce.status());
    if (Status s = checkReplicable(problem, *allreduce ? &**allreduce : nullptr); !s) {
      return s.code() == StatusCode::Unsupported ? usageError(workload + ": " + s.message(), "partition") : fail(s);
    }
  }

  api::RunControl control;
  control.stop = &interruptFlag();
  if (!quiet) control.progress = progressPrinter(control.start);
  auto partitioned = api::partitionWorkload(std::move(problem), options, control);
  endProgressLine();
  if (!partitioned) return fail(partitioned.status().withContext(workload));

  const SolveResult& solve = partitioned->solve;
  std::vector<PictureFile> drawn;
  if (pictures.any()) {
    auto made = drawPictures(pictures, partitionedView(workload, *partitioned), &interruptFlag(), quiet);
    if (!made) return fail(made.status());
    drawn = std::move(*made);
  }
  if (Status s = emitWithPictures(args, jsonText(partitioned->output, 4) + "\n", {workload}, drawn); !s)
    return fail(s);
  if (args.flags.count("log")) {
    for (const PassRecord& r : partitioned->log) {
      std::fprintf(stderr, "onnx-placer: pass %-10s %6zu -> %6zu nodes, %6zu -> %6zu edges, %8.3f s  %s\n",
                   r.name.c_str(), r.nodes_before, r.nodes_after, r.edges_before, r.edges_after, r.seconds,
                   r.note.c_str());
    }
  }
  if (!quiet) {
    const Goal goal = options.goal;
    const char* what = goal == Goal::Latency ? "latency" : options.gpipe ? "max FW + max BW" : "max-load";
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - control.start).count();
    std::fprintf(stderr, "onnx-placer: %s %.10g, %s (%s, %s", what, solve.value,
                 answerSummary(solve).c_str(), solverName(options.algorithm, solve).c_str(),
                 toString(solve.status));
    if (solve.status == SolveStatus::Feasible && solve.bound > 0) {
      std::fprintf(stderr, ", its own bound %.10g, gap %.2f%%", solve.bound, 100 * solve.gap);
    }
    std::fprintf(stderr, "), %.2f s\n", elapsed);
    if ((!solve.solver.empty() || solve.status == SolveStatus::TimeLimit) && !solve.message.empty())
      say("", options.algorithm + ": " + solve.message);
  }
  return kOk;
}

int runEvaluate(const Args& args) {
  if (args.positional.size() != 1) return usageError("evaluate takes one WORKLOAD.json", "evaluate");
  if (!args.values.count("split")) return usageError("evaluate needs --split SPLIT.json", "evaluate");
  const std::string workload = args.positional.front(), split_path = args.values.at("split");
  std::string objective = "throughput";
  if (auto it = args.values.find("objective"); it != args.values.end()) objective = it->second;
  if (objective != "throughput" && objective != "latency") {
    return usageError("--objective must be throughput or latency (got '" + objective + "')", "evaluate");
  }
  Problem problem;
  if (int rc = loadWorkloadProblem(args, "evaluate", workload, problem); rc != kOk) return rc;
  auto device_of = readSplit(split_path, problem);
  if (!device_of) return fail(device_of.status());
  nlohmann::ordered_json out;
  std::vector<std::string> violations;
  double value = 0;
  if (objective == "latency") {
    auto latency = evaluateLatency(problem, *device_of);
    if (!latency) return fail(latency.status().withContext(split_path));
    value = latency->latency;
    violations = latency->violations;
    out = latencyPlacementToJson(problem, Placement{*device_of, {}, value}, *latency);
  } else {
    Evaluation eval = evaluateThroughput(problem, *device_of);
    value = eval.max_load;
    violations = splitViolations(problem, *device_of);
    out =
        placementToJson(problem, Placement{*device_of, std::vector<int>(device_of->size(), 0), value}, eval);
  }
  out["valid"] = violations.empty();
  out["violations"] = violations;
  if (Status s = emit(args, jsonText(out, 4) + "\n", {workload, split_path}); !s) return fail(s);
  if (!args.flags.count("quiet")) {
    std::fprintf(stderr, "onnx-placer: %s %.10g%s\n", objective == "latency" ? "latency" : "max-load", value,
                 violations.empty() ? "" : " (invalid split)");
    for (const std::string& v : violations)
      say("violation: ", v);
  }
  return violations.empty() ? kOk : kInfeasible;
}

const char* kGenerateHelp = R"(Usage: onnx-placer generate [options]

Writes a random computation graph as a workload (the format partition reads), in the style of
SliceGraph's synthetic graphs (Archer et al. 2024, App. B.1): a classic random graph oriented along
a random permutation, every node's output tensor of size N(1, 0.25) (at least 0.05), every node's
accelerator time the sum of its input and output tensor sizes plus a random fraction (uniform in
[0, 2/n)) of all tensors' total, its CPU time 10 times that, and a tensor's transfer cost 0.25 x its
size. The same options and seed give the same file on every machine.

Options:
  --model er|ba|ws        Erdos-Renyi G(n, p = degree/(n-1)) (default), Barabasi-Albert preferential
                          attachment (degree/2 edges per new node), Watts-Strogatz (ring lattice of
                          degree neighbours, each edge rewired with probability 0.1)
  --nodes N               number of nodes, 2 to 10000000 (default 100)
  --degree D              average degree (default 4)
  --seed S                random seed (default 1)
  --accelerators K        maxFPGAs of the workload (default 4)
  --cpus L                maxCPUs (default 0)
  --memory BYTES          maxSizePerFPGA (default 1e18: nodes hold no memory)
  -o, --output OUT.json   write here (atomically) instead of standard output
)";

int runGenerate(const Args& args) {
  if (!args.positional.empty()) return usageError("generate takes no positional arguments", "generate");
  SyntheticOptions options;
  if (auto it = args.values.find("model"); it != args.values.end()) {
    auto model = parseRandomGraphModel(it->second);
    if (!model) return usageError("--model: " + model.status().message(), "generate");
    options.model = *model;
  }
  auto integer = [&](const char* name, long long low, long long high,
                     auto& out) -> std::optional<std::string> {
    auto it = args.values.find(name);
    if (it == args.values.end()) return std::nullopt;
    auto v = parseInteger(it->second);
    if (!v || *v < low || *v > high) {
      return "--" + std::string(name) + " must be an integer from " + std::to_string(low) + " to " +
             std::to_string(high);
    }
    out = static_cast<std::remove_reference_t<decltype(out)>>(*v);
    return std::nullopt;
  };
  for (auto error :
       {integer("nodes", 2, 10'000'000, options.nodes), integer("seed", 0, 1LL << 62, options.seed),
        integer("accelerators", 0, 1024, options.devices.accelerators),
        integer("cpus", 0, 1024, options.devices.cpus)}) {
    if (error) return usageError(*error, "generate");
  }
  if (auto it = args.values.find("degree"); it != args.values.end()) {
    auto v = parseNumber(it->second);
    if (!v || !(*v > 0)) return usageError("--degree must be a positive number", "generate");
    options.degree = *v;
  }
  if (auto it = args.values.find("memory"); it != args.values.end()) {
    auto v = parseNumber(it->second);
    if (!v || !(*v > 0)) return usageError("--memory must be a positive number of bytes", "generate");
    options.devices.memory = *v;
  }
  if (options.degree > options.nodes - 1)
    return usageError("--degree must be at most --nodes - 1", "generate");
  auto problem = makeSyntheticProblem(options);
  if (!problem) return usageError(problem.status().message(), "generate");
  auto json = workloadToJson(*problem);
  if (!json) return fail(json.status());
  if (Status s = emit(args, jsonText(*json, 1) + "\n", {}); !s) return fail(s);
  return kOk;
}

struct Command {
  const char* name;
  const char* help;
  std::vector<OptionSpec> options;
  int (*run)(const Args&);
};

std::vector<Command> commands() {
  const std::vector<OptionSpec> device_options{{"overlap", true}, {"accelerators", true},  {"cpus", true},
                                               {"memory", true},  {"output", true},        {"quiet", false},
                                               {"help", false},   {"shared-weights", true}};
  std::vector<OptionSpec> partition = device_options;
  const std::vector<OptionSpec> solver = solverOptionSpecs();
  partition.insert(partition.end(), solver.begin(), solver.end());
  partition.insert(partition.end(),
                   {{"pipeline", true}, {"gpipe", false}, {"verify-each", false}, {"log", false},
                    {"pass-plugin", true, true}, {"replicas", true}, {"topology", true}, {"time-unit", true},
                    {"map", true}, {"map-cost", true}, {"map-time-limit", true}, {"samples-per-step", true},
                    {"allreduce-bandwidth", true}});
  const std::vector<OptionSpec> pictures = pictureOptionSpecs();
  partition.insert(partition.end(), pictures.begin(), pictures.end());
  std::vector<OptionSpec> evaluate = device_options;
  evaluate.push_back({"split", true});
  evaluate.push_back({"objective", true});
  return {{"partition", kPartitionHelp, partition, runPartition},
          {"evaluate", kEvaluateHelp, evaluate, runEvaluate},
          {"place", kPlaceHelp, placeOptions(), runPlace},
          {"inspect", kInspectHelp, inspectOptions(), runInspect},
          {"calibrate", kCalibrateHelp, calibrateOptions(), runCalibrate},
          {"topology", kTopologyHelp, topologyOptions(), runTopology},
          {"map", kMapHelp, mapOptions(), runMap},
          {"simulate", kSimulateHelp, simulateOptions(), runSimulate},
          {"compare", compareHelp(), compareOptions(), runCompare},
          {"bound", kBoundHelp, boundOptions(), runBound},
          {"export-workload", kExportWorkloadHelp, exportWorkloadOptions(), runExportWorkload},
          {"generate",
           kGenerateHelp,
           {{"model", true},
            {"nodes", true},
            {"degree", true},
            {"seed", true},
            {"accelerators", true},
            {"cpus", true},
            {"memory", true},
            {"output", true},
            {"help", false}},
           runGenerate}};
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kMainHelp;
    return kUsage;
  }
  const std::string name = argv[1];
  const std::vector<Command> table = commands();
  auto find = [&](const std::string& wanted) {
    return std::find_if(table.begin(), table.end(), [&](const Command& c) { return wanted == c.name; });
  };
  if (name == "--help" || name == "-h" || name == "help") {
    const std::string topic = argc > 2 ? argv[2] : "";
    if (topic.empty()) {
      std::cout << kMainHelp;
      return kOk;
    }
    auto command = find(topic);
    if (command == table.end()) return usageError("no help for '" + topic + "'", "");
    std::cout << command->help;
    return kOk;
  }
  if (name == "--version") {
    std::cout << "onnx-placer " << kVersion << "\n";
    return kOk;
  }
  auto command = find(name);
  if (command == table.end()) return usageError("unknown command '" + name + "'", "");
  Args args;
  args.command = name;
  if (auto error = parseArgs(argc, argv, command->options, args)) return usageError(*error, name);
  if (args.flags.count("help")) {
    std::cout << command->help;
    return kOk;
  }
  installInterruptHandlers();
  return command->run(args);
}

}  // namespace
}  // namespace placer::cli

int main(int argc, char** argv) {
  return placer::cli::run(argc, argv);
}
