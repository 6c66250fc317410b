#include "api/plugins.h"

#include <dlfcn.h>

#include <cmath>
#include <set>

namespace placer::api {

// What a registration function writes into, through the host table.
struct RegistryState {
  std::string plugin;
  std::vector<Plugins::PassEntry>* passes;
  std::vector<Plugins::CostEntry>* costs;
  std::set<std::string> names;
  std::string error;
};

}  // namespace placer::api

struct onnx_placer_plugin_registry {
  placer::api::RegistryState state;
};

// The problem as a pass plugin sees it, and what the pass said.
struct onnx_placer_pass_graph {
  placer::Problem* problem = nullptr;
  std::vector<std::pair<std::size_t, std::size_t>> edges;
  std::string note, error;
  bool changed = false;
};

namespace placer::api {

namespace {

// Set by host->fail(NULL, ...) from a cost model, read right after its call returns.
thread_local std::string cost_failure;

int registerPass(onnx_placer_plugin_registry* registry, const char* name, const char* help, onnx_placer_pass_fn run,
                 void* user_data) {
  RegistryState& s = registry->state;
  if (name == nullptr || *name == '\0' || run == nullptr) {
    s.error = "registers a pass without a name or a function";
    return 1;
  }
  if (!s.names.insert(std::string("pass ") + name).second) {
    s.error = "registers the pass '" + std::string(name) + "' twice";
    return 1;
  }
  s.passes->push_back({name, help ? help : "", s.plugin, run, user_data});
  return 0;
}

int registerCostModel(onnx_placer_plugin_registry* registry, const char* name, onnx_placer_cost_fn estimate,
                      void* user_data) {
  RegistryState& s = registry->state;
  if (name == nullptr || *name == '\0' || estimate == nullptr) {
    s.error = "registers a cost model without a name or a function";
    return 1;
  }
  if (!s.names.insert(std::string("cost ") + name).second) {
    s.error = "registers the cost model '" + std::string(name) + "' twice";
    return 1;
  }
  s.costs->push_back({name, s.plugin, estimate, user_data});
  return 0;
}

bool validNode(const onnx_placer_pass_graph* g, std::size_t node) {
  return g != nullptr && node < boost::num_vertices(g->problem->graph);
}

std::size_t nodeCount(const onnx_placer_pass_graph* g) {
  return g ? boost::num_vertices(g->problem->graph) : 0;
}

const char* nodeName(const onnx_placer_pass_graph* g, std::size_t node) {
  return validNode(g, node) ? g->problem->graph[node].name.c_str() : "";
}

const char* nodeOpType(const onnx_placer_pass_graph* g, std::size_t node) {
  return validNode(g, node) ? g->problem->graph[node].op_type.c_str() : "";
}

double nodeSeconds(const onnx_placer_pass_graph* g, std::size_t node, int device) {
  if (!validNode(g, node)) return NAN;
  const OpNode& n = g->problem->graph[node];
  return device == ONNX_PLACER_CPU ? n.p_cpu : n.p_acc;
}

void setNodeSeconds(onnx_placer_pass_graph* g, std::size_t node, int device, double seconds) {
  if (!validNode(g, node) || (device != ONNX_PLACER_ACCELERATOR && device != ONNX_PLACER_CPU)) {
    if (g && g->error.empty()) g->error = "set_node_seconds on node " + std::to_string(node) + " or device " +
                                          std::to_string(device) + ", which do not exist";
    return;
  }
  if (!(seconds >= 0)) {
    if (g->error.empty()) g->error = "a negative or NaN time for node '" + g->problem->graph[node].name + "'";
    return;
  }
  OpNode& n = g->problem->graph[node];
  if (device == ONNX_PLACER_ACCELERATOR) {
    // On a machine of several kinds the time is the first kind's; the others keep their ratio to it
    // (the new time itself where there is no ratio: from or to 0 or unsupported).
    for (double& t : n.p_kinds) {
      const bool scalable = n.p_acc > 0 && std::isfinite(n.p_acc) && std::isfinite(t) && std::isfinite(seconds);
      t = scalable ? t * (seconds / n.p_acc) : seconds;
    }
  }
  (device == ONNX_PLACER_CPU ? n.p_cpu : n.p_acc) = seconds;
  g->changed = true;
}

double nodeMemory(const onnx_placer_pass_graph* g, std::size_t node) {
  return validNode(g, node) ? g->problem->graph[node].memory : NAN;
}

void setNodeMemory(onnx_placer_pass_graph* g, std::size_t node, double bytes) {
  if (!validNode(g, node) || !(bytes >= 0) || !std::isfinite(bytes)) {
    if (g && g->error.empty()) g->error = "set_node_memory with a node that does not exist or a bad size";
    return;
  }
  g->problem->graph[node].memory = bytes;
  g->changed = true;
}

std::size_t edgeCount(const onnx_placer_pass_graph* g) {
  return g ? g->edges.size() : 0;
}

void edgeAt(const onnx_placer_pass_graph* g, std::size_t index, std::size_t* from, std::size_t* to) {
  if (!g || index >= g->edges.size() || !from || !to) return;
  *from = g->edges[index].first;
  *to = g->edges[index].second;
}

void note(onnx_placer_pass_graph* g, const char* text) {
  if (g && text) g->note = text;
}

void failWith(onnx_placer_pass_graph* g, const char* message) {
  const std::string text = message ? message : "failed";
  if (g) {
    g->error = text;
  } else {
    cost_failure = text;
  }
}

const onnx_placer_plugin_host kHost{ONNX_PLACER_ABI_VERSION,
                                    registerPass,
                                    registerCostModel,
                                    nodeCount,
                                    nodeName,
                                    nodeOpType,
                                    nodeSeconds,
                                    setNodeSeconds,
                                    nodeMemory,
                                    setNodeMemory,
                                    edgeCount,
                                    edgeAt,
                                    note,
                                    failWith};

// A plugin's pass as one of the pipeline's: it runs the plugin's function on a view of the problem.
class PluginPass : public Pass {
 public:
  PluginPass(Plugins::PassEntry entry, std::string argument, std::shared_ptr<const void> keep)
      : entry_(std::move(entry)), argument_(std::move(argument)), keep_(std::move(keep)) {}
  std::string_view name() const override { return entry_.name; }
  Expected<PassResult> run(Problem& problem, const PassOptions&, PipelineState&) override {
    onnx_placer_pass_graph graph;
    graph.problem = &problem;
    for (auto e : boost::make_iterator_range(boost::edges(problem.graph)))
      graph.edges.emplace_back(boost::source(e, problem.graph), boost::target(e, problem.graph));
    const int rc = entry_.run(entry_.user_data, &graph, argument_.c_str());
    if (rc != 0 || !graph.error.empty()) {
      return unsupported("the pass '" + entry_.name + "' of plugin " + entry_.plugin + " failed: " +
                         (graph.error.empty() ? "it returned " + std::to_string(rc) : graph.error));
    }
    PassResult result;
    result.note = graph.note.empty() ? (graph.changed ? "changed node costs" : "no change") : graph.note;
    // The costs a plugin sets are the run's costs: the problem the placement is expanded onto,
    // evaluated and reported on. That problem is the user's graph, so the pass manager takes them
    // only from a pass that runs before any pass changes the vertex set.
    result.changed = result.sets_costs = graph.changed;
    return result;
  }

 private:
  Plugins::PassEntry entry_;
  std::string argument_;
  std::shared_ptr<const void> keep_;  // the plugin's library, loaded while the pass lives
};

}  // namespace

struct Plugins::Library {
  std::filesystem::path path;
  void* handle = nullptr;
  ~Library() {
    if (handle) ::dlclose(handle);
  }
};

Expected<std::shared_ptr<const Plugins>> Plugins::load(const std::vector<std::filesystem::path>& paths) {
  auto plugins = std::make_shared<Plugins>();
  for (const std::filesystem::path& path : paths) {
    // dlopen searches the library path for a bare name; a plugin is always given by its path.
    const std::string file = path.has_parent_path() ? path.string() : "./" + path.string();
    auto library = std::make_shared<Library>();
    library->path = path;
    library->handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library->handle) return ioError("cannot load pass plugin " + path.string() + ": " + ::dlerror());
    auto info = reinterpret_cast<onnx_placer_plugin_info_fn>(::dlsym(library->handle, "onnx_placer_plugin_info"));
    if (!info) {
      return invalidInput(path.string() +
                          ": not an onnx-placer pass plugin (it must export onnx_placer_plugin_info; see "
                          "onnx_placer/plugin.h)");
    }
    const onnx_placer_plugin plugin = info();
    if (plugin.abi_version != ONNX_PLACER_ABI_VERSION) {
      return invalidInput(path.string() + ": pass plugin built for ABI version " +
                          std::to_string(plugin.abi_version) + ", this onnx-placer speaks version " +
                          std::to_string(ONNX_PLACER_ABI_VERSION));
    }
    const std::string name = plugin.name ? plugin.name : path.filename().string();
    if (!plugin.register_plugin) return invalidInput(path.string() + ": plugin " + name + " has no registration function");
    onnx_placer_plugin_registry registry{{name + " (" + path.filename().string() + ")", &plugins->passes_,
                                          &plugins->costs_, {}, {}}};
    if (plugin.register_plugin(&kHost, &registry) != 0 || !registry.state.error.empty()) {
      return invalidInput(path.string() + ": plugin " + name + " failed to register" +
                          (registry.state.error.empty() ? "" : ": it " + registry.state.error));
    }
    plugins->libraries_.push_back(std::move(library));
  }
  return std::shared_ptr<const Plugins>(std::move(plugins));
}

Status Plugins::addPasses(PassRegistry& registry) const {
  // The factories, and the passes they make, keep the libraries loaded.
  const std::shared_ptr<const void> keep = std::make_shared<std::vector<std::shared_ptr<Library>>>(libraries_);
  for (const PassEntry& entry : passes_) {
    if (registry.contains(entry.name)) {
      return invalidInput("plugin " + entry.plugin + " registers the pass '" + entry.name +
                         "', which onnx-placer already has");
    }
    registry.add(entry.name, entry.help + " (plugin " + entry.plugin + ")",
                 [entry, keep](std::string_view argument) -> Expected<std::unique_ptr<Pass>> {
                   return std::unique_ptr<Pass>(std::make_unique<PluginPass>(entry, std::string(argument), keep));
                 });
  }
  return Status::ok();
}

std::vector<std::shared_ptr<const PluginCostModel>> Plugins::costModels() const {
  std::vector<std::shared_ptr<const PluginCostModel>> out;
  for (const CostEntry& entry : costs_) {
    const std::shared_ptr<const void> libraries = std::make_shared<std::vector<std::shared_ptr<Library>>>(libraries_);
    out.push_back(PluginCostModel::fromFunction(
        "plugin cost model " + entry.name,
        [entry](const onnx_placer_op* op, const onnx_placer_devices* devices, double* accelerator, double* cpu,
                std::string& reason) {
          cost_failure.clear();
          const int rc = entry.estimate(entry.user_data, op, devices, accelerator, cpu);
          reason = cost_failure;
          return rc;
        },
        libraries));
  }
  return out;
}

}  // namespace placer::api
