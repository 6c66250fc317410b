#include "api/place.h"

#include <map>

#include "api/plan_mapping.h"
#include "api/replicas.h"
#include "onnx_io/annotated_model.h"
#include "onnx_io/json_text.h"
#include "onnx_io/output_files.h"
#include "onnx_io/plan_builder.h"
#include "onnx_io/genai_config.h"
#include "onnx_io/placement_strings.h"
#include "onnx_io/report.h"
#include "onnx_io/triton_repository.h"
#include "onnx_io/stage_directory.h"

namespace placer::api {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

ReportContext reportContext(const LoadedModel& model, double seconds) {
  ReportContext context;
  context.model = model.source.fromMemory() ? model.source.name
                                            : std::filesystem::path(model.graph.path).filename().string();
  context.devices = model.devices.name;
  context.seconds = seconds;
  context.shared_weights = toString(resolveSharedWeightMode(model.annotation.problem, model.shared_weights));
  context.dims = model.graph.input_dims;
  context.phase = model.graph.phase;
  context.accelerator = {model.devices.accelerators.op_overhead, model.devices.accelerators.boundary_overhead, 0};
  context.cpu = {model.devices.cpus.op_overhead, model.devices.cpus.boundary_overhead,
                 model.devices.cpus.boundary_bandwidth};
  return context;
}

// Beside layer_assignment_settings: ONNX Runtime's name-based string and Olive's split_assignments,
// or why each is missing.
void addPlacementStrings(nlohmann::ordered_json& report, const OnnxGraph& graph, const PlacementPlan& plan) {
  const PlacementStrings strings = placementStrings(graph, plan);
  auto value = [](const std::string& s) { return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s); };
  nlohmann::ordered_json ordered;
  for (auto& [key, v] : report.items()) {
    ordered[key] = v;
    if (key != "layer_assignment_settings") continue;
    ordered["name_based_layer_assignment"] = value(strings.name_based);
    if (strings.name_based.empty()) ordered["name_based_layer_assignment_note"] = strings.name_note;
    ordered["split_assignments"] = value(strings.split_assignments);
    if (strings.split_assignments.empty()) ordered["split_assignments_note"] = strings.split_note;
  }
  report = std::move(ordered);
}

std::vector<std::filesystem::path> inputsOf(const LoadedModel& model) {
  if (model.source.fromMemory()) return {};
  return {model.source.path};
}

}  // namespace

Expected<PipelineOutcome> runPipelineOf(Problem problem, const PlaceOptions& options, const RunControl& control) {
  if (control.stop && control.stop->load()) return interrupted("interrupted");
  PassOptions pass_options;
  pass_options.solver = options.solver;
  pass_options.solver.progress = control.progress;
  pass_options.solver.budget = Budget(pass_options.solver.time_limit, control.stop);
  pass_options.verify_each = options.verify_each;
  problem.objective.goal = options.goal;
  problem.objective.gpipe = options.gpipe;
  PassArguments arguments;
  if (options.algorithm_given) arguments["partition"] = options.algorithm;
  auto registry = passRegistry(options);
  if (!registry) return registry.status();
  return runPipeline(std::move(problem), pipelineOf(options), pass_options, arguments, &*registry);
}

// The plan and report of a solve on `problem` (vertex i = graph.nodes[i]).
// With replicas > 1, `problem` is the replicated one (core/replicas.h).
Expected<Placed> finish(const LoadedModel& model, const PlaceOptions& options, Problem problem, SolveResult solve,
                        const RunControl& control, int replicas = 1);

// A model with no operator left (every output a graph input, a weight or a computation on weights
// alone, which the loader folds) has nothing to place and no stage to write.
Status checkHasOperators(const LoadedModel& model) {
  if (!model.graph.nodes.empty()) return Status::ok();
  return invalidInput(model.graph.path +
                      ": the graph has no operators to place (every output is a graph input, a weight, or "
                      "computed from weights alone)");
}

Expected<Placed> solveModel(const LoadedModel& model, const PlaceOptions& options, const RunControl& control) {
  if (Status s = checkHasOperators(model); !s) return s;
  auto run = runReplicated(model.annotation.problem, options, control);
  if (!run) return run.status().withContext(model.graph.path);
  PipelineOutcome& outcome = run->outcome;
  // The problem as the pipeline ends with it: the model's, with the costs a plugin's pass set.
  auto out = finish(model, options, std::move(outcome.problem), std::move(outcome.solve), control, run->replicas);
  if (!out) return out;
  out->log = std::move(outcome.log);
  if (!run->report.is_null()) out->report["replicas"] = std::move(run->report);
  return out;
}

Expected<Placed> placedFrom(const LoadedModel& model, const PlaceOptions& options, SolveResult solve,
                            const RunControl& control) {
  if (Status s = checkHasOperators(model); !s) return s;
  Problem problem = model.annotation.problem;
  problem.objective.goal = options.goal;
  problem.objective.gpipe = options.gpipe;
  return finish(model, options, std::move(problem), std::move(solve), control);
}

Expected<Placed> finish(const LoadedModel& model, const PlaceOptions& options, Problem problem, SolveResult solve,
                        const RunControl& control, int replicas) {
  Placed out;
  out.problem = std::move(problem);
  out.solve = std::move(solve);
  out.eval = evaluateThroughput(out.problem, out.solve.placement.device_of);
  out.plan = makePlacementPlan(out.problem, out.solve, out.eval, options.algorithm);
  nameReplicas(out.plan, model.annotation.problem.devices, replicas);
  if (options.goal == Goal::Latency) {
    out.plan.objective = "latency";
    out.plan.value = out.solve.value;
  }
  // On a topology, the stages' physical devices (the plan's device names change to them).
  const Budget map_budget(options.map_time_limit.value_or(kMapTimeLimit), control.stop);
  auto mapping = mapPlanOntoTopology(model.devices, options, out.problem, out.solve.placement.device_of, out.eval,
                                     out.plan, map_budget, replicas);
  if (!mapping) return mapping.status().withContext(model.graph.path);
  out.seconds = secondsSince(control.start);
  out.report = placementReport(reportContext(model, out.seconds), out.problem, out.plan, out.eval, out.solve);
  if (!mapping->is_null()) out.report["mapping"] = std::move(*mapping);
  addPlacementStrings(out.report, model.graph, out.plan);
  return out;
}

std::string reportText(const Placed& placed) {
  return jsonText(placed.report, 2) + "\n";
}

Expected<std::string> annotatedModel(const LoadedModel& model, const Placed& placed, AnnotateMode mode,
                                     const std::filesystem::path& output_dir) {
  return annotatedModelBytes(model.source, model.graph, placed.plan, mode, output_dir);
}

Expected<StageSet> stageModels(const LoadedModel& model, const Placed& placed,
                               const std::optional<StageDataLayout>& layout) {
  return buildStageModels(model.source, model.graph, placed.plan, layout);
}

Expected<std::string> placementJson(const LoadedModel& model, const Placed& placed) {
  return placementPlanText(model.graph, placed.plan);
}

Status checkOutputFiles(const OutputFiles& files, OptionNaming naming,
                        const std::vector<std::filesystem::path>& inputs) {
  struct Named {
    std::string option;
    const std::optional<std::filesystem::path>* path;
    bool directory;
  };
  const std::vector<Named> named{
      {naming == OptionNaming::Flag ? "-o" : optionName("output", naming), &files.model, false},
      {optionName("stages-dir", naming), &files.stages_dir, true},
      {optionName("report", naming), &files.report, false},
      {optionName("placement", naming), &files.placement, false},
      {naming == OptionNaming::Flag ? "--emit triton" : optionName("triton_dir", naming), &files.triton_dir, true},
      {naming == OptionNaming::Flag ? "--emit genai" : optionName("genai_dir", naming), &files.genai_dir, true}};
  std::map<std::filesystem::path, std::string> seen;
  auto claim = [&](const std::string& name, const std::filesystem::path& path) {
    std::error_code ec;
    std::filesystem::path resolved = std::filesystem::weakly_canonical(path, ec);
    if (ec) resolved = std::filesystem::absolute(path).lexically_normal();
    auto [previous, inserted] = seen.try_emplace(resolved, name);
    if (inserted) return Status::ok();
    return unsupported(previous->second + " and " + name + " name the same file (" + path.string() +
                       "); give each output its own path");
  };
  for (const auto& [name, path, directory] : named) {
    if (!*path) continue;
    if (Status s = claim(name, **path); !s) return s;
    if (Status s = refuseInputAsOutput(**path, directory, inputs); !s) return s;
  }
  for (const ExtraFile& extra : files.extra) {
    if (Status s = claim(extra.option, extra.path); !s) return s;
    if (Status s = refuseInputAsOutput(extra.path, false, inputs); !s) return s;
  }
  const std::string force = naming == OptionNaming::Flag ? std::string("--force") : optionName("force", naming);
  if (files.stages_dir && !files.force) {
    if (Status s = replaceableAsStageDirectory(*files.stages_dir); !s) {
      return Status(s.code(), s.message() + " (" + force + " replaces it)");
    }
  }
  if (files.genai_dir && !files.force) {
    if (Status s = replaceableAsStageDirectory(*files.genai_dir); !s) {
      return Status(s.code(), s.message() + " (" + force + " replaces it)");
    }
  }
  if (files.triton_dir && !files.force) {
    if (Status s = replaceableAsTritonRepository(*files.triton_dir); !s) {
      return Status(s.code(), s.message() + " (" + force + " replaces it)");
    }
  }
  return Status::ok();
}

namespace {

// Stages the annotated model at `path` and, when the model keeps weights in external data that the
// model at `path` cannot reach by a location, the links or the copy beside it.
Status stageAnnotatedModel(OutputTransaction& outputs, const LoadedModel& model, const Placed& placed,
                           AnnotateMode mode, const OutputFiles& files) {
  const std::filesystem::path& path = *files.model;
  const std::filesystem::path dir = std::filesystem::absolute(path).parent_path();
  ModelDataOutput data{files.stage_data, path.filename().string() + ".data", {}};
  auto bytes = annotatedModelBytes(model.source, model.graph, placed.plan, mode, dir, &data);
  if (!bytes) return bytes.status();
  for (const DataFile& file : data.files) {
    const std::filesystem::path target = dir / file.name;
    std::error_code ec;
    if (!file.link_to.empty() && std::filesystem::equivalent(target, file.link_to, ec)) continue;  // linked before
    if (std::filesystem::exists(std::filesystem::symlink_status(target, ec)) && !files.force) {
      return ioError("refusing to write " + target.string() + " beside " + path.string() +
                     ": it exists and is not the model's data file (--force replaces it)");
    }
    if (Status s = outputs.stageDataFile(target, file); !s) return s;
  }
  return outputs.stageFile(path, *bytes);
}

}  // namespace

Status writeOutputs(const LoadedModel& model, const Placed& placed, AnnotateMode mode, const OutputFiles& files,
                    const std::atomic<bool>* stop) {
  // Each output is staged beside its destination, then all are moved into place: a failure or a
  // signal before the end of the commit leaves the destinations as they were.
  OutputTransaction outputs(inputsOf(model), stop);
  if (files.model) {
    if (Status s = stageAnnotatedModel(outputs, model, placed, mode, files); !s) return s;
  }
  const StageDataLayout layout{files.stage_data, false};
  std::optional<StageSet> stages;
  if (files.stages_dir) {
    auto built = stageModels(model, placed, layout);
    if (!built) return built.status();
    if (Status s = stageStageDirectory(outputs, *files.stages_dir, *built, files.force); !s) return s;
    stages = std::move(*built);
  }
  if (files.genai_dir) {
    if (!stages) {
      auto built = stageModels(model, placed, layout);
      if (!built) return built.status();
      stages = std::move(*built);
    }
    auto config = genaiConfig(model.graph, placed.plan, *stages);
    if (!config) return config.status();
    if (Status s = stageStageDirectory(outputs, *files.genai_dir, *stages, files.force,
                                       {{"genai_config.json", *config}});
        !s)
      return s;
  }
  if (files.triton_dir) {
    // Each stage in its own version directory, with its data files beside it. Only a copied data
    // file's name depends on that (model.onnx.data): the stages built above serve unless data is
    // copied.
    if (!stages || files.stage_data == StageData::Copy) {
      auto built = stageModels(model, placed, StageDataLayout{files.stage_data, true});
      if (!built) return built.status();
      stages = std::move(*built);
    }
    auto repository = tritonRepository(*stages, placed.plan, reportContext(model, 0).model);
    if (!repository) return repository.status();
    if (Status s = outputs.stageDirectory(*files.triton_dir, repository->files(), repository->dataFiles(),
                                          files.force, replaceableAsTritonRepository);
        !s)
      return s;
  }
  if (files.report) {
    if (Status s = outputs.stageFile(*files.report, reportText(placed)); !s) return s;
  }
  if (files.placement) {
    auto text = placementJson(model, placed);
    if (!text) return text.status();
    if (Status s = outputs.stageFile(*files.placement, *text); !s) return s;
  }
  for (const ExtraFile& extra : files.extra) {
    if (Status s = outputs.stageFile(extra.path, extra.bytes); !s) return s.withContext(extra.option);
  }
  return outputs.commit();
}

}  // namespace placer::api
