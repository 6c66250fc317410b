// The rest of `place` after loading: solve, certify, evaluate, build the placement plan and the
// report, and produce every output, as bytes or as files written all or nothing (partition → certify
// → expand → write of the pipeline in DESIGN.md).
//
// The CLI, the benches, the C ABI and the Python module all call these, so a placement made by any
// of them is the same placement with the same report. Nothing here prints; progress goes to the
// caller's callback and the stop flag is checked throughout (a set flag ends the run with
// Interrupted, and nothing is written).
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/model.h"
#include "core/evaluate.h"
#include "onnx_io/placement_plan.h"
#include "onnx_io/stage_models.h"
#include "passes/pass_manager.h"

namespace placer::api {

// What a run gets from its caller besides the options.
struct RunControl {
  const std::atomic<bool>* stop = nullptr;  // set by the caller (a signal, a cancel button) to stop
  ProgressFn progress;                      // null: none
  // When the run began, for the report's "seconds" (the CLI starts its clock before loading).
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

struct Placed {
  Problem problem;  // the model's placement problem, objective set: vertex i is graph.nodes[i]
  SolveResult solve;
  std::vector<PassRecord> log;
  Evaluation eval;
  PlacementPlan plan;
  nlohmann::ordered_json report;  // what `place --report` writes
  double seconds = 0;             // from RunControl::start to the end of the solve
};

// Runs the options' pipeline (with their plugins' passes, the algorithm as the partition pass's
// argument, the objective, limits, stop flag and progress) on `problem`.
Expected<PipelineOutcome> runPipelineOf(Problem problem, const PlaceOptions& options, const RunControl& control);

// Runs the options' pipeline on the loaded model: the solve, its certificate, the evaluation, the
// plan and the report.
Expected<Placed> solveModel(const LoadedModel& model, const PlaceOptions& options, const RunControl& control);

// A placement found elsewhere (a baseline, an expert's split; vertex i = graph.nodes[i]) made into the
// plan and report solveModel gives its own (mapped onto the devices of a topology as solveModel's).
Expected<Placed> placedFrom(const LoadedModel& model, const PlaceOptions& options, SolveResult solve,
                            const RunControl& control = {});

// The report as `place` prints or writes it (indented JSON and a newline).
std::string reportText(const Placed& placed);

// The annotated model (as -o writes it into `output_dir`, whose relative external-data locations it
// fixes; empty: the model's own directory) and the stage sub-models with their manifest.
Expected<std::string> annotatedModel(const LoadedModel& model, const Placed& placed, AnnotateMode mode,
                                     const std::filesystem::path& output_dir = {});
// `layout` given: stages to be written as files, each with the data files it reads beside it.
Expected<StageSet> stageModels(const LoadedModel& model, const Placed& placed,
                               const std::optional<StageDataLayout>& layout = std::nullopt);
// The plan written into the model's metadata, as JSON text (node → device and stage, ...).
Expected<std::string> placementJson(const LoadedModel& model, const Placed& placed);

// A further file a run writes with its outputs (a picture: --svg, --dot, --timeline).
struct ExtraFile {
  std::string option;  // how messages name it: "--svg"
  std::filesystem::path path;
  std::string bytes;
};

// Where a run writes its outputs; each unset one is not written.
struct OutputFiles {
  std::optional<std::filesystem::path> model;       // the annotated model (-o)
  std::optional<std::filesystem::path> stages_dir;  // stage<k>.onnx and pipeline.json
  std::optional<std::filesystem::path> report;      // report.json
  std::optional<std::filesystem::path> placement;   // the plan as JSON
  std::optional<std::filesystem::path> triton_dir;  // a Triton model repository (--emit triton=DIR)
  std::optional<std::filesystem::path> genai_dir;   // stages and genai_config.json (--emit genai=DIR)
  bool force = false;  // replace a stage directory that holds other files (never one holding an input)
  // How the written models reach the model's external data: links to its data files, or copies.
  StageData stage_data = StageData::Reference;
  std::vector<ExtraFile> extra;  // written in the same transaction
};

// What can be refused before any work: two outputs naming one file, an output that is one of
// `inputs` (the model file) or a directory to replace that holds one, a stage directory that holds
// other files (unless force). `naming` says how the message names the options.
Status checkOutputFiles(const OutputFiles& files, OptionNaming naming,
                        const std::vector<std::filesystem::path>& inputs = {});

// Writes every output named in `files`, all or none: on any failure, or once `stop` is set, nothing
// that was written remains and what the destinations held is kept. Never writes over the model.
Status writeOutputs(const LoadedModel& model, const Placed& placed, AnnotateMode mode, const OutputFiles& files,
                    const std::atomic<bool>* stop);

}  // namespace placer::api
