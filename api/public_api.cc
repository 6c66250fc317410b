// The public C++ API (include/onnx_placer/placer.h) over the facade: public Options into the facade's
// PlaceOptions, the facade's Status into the public one (codes as the CLI's exit statuses), and a
// Result that holds the loaded model and its placement and builds the annotated model and the stage
// sub-models when first asked.
#include "onnx_placer/placer.h"

#include <cmath>
#include <cstdlib>
#include <mutex>
#include <optional>

#include <nlohmann/json.hpp>

#include "api/model.h"
#include "api/place.h"
#include "solvers/bounds/certificate.h"

namespace onnx_placer {

namespace {

namespace api = placer::api;

Code codeOf(placer::StatusCode code) {
  switch (code) {
    case placer::StatusCode::Ok:
      return Code::Ok;
    case placer::StatusCode::InvalidInput:
    case placer::StatusCode::IoError:
      return Code::BadInput;
    case placer::StatusCode::Infeasible:
      return Code::Infeasible;
    case placer::StatusCode::Interrupted:
      return Code::Interrupted;
    default:
      return Code::Failure;
  }
}

Status publicStatus(const placer::Status& status) {
  if (status.code() == placer::StatusCode::ResourceLimit) {
    const bool count = status.message().find(" ideals;") != std::string::npos;
    return Status(Code::Failure, status.message() +
                                     "; use \"algorithm\": \"auto\", \"slicegraph\" or \"dpl\"" +
                                     (count ? " or a larger \"max_ideals\"" : ""));
  }
  return Status(codeOf(status.code()), status.message());
}

Status badOptions(const std::string& message) {
  return Status(Code::BadOptions, message);
}

// The public options as the facade's, checked as the CLI checks its flags.
Expected<api::PlaceOptions> facadeOptions(const Options& o) {
  api::PlaceOptions p;
  p.devices = o.devices;
  p.devices_json = o.devices_json;
  p.accelerators = o.accelerators;
  p.cpus = o.cpus;
  p.memory = o.memory;
  p.topology = o.topology;
  if (o.map == "consecutive") {
    p.map = placer::MapMethod::Consecutive;
  } else if (o.map != "optimal") {
    return badOptions("\"map\" must be optimal or consecutive (got '" + o.map + "')");
  }
  auto cost = placer::parseMapCost(o.map_cost);
  if (!cost) return badOptions("\"map_cost\" must be p2p, allreduce or auto (got '" + o.map_cost + "')");
  p.map_cost = *cost;
  if (o.replicas == "auto") {
    p.replicas = 0;
  } else {
    char* end = nullptr;
    const long long r = std::strtoll(o.replicas.c_str(), &end, 10);
    if (o.replicas.empty() || *end != '\0' || r < 1 || r > 4096)
      return badOptions("\"replicas\" must be \"auto\" or an integer from 1 to 4096 (got '" + o.replicas +
                        "')");
    p.replicas = static_cast<int>(r);
  }
  p.dims = o.dims;
  if (!o.phase.empty()) {
    p.phase = placer::parseDecoderPhase(o.phase);
    if (!p.phase) return badOptions("\"phase\" must be prompt or token (got '" + o.phase + "')");
  }
  auto shared = placer::parseSharedWeightMode(o.shared_weights);
  if (!shared)
    return badOptions("\"shared_weights\" must be replicate, colocate or auto (got '" + o.shared_weights +
                      "')");
  p.shared_weights = *shared;
  p.cost_profiles.assign(o.cost_profiles.begin(), o.cost_profiles.end());
  if (!o.cost_plugin.empty()) p.cost_plugin = o.cost_plugin;
  if (o.objective == "latency") {
    p.goal = placer::Goal::Latency;
  } else if (o.objective != "throughput") {
    return badOptions("\"objective\" must be throughput or latency (got '" + o.objective + "')");
  }
  p.algorithm = o.algorithm;
  p.algorithm_given = true;
  p.time_limit = o.time_limit;
  if (o.max_ideals) p.solver.max_ideals = *o.max_ideals;
  if (o.mip_gap) p.solver.mip_gap = *o.mip_gap;
  if (!o.mip_solver.empty()) {
    auto backend = placer::mip::parseBackend(o.mip_solver);
    if (!backend) return badOptions("\"mip_solver\" must be glpk or cbc (got '" + o.mip_solver + "')");
    p.solver.mip_backend = *backend;
  }
  if (o.subgraphs_per_accelerator) p.solver.subgraphs_per_accelerator = *o.subgraphs_per_accelerator;
  p.solver.orders = o.orders;
  if (o.seed) p.solver.seed = *o.seed;
  if (o.target_ratio) p.solver.target_ratio = *o.target_ratio;
  if (o.cluster_target) p.solver.cluster_target = *o.cluster_target;
  if (o.alpha) p.solver.cluster_alpha = *o.alpha;
  if (o.threads) {
    if (*o.threads < 1) return badOptions("\"threads\" must be an integer from 1 to 1024");
    p.solver.threads = *o.threads;
  }
  p.pipeline = o.pipeline;
  p.pass_plugins.assign(o.pass_plugins.begin(), o.pass_plugins.end());
  auto mode = placer::parseAnnotateMode(o.annotate);
  if (!mode) return badOptions("\"annotate\" must be metadata, ort or onnx-ir11 (got '" + o.annotate + "')");
  p.annotate = *mode;
  if (placer::Status s = api::validate(p, api::OptionNaming::Key); !s)
    return s.code() == placer::StatusCode::Unsupported ? badOptions(s.message()) : publicStatus(s);
  return p;
}

api::RunControl runControl(const Options& o) {
  api::RunControl control;
  control.stop = o.stop;
  if (o.progress) {
    control.progress = [callback = o.progress](const placer::ProgressEvent& e) {
      callback(Progress{e.phase, e.done, e.total, e.detail});
    };
  }
  return control;
}

std::string_view viewOf(const std::string& s) {
  return s;
}

}  // namespace

struct Result::Impl {
  api::LoadedModel model;
  api::Placed placed;
  placer::AnnotateMode mode = placer::AnnotateMode::Ort;
  std::string report, placement;
  mutable std::mutex lock;
  mutable std::optional<placer::Expected<std::string>> annotated;
  mutable std::optional<placer::Expected<placer::StageSet>> stages;

  const placer::Expected<placer::StageSet>& stageSet() const {
    std::lock_guard<std::mutex> guard(lock);
    if (!stages) stages = api::stageModels(model, placed);
    return *stages;
  }
};

struct ResultAccess {
  static Result make(std::unique_ptr<Result::Impl> impl) { return Result(std::move(impl)); }
};

Result::Result(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Result::Result(Result&&) noexcept = default;
Result& Result::operator=(Result&&) noexcept = default;
Result::~Result() = default;

const std::string& Result::reportJson() const {
  return impl_->report;
}

const std::string& Result::placementJson() const {
  return impl_->placement;
}

std::vector<NodePlacement> Result::placement() const {
  std::vector<NodePlacement> out;
  const placer::PlacementPlan& plan = impl_->placed.plan;
  const auto& nodes = impl_->model.graph.nodes;
  out.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const int stage = plan.stage_of_node[i];
    out.push_back({nodes[i].name, plan.devices[plan.stages[stage].device].name, stage});
  }
  return out;
}

Certificate Result::certificate() const {
  const placer::SolveResult& solve = impl_->placed.solve;
  const placer::Certificate& c = solve.certificate;
  Certificate out;
  out.status = placer::toString(solve.status);
  out.value = solve.value;
  out.lower_bound = c.lower;
  out.ratio = c.ratio();
  out.bound_method = c.method;
  out.bound_space = c.space;
  out.summary = placer::certificateSummary(c);
  return out;
}

Expected<std::string_view> Result::annotatedModel() const {
  std::lock_guard<std::mutex> guard(impl_->lock);
  if (!impl_->annotated) impl_->annotated = api::annotatedModel(impl_->model, impl_->placed, impl_->mode);
  if (!*impl_->annotated) return publicStatus(impl_->annotated->status());
  return viewOf(**impl_->annotated);
}

std::size_t Result::stageCount() const {
  return impl_->placed.plan.stages.size();
}

Expected<std::string_view> Result::stageModel(std::size_t index) const {
  if (index >= stageCount()) {
    return Status(Code::BadOptions, "stage " + std::to_string(index) + " does not exist (the placement has " +
                                        std::to_string(stageCount()) + " stages)");
  }
  const auto& set = impl_->stageSet();
  if (!set) return publicStatus(set.status());
  return viewOf(set->models[index].bytes);
}

Expected<std::string_view> Result::stageManifestJson() const {
  const auto& set = impl_->stageSet();
  if (!set) return publicStatus(set.status());
  return viewOf(set->manifest_json);
}

const char* version() {
  return ONNX_PLACER_VERSION;
}

unsigned abiVersion() {
  return ONNX_PLACER_ABI_VERSION;
}

namespace {

// How placeSource() treats the model's bytes after the solve.
enum class Outputs {
  Lazy,   // the annotated model and the stages are built when first asked for, reading the source again
  Eager,  // both are built within the call, so the source is not read after it returns
};

Expected<Result> placeSource(const placer::ModelSource& source, const Options& options,
                             const api::OutputFiles* files, Outputs outputs = Outputs::Lazy) {
  auto facade = facadeOptions(options);
  if (!facade) return facade.status();
  const api::RunControl control = runControl(options);
  if (files) {
    std::vector<std::filesystem::path> inputs;
    if (!source.fromMemory()) inputs.push_back(source.path);
    if (placer::Status s = api::checkOutputFiles(*files, api::OptionNaming::Key, inputs); !s) {
      return s.code() == placer::StatusCode::Unsupported ? badOptions(s.message()) : publicStatus(s);
    }
  }
  auto impl = std::make_unique<Result::Impl>();
  auto model = api::loadModel(source, *facade, api::OptionNaming::Key);
  if (!model) return publicStatus(model.status());
  impl->model = std::move(*model);
  auto placed = api::solveModel(impl->model, *facade, control);
  if (!placed) return publicStatus(placed.status());
  impl->placed = std::move(*placed);
  impl->mode = facade->annotate;
  impl->report = api::reportText(impl->placed);
  auto plan = api::placementJson(impl->model, impl->placed);
  if (!plan) return publicStatus(plan.status());
  impl->placement = std::move(*plan);
  if (files) {
    if (placer::Status s = api::writeOutputs(impl->model, impl->placed, impl->mode, *files, options.stop); !s)
      return publicStatus(s);
  }
  if (outputs == Outputs::Eager) {
    // Built now, while the caller's bytes are alive; a failure stays in the result, reported when the
    // output is asked for, as a lazy one would be.
    impl->annotated = api::annotatedModel(impl->model, impl->placed, impl->mode);
    impl->stages = api::stageModels(impl->model, impl->placed);
    impl->model.source = placer::ModelSource::inMemory({}, impl->model.source.displayName());
  }
  return ResultAccess::make(std::move(impl));
}

}  // namespace

Expected<Result> place(const void* model, std::size_t size, const Options& options) {
  if (model == nullptr && size > 0) return Status(Code::BadInput, "the model is a null pointer");
  const std::string name = options.model_name.empty() ? "model bytes" : options.model_name;
  // The caller's bytes are read in place, never copied: every output is built before returning.
  const std::string_view bytes(static_cast<const char*>(model), size);
  return placeSource(placer::ModelSource::inMemory(bytes, name), options, nullptr, Outputs::Eager);
}

Expected<Result> placeFile(const std::string& path, const Options& options) {
  return placeSource(placer::ModelSource(path), options, nullptr);
}

Expected<Result> placeToFiles(const std::string& path, const OutputFiles& files, const Options& options) {
  api::OutputFiles out;
  if (!files.model.empty()) out.model = files.model;
  if (!files.stages_dir.empty()) out.stages_dir = files.stages_dir;
  if (!files.report.empty()) out.report = files.report;
  if (!files.placement.empty()) out.placement = files.placement;
  out.force = files.force;
  const auto mode = placer::parseStageData(files.stage_data);
  if (!mode)
    return badOptions("stage_data must be \"reference\" or \"copy\" (got \"" + files.stage_data + "\")");
  out.stage_data = *mode;
  return placeSource(placer::ModelSource(path), options, &out);
}

}  // namespace onnx_placer
