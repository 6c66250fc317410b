// A cost model in a shared library (--cost-plugin), loaded with dlopen and called through the C ABI
// of cost_model/cost_plugin_abi.h. The library stays loaded for the model's lifetime.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "cost_model/cost_model.h"
#include "cost_model/cost_plugin_abi.h"

namespace placer {

class PluginCostModel : public CostModel {
 public:
  // Loads the library; fails naming the file when it cannot be opened, lacks the two functions, or
  // was built for another ABI version.
  static Expected<std::shared_ptr<PluginCostModel>> load(const std::filesystem::path& path);
  ~PluginCostModel() override;
  PluginCostModel(const PluginCostModel&) = delete;
  PluginCostModel& operator=(const PluginCostModel&) = delete;

  std::string_view name() const override { return name_; }
  // Both times, or none when the plugin declines the node (the ABI answers both or neither).
  TimeEstimate estimate(const OnnxGraph& graph, int node, const DeviceSpec& devices) const override;
  // The first error a call reported (the CostModel interface cannot return one); empty if none.
  const std::string& error() const { return error_; }

 private:
  PluginCostModel() = default;
  void* handle_ = nullptr;
  onnx_placer_estimate_fn estimate_ = nullptr;
  std::string name_;
  mutable std::string error_;
};

}  // namespace placer
