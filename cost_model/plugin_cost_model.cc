#include "cost_model/plugin_cost_model.h"

#include <dlfcn.h>

#include <vector>

namespace placer {

Expected<std::shared_ptr<PluginCostModel>> PluginCostModel::load(const std::filesystem::path& path) {
  // dlopen searches the library path for a bare name; a plugin is always given by its path.
  const std::string file = path.has_parent_path() ? path.string() : "./" + path.string();
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return ioError("cannot load cost plugin " + path.string() + ": " + ::dlerror());
  std::shared_ptr<PluginCostModel> model(new PluginCostModel());
  model->handle_ = handle;
  model->name_ = "plugin " + path.filename().string();
  auto abi = reinterpret_cast<onnx_placer_cost_plugin_abi_fn>(::dlsym(handle, "onnx_placer_cost_plugin_abi"));
  auto estimate = reinterpret_cast<onnx_placer_estimate_fn>(::dlsym(handle, "onnx_placer_estimate"));
  if (!abi || !estimate) {
    return invalidInput(path.string() +
                        ": not an onnx-placer cost plugin (it must export onnx_placer_cost_plugin_abi and "
                        "onnx_placer_estimate; see cost_model/cost_plugin_abi.h)");
  }
  if (const int version = abi(); version != ONNX_PLACER_COST_PLUGIN_ABI) {
    return invalidInput(path.string() + ": cost plugin built for ABI version " + std::to_string(version) +
                        ", this onnx-placer speaks version " + std::to_string(ONNX_PLACER_COST_PLUGIN_ABI));
  }
  model->estimate_ = [estimate](const onnx_placer_op* op, const onnx_placer_devices* devices, double* accelerator,
                                double* cpu, std::string&) { return estimate(op, devices, accelerator, cpu); };
  return model;
}

std::shared_ptr<PluginCostModel> PluginCostModel::fromFunction(std::string name, EstimateFn estimate,
                                                               std::shared_ptr<const void> library) {
  std::shared_ptr<PluginCostModel> model(new PluginCostModel());
  model->name_ = std::move(name);
  model->estimate_ = std::move(estimate);
  model->library_ = std::move(library);
  return model;
}

PluginCostModel::~PluginCostModel() {
  if (handle_) ::dlclose(handle_);
}

TimeEstimate PluginCostModel::estimate(const OnnxGraph& graph, int node, const DeviceSpec& devices) const {
  const OnnxNode& n = graph.nodes[node];
  // Views of our tensors in the ABI's plain structs; `dims` keeps the shape arrays alive.
  std::vector<std::vector<std::int64_t>> dims;
  auto tensors = [&](const std::vector<int>& ids) {
    std::vector<onnx_placer_tensor> out;
    for (int id : ids) {
      onnx_placer_tensor t{"", 0, -1, nullptr, 0};
      if (id >= 0) {
        const TensorInfo& info = graph.tensors[id];
        t.name = info.name.c_str();
        t.element_type = info.element_type;
        t.is_weight = info.is_weight;
        if (info.shape) {
          dims.emplace_back(info.shape->begin(), info.shape->end());
          t.rank = static_cast<std::int32_t>(info.shape->size());
        }
      }
      out.push_back(t);
    }
    return out;
  };
  dims.reserve(n.inputs.size() + n.outputs.size());
  std::vector<onnx_placer_tensor> inputs = tensors(n.inputs), outputs = tensors(n.outputs);
  // Point at the shape arrays only now that `dims` no longer grows.
  std::size_t next = 0;
  for (auto* list : {&inputs, &outputs}) {
    for (onnx_placer_tensor& t : *list) {
      if (t.rank >= 0) t.dims = dims[next++].data();
    }
  }
  const onnx_placer_op op{n.name.c_str(),   n.op_type.c_str(),
                          n.domain.c_str(), static_cast<std::int32_t>(inputs.size()),
                          inputs.data(),    static_cast<std::int32_t>(outputs.size()),
                          outputs.data()};
  const onnx_placer_devices d{devices.accelerators.count,
                              devices.accelerators.memory,
                              devices.accelerators.peak_flops,
                              devices.accelerators.memory_bandwidth,
                              devices.cpus.count,
                              devices.cpus.peak_flops,
                              devices.cpus.memory_bandwidth,
                              devices.link.bandwidth};
  double accelerator = 0, cpu = 0;
  std::string reason;
  const int rc = estimate_(&op, &d, &accelerator, &cpu, reason);
  if (rc == 1) return {};
  if (rc != 0 || !(accelerator >= 0) || !(cpu >= 0)) {
    if (error_.empty()) {
      error_ = name_ + " failed on node \"" + n.name + "\" (" + n.op_type + "): " +
               (reason.empty() ? "returned " + std::to_string(rc) + (rc == 0 ? " with a negative or NaN time" : "")
                               : reason);
    }
    return {};
  }
  return TimeEstimate{accelerator, cpu};
}

}  // namespace placer
