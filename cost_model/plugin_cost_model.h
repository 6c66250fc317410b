// A cost model in a shared library, called through a C function: a cost plugin (--cost-plugin,
// loaded with dlopen, the C ABI of cost_model/cost_plugin_abi.h) or a cost model a pass plugin
// registered (onnx_placer/plugin.h, loaded by api/plugins.h). The library stays loaded for the
// model's lifetime.
#pragma once

#include <filesystem>
#include <functional>
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
  // The C ABI's estimate as a function (0: both times, 1: no estimate, else an error, with the reason
  // in the last argument when the plugin gave one), named `name`; `library` keeps whatever the
  // function lives in loaded.
  using EstimateFn =
      std::function<int(const onnx_placer_op*, const onnx_placer_devices*, double*, double*, std::string&)>;
  static std::shared_ptr<PluginCostModel> fromFunction(std::string name, EstimateFn estimate,
                                                       std::shared_ptr<const void> library);
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
  std::shared_ptr<const void> library_;
  EstimateFn estimate_;
  std::string name_;
  mutable std::string error_;
};

}  // namespace placer
