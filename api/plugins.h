// Pass plugins (include/onnx_placer/plugin.h): shared libraries loaded with --pass-plugin (or the
// "pass_plugins" option), each exporting onnx_placer_plugin_info(), that register passes and cost
// models through the host table. A library built for another ABI version is refused with both
// versions named; one that cannot be loaded or lacks the entry point is a clear error naming it.
//
// The libraries stay loaded as long as the Plugins object (and every pass or cost model made from
// it) lives. Their passes join a PassRegistry next to the built-in ones (a name already taken is an
// error); their cost models go in front of the cost stack.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "cost_model/plugin_cost_model.h"
#include "onnx_placer/plugin.h"
#include "passes/pass_manager.h"

namespace placer::api {

class Plugins {
 public:
  // Loads every library in order and runs its registration function.
  static Expected<std::shared_ptr<const Plugins>> load(const std::vector<std::filesystem::path>& paths);

  // Adds the plugins' passes to `registry`; a name the registry already has is InvalidInput.
  Status addPasses(PassRegistry& registry) const;
  // The plugins' cost models, in registration order.
  std::vector<std::shared_ptr<const PluginCostModel>> costModels() const;
  bool empty() const { return passes_.empty() && costs_.empty(); }

  struct PassEntry {
    std::string name, help, plugin;
    onnx_placer_pass_fn run = nullptr;
    void* user_data = nullptr;
  };
  struct CostEntry {
    std::string name, plugin;
    onnx_placer_cost_fn estimate = nullptr;
    void* user_data = nullptr;
  };

 private:
  struct Library;
  std::vector<std::shared_ptr<Library>> libraries_;
  std::vector<PassEntry> passes_;
  std::vector<CostEntry> costs_;
};

}  // namespace placer::api
