#include "tools/bound_command.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "onnx_io/json_text.h"
#include "api/bound.h"
#include "passes/lower_bounds.h"
#include "tools/interrupt.h"
#include "tools/model_commands.h"

namespace placer::cli {

const char* const kBoundHelp = R"(Usage: onnx-placer bound WORKLOAD.json|MODEL.onnx [options]

Proves a lower bound on the optimum: no placement of the space does better. Prints JSON with
"lowerBound", the method that gave it ("boundMethod"), the space ("boundSpace"), whether a method
was cut short by the time limit ("cutShort"), the MIP solver ("mipSolver") and each method's bound,
time and outcome.

Spaces (never mixed up in a report):
  contiguous   the best split giving every device one block of a pipeline (what dp, auto and
               slicegraph search): the default
  any          every placement, contiguous or not (what ip-noncontig searches); a bound here also
               bounds the contiguous optimum, not the other way round

Methods (run cheapest first; the dp takes what it needs of the time limit, cpu-block, pooled-dp,
packing and the programs bottleneck, guess and exact share what is left equally):
  simple       the work relaxation (accelerators, CPUs, memory, shared weights, colocation), each
               node's cheapest time, how many whole nodes a device can compute within the bound
               and the relaxation with the large nodes kept whole (a small program, a tenth of
               the time limit); for max-load, the relaxation with the transfers every
               accelerator pays at its boundary (no overlap) and a path's transfers between the
               runs a placement cuts it into; for latency, the fractional critical path and a
               path's transfers between the accelerator runs memory forces (solvers/README.md);
               the outcome names the part that gave the value (work, node, pigeonhole, packing,
               boundaries, path, transfers)
  dp           the exact DP's optimum when it finishes (contiguous, throughput)
  cpu-block    a CPU core holds one convex block: the work relaxation with each core taking over
               no more accelerator work than a block within DPL's max-load can (a program over
               two ideals; contiguous max-load, machines with CPU cores, inference graphs)
  pooled-dp    the DP on the graph with its most floating one-input operators bypassed (their
               time pooled, their consumers reading the tensor before them) until at most 5,000
               ideals remain: the least sum of loads within each B against what the devices can
               hold (with CPU cores, a core's block within cpu-block's limit), bisected to 0.1%,
               against DPL's split (contiguous max-load without overlap, one accelerator kind,
               inference graphs)
  packing      where the largest operators go: every assignment of them to the devices (up to the
               devices' order), each accelerator bounded by the least load of any set holding its
               large operators and none of the others (its computation and the nets it cuts: a
               minimum cut), each core by their CPU time; the least over assignments of the
               largest, below DPL's split, more operators while the time lasts (max-load without
               overlap, every placement; one accelerator kind)
  bottleneck   the three-superblock program: the cheapest block one device could run that carries
               the work some device must carry, the rest fitting fractionally on the other devices
               (max-load; the best proven value when the time limit stops it)
  guess        guess the bottleneck: one program per block position and device kind, the blocks
               before and after the bottleneck each within their count times its load; the
               smallest value (contiguous max-load)
  exact        the integer program of the space (ip, ip-noncontig) and the bound it has proven when
               the time limit stops it; skipped when dp proved the optimum (latency: contiguous only)
  all          every method that applies (the default)

Options:
  --method NAME           simple, dp, cpu-block, pooled-dp, packing, bottleneck, guess, exact or all
                          (repeatable)
  --space contiguous|any  (default contiguous)
  --time-limit S          seconds for all methods together (default 60)
  --objective throughput|latency, --gpipe, --threads N, --max-ideals N
  --mip-solver glpk|cbc   what solves the methods' linear and integer programs (simple, cpu-block,
                          bottleneck, guess, exact): GLPK (default) or COIN-OR CBC, when this build
                          has it
  --accelerators K, --cpus L, --memory BYTES, --overlap none|max|duplex, --shared-weights MODE
                          as for partition
  --devices FILE|PRESET, --dim NAME=VALUE, --phase prompt|token, --cost-profile FILE, --cost-plugin LIB.so
                          for MODEL.onnx, as for place
  --topology FILE|PRESET  for MODEL.onnx, the machine as a topology (as for place). The bound is the
                          solvers' model's: the topology's devices as interchangeable accelerators
                          on the host link, whichever device the mapping then gives each stage
  -o, --output FILE       write the JSON there (atomically) instead of standard output
  -q, --quiet             no summary on standard error
)";

std::vector<OptionSpec> boundOptions() {
  std::vector<OptionSpec> specs = modelOptions();
  for (OptionSpec extra : std::vector<OptionSpec>{{"overlap", true},   {"objective", true}, {"time-limit", true},
                                                  {"threads", true},   {"max-ideals", true}, {"method", true, true},
                                                  {"space", true},     {"gpipe", false}, {"mip-solver", true},
                                                  {"topology", true}}) {
    specs.push_back(extra);
  }
  return specs;
}

namespace {

bool isModel(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

}  // namespace

int runBound(const Args& args) {
  if (args.positional.size() != 1) return usageError("bound takes one WORKLOAD.json or MODEL.onnx", "bound");
  const std::string input = args.positional.front();
  SolverSettings settings;
  settings.time_limit = 60;
  std::string algorithm;
  Goal goal = Goal::Throughput;
  if (auto error = parseSolverOptions(args, algorithm, goal, settings)) return usageError(*error, "bound");
  BoundSpace space = BoundSpace::Contiguous;
  if (auto it = args.values.find("space"); it != args.values.end()) {
    if (it->second == "any") {
      space = BoundSpace::Any;
    } else if (it->second != "contiguous") {
      return usageError("--space must be contiguous or any (got '" + it->second + "')", "bound");
    }
  }
  std::vector<std::string> methods = {"all"};
  if (auto it = args.repeated.find("method"); it != args.repeated.end()) methods = it->second;
  const bool gpipe = args.flags.count("gpipe") > 0;
  if (gpipe && goal != Goal::Throughput) return usageError("--gpipe needs the throughput objective", "bound");

  Problem problem;
  if (isModel(input)) {
    if (int rc = loadModelProblem(args, "bound", problem); rc != kOk) return rc;
    // The counts and memory went into the device specification; --overlap is the objective's.
    DeviceOverrides overrides;
    if (auto error = parseDeviceOverrides(args, overrides)) return usageError(*error, "bound");
    if (overrides.overlap) problem.objective.overlap = *overrides.overlap;
  } else {
    if (args.values.count("devices") || args.values.count("topology") || args.repeated.count("dim"))
      return usageError("--devices, --topology and --dim apply to an ONNX model, not to " + input, "bound");
    if (int rc = loadWorkloadProblem(args, "bound", input, problem); rc != kOk) return rc;
  }
  problem.objective.goal = goal;
  problem.objective.gpipe = gpipe;
  auto report = api::proveBound(problem, space, methods, settings, &interruptFlag());
  if (!report) return report.status().code() == StatusCode::InvalidInput ? usageError(report.status().message(), "bound")
                                                                          : fail(report.status().withContext(input));
  if (Status s = emit(args, api::boundReportText(*report, input, problem, settings.mip_backend), {input}); !s)
    return fail(s);
  if (!args.flags.count("quiet")) {
    std::fprintf(stderr, "onnx-placer: lower bound %.10g over %s placements (%s)%s\n", report->lower,
                 space == BoundSpace::Contiguous ? "contiguous" : "all", report->method.empty() ? "none" : report->method.c_str(),
                 report->cut_short ? "; a method was cut short by the time limit" : "");
  }
  return kOk;
}

}  // namespace placer::cli
