#include "tools/model_commands.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include <unistd.h>

#include "api/model.h"
#include "api/inspect.h"
#include "api/place.h"
#include "core/evaluate.h"
#include "cost_model/cost_model.h"
#include "cost_model/cost_sources.h"
#include "cost_model/fidelity.h"
#include "onnx_io/annotated_model.h"
#include "onnx_io/json_text.h"
#include "onnx_io/onnx_model.h"
#include "onnx_io/output_files.h"
#include "onnx_io/plan_builder.h"
#include "onnx_io/report.h"
#include "solvers/bounds/certificate.h"
#include "onnx_io/stage_directory.h"
#include "onnx_io/stage_models.h"
#include "onnx_io/workload_json.h"
#include "passes/partition.h"
#include "passes/pass_manager.h"
#include "passes/subdivide.h"
#include "tools/interrupt.h"
#include "tools/picture_outputs.h"

namespace placer::cli {

const char* const kPlaceHelp = R"(Usage: onnx-placer place MODEL.onnx [options]

Loads an ONNX model, estimates every operator's time on the devices (roofline model: FLOPs and bytes
from the inferred shapes against each device's peak FLOP/s and memory bandwidth), finds the
placement with the lowest max-load (time per sample of the slowest pipeline stage), reports it, and
writes it back into ONNX: an annotated copy of the model (-o) and one runnable sub-model per
pipeline stage with a pipeline.json manifest (--stages-dir). The input model is never modified.

Options:
  -o, --output OUT.onnx   write the annotated model here (atomically; never over the input)
  --annotate metadata|ort|onnx-ir11
                          how -o records the placement: metadata (a JSON plan in the model's
                          metadata_props; IR version kept), ort (default: also a layer_ann
                          metadata entry on every node for ONNX Runtime's
                          session.layer_assignment_settings; IR version 10), onnx-ir11 (also the
                          ONNX IR 11 device configuration fields; IR version 11)
  --stages-dir DIR        write stage<k>.onnx per pipeline stage and pipeline.json as DIR; an
                          earlier stage directory there is replaced whole (no stale stage files
                          remain), any other non-empty directory is refused
  --emit triton=DIR       write a Triton model repository as DIR: DIR/<model>_stage<k>/config.pbtxt
                          and 1/model.onnx per stage (onnxruntime_onnx, pinned to its GPU by
                          instance_group gpus, or KIND_CPU), and DIR/<model>/config.pbtxt, an
                          ensemble whose steps chain the stages; max_batch_size is the placed batch
                          when every tensor leads with the same symbolic dimension, else 0
  --emit genai=DIR        for a decoder with a KV cache: the stage files and genai_config.json, an
                          ONNX Runtime GenAI "decoder-pipeline" fragment (one pipeline entry per
                          stage: its files, inputs, outputs, CUDA device or CPU, is_lm_head)
  --stage-data reference|copy
                          for a model whose weights are in external data files: the written models
                          refer to the model's data files (reference, default: each is hard-linked
                          beside them, which takes no space and needs the outputs on the data's file
                          system), or each gets a data file of its own with only the weights it uses
                          (copy: stage<k>.onnx.data; OUT.onnx.data beside -o). The model's data
                          files are never written
  --force                 replace a --stages-dir or --emit directory even if it holds other files,
                          and a file beside -o with the name of a data file to link or copy
  --devices FILE|PRESET   device specification (JSON, see cost_model/presets/) or a bundled preset
                          name (default: pcie3-4x16gb; presets: cpu-only-8, dgx-h100, dgx1-8xv100,
                          dgx1-8xv100-nvlink, mixed-2xa100-2xv100, pcie3-4x16gb, pcie4-2xa100-40gb);
                          a specification may give the machine's topology (named devices of one or
                          several kinds, links, switches)
  --accelerators K, --cpus L, --memory BYTES
                          override the device specification's counts and accelerator memory
  --topology FILE|PRESET  the machine as a topology, instead of --devices: a device specification
                          of the topology form (README.md, "Devices"; `onnx-placer topology` writes
                          them) or a preset with one (dgx1-8xv100-nvlink, dgx-h100). On a
                          topology (from either option) the accelerator stages are mapped onto the
                          physical devices (as `onnx-placer map` does, the stage graph being the
                          placement's: its tensors' bytes over the links between the devices), and
                          the report, the layer assignment, the annotations, the stage manifest and
                          the Triton and GenAI outputs name the device each stage runs on; the
                          report's "mapping" gives the stage times on the links and the
                          consecutive mapping's beside them
  --map optimal|consecutive
                          the mapping search (default), or stage i on device i (the baseline)
  --map-cost p2p|allreduce|auto
                          the stage time the mapping minimises, as for `map` (default auto)
  --map-time-limit S      seconds for the mapping search (default 10); the best mapping found is
                          used, and the report's mapping status says time-limit
  --replicas auto|R       run each accelerator stage on R accelerators (data parallel): floor(K/R)
                          stages, each replica taking every R-th sample, so a stage's time per
                          sample is its load / R and each replica holds the whole stage. auto tries
                          every stage count with the most replicas that form it (sharing the time
                          limit) and keeps the fastest (the report's "replicas" lists each). The
                          report, the metadata plan, the stage manifest and Triton's instance
                          groups list each stage's replica devices; the annotations name the
                          first. Default 1
  --objective throughput|latency
                          pipelined throughput (max-load, default) or single-sample latency
  --algorithm A           auto (default: quick upper bounds, then the exact DP while it can finish
                          in time, SliceGraph's order search otherwise; the integer program for
                          latency), dp (exact DP), dpl (linearised DP), slicegraph (order search),
                          cluster-dp (DP on operator clusters, refined), ip (integer program,
                          contiguous), ip-noncontig (integer program, non-contiguous: a device may
                          run several stages), greedy (latency baseline), and the paper's
                          baselines one-accelerator, local-search (--restarts N), pipedream and
                          scotch (may exceed memory: the report's memory_violation_bytes says by
                          how much); see `partition --help`
  --time-limit S          seconds for the whole solve (as for partition; default 8 for auto, no
                          limit otherwise)
  --target-ratio R, --cluster-target K, --alpha A
                          auto's stopping ratio and cluster-dp's clusters, as for partition
  --orders SPEC, --seed N, --restarts N, --threads N
                          SliceGraph's orders, random seed (also local-search's and scotch's),
                          local-search's random starts, and threads of the order search and the
                          exact DP, as for partition
  --mip-gap G, --mip-solver glpk|cbc, --subgraphs-per-accelerator Q
                          integer-program settings, as for partition
  --dim NAME=VALUE        value of a symbolic input dimension (repeatable; others default to 1)
  --phase prompt|token    a decoder with a KV cache (past_key_values.* in, present.* out) is costed
                          for its prompt (default: no past, --dim for the prompt's length) or for
                          one generated token after a past of --dim PAST=N tokens; its total
                          length is set to past + sequence, and the report says which phase
  --shared-weights replicate|colocate|auto
                          a weight several operators read (tied embeddings, shared constants):
                          replicate copies it onto every device that runs a reader, each copy
                          counted in that device's memory, and the solver keeps the readers
                          together only where copies would not fit or would be slower; colocate
                          keeps the readers of every shared weight of 1 MiB or more on one device.
                          auto (default) is replicate (ONNX models are inference graphs). The
                          report lists the replicated weights and the memory they add
  --cost-profile FILE     measured operator times that override the roofline estimate (repeatable;
                          later files win): our JSON (per node name or op signature), or ONNX
                          Runtime's profiling trace (kernel times; CPUExecutionProvider times are
                          CPU times, other providers' are accelerator times), or its per-node
                          memory statistics CSV (initializers_sizes becomes the node's memory).
                          On a machine of several accelerator kinds a profile measures the first
                          kind (the others' times scaled from it); --cost-profile KIND=FILE gives
                          one recorded on that kind, whose accelerator times that kind takes
  --cost-plugin LIB.so    a shared library giving operator times through the C ABI of
                          cost_model/cost_plugin_abi.h; asked first, before profiles and roofline
  --report REPORT.json    write the report (per-device load, memory, communication, objective,
                          solver runtime, and the certificate: upperBound, lowerBound, boundMethod,
                          boundSpace, ratio, as for partition) here instead of standard output
  --max-ideals N          the exact DP refuses graphs with more than N ideals (default 4000000;
                          auto then searches orders instead)
  --pipeline PASSES       the pass pipeline, as for partition (default: the algorithm's reductions,
                          partition, expand); --algorithm sets its partition pass's argument, and
                          without --algorithm the pipeline's own partition pass decides
  --pass-plugin LIB.so    load a pass plugin (repeatable; include/onnx_placer/plugin.h): its passes
                          can be named in --pipeline, its cost models are asked before
                          --cost-plugin, profiles and the roofline model
  --verify-each           check the graph invariants after every pass
  -q, --quiet             no progress or summary on standard error

Pictures (written with the other outputs, all or none; README.md, "Pictures"):
)" PLACER_PICTURE_OPTIONS_HELP;

const char* const kInspectHelp = R"(Usage: onnx-placer inspect MODEL.onnx [options]

Prints what onnx-placer sees in a model: operators, op-type histogram, weights (and those several
operators read), FLOPs and multiply-accumulates (roofline formulas), tensors without a static shape,
loader warnings; how faithful the costs are: per op type, how many operators an exact formula
costs, how many take measured times (profile, plugin) and how many fall back to one FLOP per output
element (a warning with counts when any do), and which nodes constant folding evaluated (they are
constants, not operators); and what the operators cost on the devices: the time per sample of the
whole model on one accelerator and on one CPU core, the overheads the device specification adds (per
operator, per boundary tensor), where the times come from (profile, plugin, roofline: how many
operators each gives times to, and which operators mix two sources).

Options:
  --dim NAME=VALUE        value of a symbolic input dimension (repeatable; others default to 1)
  --phase prompt|token    a decoder with a KV cache (past_key_values.* in, present.* out) is costed
                          for its prompt (default: no past, --dim for the prompt's length) or for
                          one generated token after a past of --dim PAST=N tokens; its total
                          length is set to past + sequence, and the report says which phase
  --devices FILE|PRESET, --accelerators K, --cpus L, --memory BYTES
                          the devices to cost the operators on (default: pcie3-4x16gb)
  --cost-profile FILE, --cost-plugin LIB.so, --shared-weights M
                          as for place
  --json                  machine-readable output
)";

const char* const kExportWorkloadHelp =
    R"(Usage: onnx-placer export-workload MODEL.onnx -o WORKLOAD.json [options]

Writes the placement problem of a model in the workload format of Tarnawski et al. (the format
`partition` reads), so the same problem can be solved by `partition` or by other tools. Times are in
seconds, sizes in bytes (each edge's "size": its tensor's, which partition --topology moves over the
links, with --time-unit 1); an operator with several outputs gets one zero-cost node per output,
colocated with it, so each tensor's transfer is still paid once.

Options:
  -o, --output WORKLOAD.json   where to write (atomically; default: standard output)
  --devices FILE|PRESET, --accelerators K, --cpus L, --memory BYTES, --dim NAME=VALUE,
  --phase prompt|token, --shared-weights M, --cost-profile FILE, --cost-plugin LIB.so   as for place
Weights several operators read are written under "sharedWeights" (held once by each device that
runs one of their readers); with --shared-weights colocate their readers share a colorClass.
)";

Expected<DeviceSpec> resolveDevices(const Args& args) {
  api::PlaceOptions options;
  if (auto it = args.values.find("devices"); it != args.values.end()) options.devices = it->second;
  return api::resolveDevices(options, api::OptionNaming::Flag);
}

std::optional<std::string> parseLoadOptions(const Args& args, LoadOptions& options) {
  api::PlaceOptions parsed;
  if (auto error = parseRunOptions(args, parsed)) return error;
  options.dims = parsed.dims;
  options.phase = parsed.phase;
  return std::nullopt;
}

namespace {

const std::vector<OptionSpec> kModelOptions{
    {"devices", true},     {"accelerators", true},  {"cpus", true},
    {"memory", true},      {"dim", true, true},     {"phase", true},         {"cost-profile", true, true},
    {"cost-plugin", true}, {"quiet", false},        {"help", false},
    {"output", true},      {"shared-weights", true}, {"pass-plugin", true, true}};

// Shared front half of place, inspect, bound and export-workload: options, model, devices, costs.
// With `report` false the loader's warnings and the cost notes are left in `out` for the caller to show.
int loadAndAnnotate(const Args& args, const char* command, const api::PlaceOptions& options,
                    api::LoadedModel& out, bool report = true) {
  if (args.positional.size() != 1) return usageError(std::string(command) + " takes one MODEL.onnx", command);
  auto model = api::loadModel(args.positional.front(), options, api::OptionNaming::Flag);
  if (!model) return fail(model.status());
  out = std::move(*model);
  if (report && !args.flags.count("quiet")) {
    for (const auto& [prefix, text] : out.messages())
      say(prefix, text);
  }
  return kOk;
}

// The options of a model command that takes no solver options.
int modelCommandOptions(const Args& args, const char* command, api::PlaceOptions& options) {
  if (auto error = parseRunOptions(args, options)) return usageError(*error, command);
  if (int rc = validateRunOptions(options, command); rc != kOk) return rc;
  return kOk;
}

}  // namespace

std::vector<OptionSpec> modelOptions() {
  return kModelOptions;
}

int loadModelProblem(const Args& args, const char* command, Problem& out) {
  api::PlaceOptions options;
  if (int rc = modelCommandOptions(args, command, options); rc != kOk) return rc;
  api::LoadedModel model;
  if (int rc = loadAndAnnotate(args, command, options, model); rc != kOk) return rc;
  out = std::move(model.annotation.problem);
  return kOk;
}

std::vector<OptionSpec> placeOptions() {
  std::vector<OptionSpec> specs = kModelOptions;
  const std::vector<OptionSpec> solver = solverOptionSpecs();
  specs.insert(specs.end(), solver.begin(), solver.end());
  specs.insert(specs.end(), {{"report", true}, {"annotate", true}, {"stages-dir", true}, {"force", false},
                             {"stage-data", true}, {"topology", true}, {"map", true}, {"map-cost", true},
                             {"map-time-limit", true}, {"replicas", true},
                             {"pipeline", true}, {"verify-each", false}, {"emit", true, true}});
  const std::vector<OptionSpec> pictures = pictureOptionSpecs();
  specs.insert(specs.end(), pictures.begin(), pictures.end());
  return specs;
}

std::vector<OptionSpec> inspectOptions() {
  std::vector<OptionSpec> specs = kModelOptions;
  std::erase_if(specs, [](const OptionSpec& o) { return o.name == "output"; });
  specs.push_back({"json", false});
  return specs;
}

std::vector<OptionSpec> exportWorkloadOptions() {
  return kModelOptions;
}

int runPlace(const Args& args) {
  api::RunControl control;
  api::PlaceOptions options;
  if (auto error = parseRunOptions(args, options)) return usageError(*error, "place");
  if (int rc = validateRunOptions(options, "place"); rc != kOk) return rc;
  api::OutputFiles files;
  if (auto it = args.values.find("output"); it != args.values.end()) files.model = it->second;
  if (auto it = args.values.find("stages-dir"); it != args.values.end()) files.stages_dir = it->second;
  if (auto it = args.values.find("report"); it != args.values.end()) files.report = it->second;
  files.force = args.flags.count("force") > 0;
  if (auto it = args.values.find("stage-data"); it != args.values.end()) {
    auto mode = parseStageData(it->second);
    if (!mode) return usageError("--stage-data must be reference or copy (got '" + it->second + "')", "place");
    files.stage_data = *mode;
  }
  if (auto it = args.repeated.find("emit"); it != args.repeated.end()) {
    for (const std::string& item : it->second) {
      const auto eq = item.find('=');
      const std::string kind = item.substr(0, eq);
      auto& dir = kind == "triton" ? files.triton_dir : files.genai_dir;
      if (eq == std::string::npos || eq + 1 == item.size() || (kind != "triton" && kind != "genai")) {
        return usageError("--emit must be triton=DIR or genai=DIR (got '" + item + "')", "place");
      }
      if (dir) return usageError("--emit " + kind + " given twice", "place");
      dir = item.substr(eq + 1);
    }
  }
  PictureRequest pictures;
  if (auto error = parsePictureOptions(args, options.goal, pictures)) return usageError(*error, "place");
  files.extra = plannedPictureFiles(pictures);
  // Refused before any work rather than after the solve.
  if (args.positional.size() != 1) return usageError("place takes one MODEL.onnx", "place");
  if (Status s = api::checkOutputFiles(files, api::OptionNaming::Flag, {args.positional.front()}); !s) {
    if (s.code() == StatusCode::Unsupported) return usageError(s.message(), "place");
    return fail(s);
  }
  const std::atomic<bool>& stop = interruptFlag();
  control.stop = &stop;
  api::LoadedModel model;
  if (int rc = loadAndAnnotate(args, "place", options, model); rc != kOk) return rc;
  if (stop.load()) return fail(interrupted("interrupted"));
  const bool quiet = args.flags.count("quiet") > 0;
  if (!quiet) {
    const CostFidelity fidelity = costFidelity(model.graph, model.annotation);
    say("costs: ", fidelity.summary());
    if (auto w = fidelity.warning()) say("warning: ", *w);
    control.progress = progressPrinter(control.start);
  }
  auto placed = api::solveModel(model, options, control);
  endProgressLine();
  if (!placed) return fail(placed.status());
  if (pictures.any()) {
    auto drawn = drawPictures(pictures, placedView(model, *placed), &stop, quiet);
    if (!drawn) return fail(drawn.status());
    files.extra = std::move(*drawn);
  }
  if (Status s = api::writeOutputs(model, *placed, options.annotate, files, &stop); !s) return fail(s);
  if (!files.report) std::cout << api::reportText(*placed) << std::flush;
  if (!quiet) {
    const SolveResult& solve = placed->solve;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - control.start).count();
    std::fprintf(stderr, "onnx-placer: %s %.6g ms over %zu stage(s), %s (%s, %s), %.2f s\n",
                 options.goal == Goal::Latency ? "latency" : "max-load per sample", placed->plan.value * 1e3,
                 placed->plan.stages.size(), answerSummary(solve).c_str(),
                 solverName(options.algorithm, solve).c_str(), placed->plan.status.c_str(), elapsed);
    if ((!solve.solver.empty() || solve.status == SolveStatus::TimeLimit) && !solve.message.empty())
      say("", options.algorithm + ": " + solve.message);
  }
  return kOk;
}

namespace {

// Per op type, how its operators were costed ("Conv 2", "MatMulNBits (com.microsoft) 8",
// "Foo 3 fallback"), then the op types constant folding evaluated.
void printFidelityByOpType(const CostFidelity& fidelity) {
  std::printf("costed      ");
  for (const OpTypeFidelity& e : fidelity.op_types) {
    if (e.formula + e.measured + e.fallback == 0) continue;
    std::printf(" %s%s", printable(e.op_type).c_str(), e.domain.empty() ? "" : ("(" + printable(e.domain) + ")").c_str());
    if (e.formula > 0) std::printf(" %d", e.formula);
    if (e.measured > 0) std::printf(" %d measured", e.measured);
    if (e.fallback > 0) std::printf(" %d fallback", e.fallback);
    std::printf(";");
  }
  std::printf("\n");
  if (fidelity.folded_nodes == 0) return;
  std::printf("folded      ");
  for (const OpTypeFidelity& e : fidelity.op_types) {
    if (e.folded > 0) std::printf(" %s:%d", printable(e.op_type).c_str(), e.folded);
  }
  std::printf("\n");
}

// A count with the SI prefix that leaves 1 to 999 before the point, to four significant digits, and
// `unit`: "8.178 GFLOPs", "295.4 kFLOPs", "12 FLOPs"; "154.2 k", "12" without a unit (a small
// model's FLOPs must not read "0.000 G").
std::string siPrefixed(double count, const std::string& unit = "") {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P"};
  int i = 0;
  while (i < 5 && std::abs(count) >= 999.95) {
    count /= 1000;
    ++i;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", count);
  const std::string suffix = kPrefixes[i] + unit;
  return suffix.empty() ? std::string(text) : std::string(text) + " " + suffix;
}

std::string microseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g us", seconds * 1e6);
  return text;
}

}  // namespace

int runInspect(const Args& args) {
  api::PlaceOptions options;
  if (int rc = modelCommandOptions(args, "inspect", options); rc != kOk) return rc;
  api::LoadedModel model;
  if (int rc = loadAndAnnotate(args, "inspect", options, model, /*report=*/false); rc != kOk) return rc;
  const OnnxGraph* graph = &model.graph;
  const api::ModelSummary summary = api::summarize(model);
  const nlohmann::ordered_json& out = summary.json;
  const nlohmann::ordered_json& costs = out["costs"];
  const CostFidelity& fidelity = summary.fidelity;
  if (args.flags.count("json")) {
    std::cout << jsonText(out, 2) << "\n";
    return kOk;
  }
  std::printf("model        %s (IR %lld)\n", printable(graph->path).c_str(),
              static_cast<long long>(graph->ir_version));
  std::printf("operators    %zu\n", graph->nodes.size());
  std::printf("weights      %.0f tensors, %.1f MB\n", out["weights"]["tensors"].get<double>(),
              out["weights"]["bytes"].get<double>() / 1e6);
  if (const SharedWeight* largest = summary.largest_shared) {
    std::printf(
        "shared       %zu weight(s) read by several operators, %.1f MB; largest \"%s\" (%.1f MB, %zu "
        "readers)\n",
        model.annotation.problem.weights.size(), out["shared_weights"]["bytes"].get<double>() / 1e6,
        printable(largest->name).c_str(), largest->bytes / 1e6,
        largest->readers.size());
  }
  std::printf("compute      %s (%s multiply-accumulates) per sample\n",
              siPrefixed(out["flops"].get<double>(), "FLOPs").c_str(), siPrefixed(out["macs"].get<double>()).c_str());
  std::printf("op types    ");
  for (const auto& [op, count] : out["op_types"].items())
    std::printf(" %s:%d", op.c_str(), count.get<int>());
  std::printf("\n");
  std::printf("fidelity     %s\n", fidelity.summary().c_str());
  printFidelityByOpType(fidelity);
  std::printf("unknown      %zu tensor(s) without a static shape\n", out["tensors_without_static_shape"].size());
  const DeviceSpec& d = model.devices;
  std::printf("devices      %s: %d accelerator(s), %d CPU core(s)\n", d.name.c_str(), d.accelerators.count,
              d.cpus.count);
  const auto& per_sample = costs["seconds_per_sample"];
  if (d.accelerators.count > 0) {
    std::printf("time         %.4g ms per sample on one accelerator (%.4g ms of it operator overhead)\n",
                per_sample["one_accelerator"].get<double>() * 1e3,
                per_sample["one_accelerator_operator_overhead"].get<double>() * 1e3);
  }
  if (d.cpus.count > 0) {
    std::printf("time         %.4g ms per sample on one CPU core (%.4g ms of it operator overhead)\n",
                per_sample["one_cpu"].get<double>() * 1e3,
                per_sample["one_cpu_operator_overhead"].get<double>() * 1e3);
  }
  std::printf(
      "overheads    accelerator: %s per operator, link + %s per boundary tensor; cpu: %s per operator, %s",
      microseconds(d.accelerators.op_overhead).c_str(),
      microseconds(d.accelerators.boundary_overhead).c_str(), microseconds(d.cpus.op_overhead).c_str(),
      microseconds(d.cpus.boundary_overhead).c_str());
  if (d.cpus.boundary_bandwidth > 0) std::printf(" + bytes / %.3g GB/s", d.cpus.boundary_bandwidth / 1e9);
  std::printf(" per boundary tensor\n");
  for (const std::string& note : model.annotation.notes)
    std::printf("costs        %s\n", printable(note).c_str());
  if (costs["mixed_sources"]["count"].get<std::size_t>() > 0) {
    std::printf("mixed        e.g.");
    for (const auto& name : costs["mixed_sources"]["first"])
      std::printf(" %s", printable(name.get<std::string>()).c_str());
    std::printf("\n");
  }
  for (const std::string& w : graph->warnings)
    std::printf("warning      %s\n", printable(w).c_str());
  for (const std::string& w : model.annotation.warnings)
    std::printf("warning      %s\n", printable(w).c_str());
  if (auto w = fidelity.warning()) std::printf("warning      %s\n", printable(*w).c_str());
  return kOk;
}

int runExportWorkload(const Args& args) {
  api::PlaceOptions options;
  if (int rc = modelCommandOptions(args, "export-workload", options); rc != kOk) return rc;
  api::LoadedModel model;
  if (int rc = loadAndAnnotate(args, "export-workload", options, model); rc != kOk) return rc;
  Problem problem = model.annotation.problem;
  SubdividePass subdivide;
  PipelineState state;
  if (auto s = subdivide.run(problem, PassOptions{}, state); !s) return fail(s.status());
  auto workload = workloadToJson(problem);
  if (!workload) return fail(workload.status());
  if (Status s = emit(args, jsonText(*workload, 1) + "\n", {args.positional.front()}); !s) return fail(s);
  return kOk;
}

}  // namespace placer::cli
