// Triton model repository (triton_repository.h): config.pbtxt texts written from the stage
// manifest, the stage models' bytes placed in version directories.
#include "onnx_io/triton_repository.h"

#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace placer {
namespace {

using Json = nlohmann::ordered_json;

// Triton's DataType for an ONNX element type, or nullptr.
const char* tritonType(int element_type) {
  switch (element_type) {
    case 1: return "TYPE_FP32";
    case 2: return "TYPE_UINT8";
    case 3: return "TYPE_INT8";
    case 4: return "TYPE_UINT16";
    case 5: return "TYPE_INT16";
    case 6: return "TYPE_INT32";
    case 7: return "TYPE_INT64";
    case 8: return "TYPE_STRING";
    case 9: return "TYPE_BOOL";
    case 10: return "TYPE_FP16";
    case 11: return "TYPE_FP64";
    case 12: return "TYPE_UINT32";
    case 13: return "TYPE_UINT64";
    case 16: return "TYPE_BF16";
    default: return nullptr;
  }
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// One tensor as Triton sees it: its name, type, and dims with -1 for a symbolic one.
struct Tensor {
  std::string name;
  const char* type = nullptr;
  std::vector<std::int64_t> dims;
  std::string leading;  // the symbolic name of dimension 0, if it has one
};

Expected<Tensor> tensorOf(const Json& entry) {
  Tensor t;
  t.name = entry.at("name").get<std::string>();
  t.type = tritonType(entry.at("element_type").get<int>());
  if (!t.type) {
    return unsupported("tensor '" + t.name + "' has element type " + std::to_string(entry.at("element_type").get<int>()) +
                       ", which Triton has no data type for");
  }
  const Json& dims = entry.contains("dims") ? entry.at("dims") : entry.at("shape");
  if (dims.is_null()) return unsupported("tensor '" + t.name + "' has no known rank, which Triton's dims need");
  for (std::size_t axis = 0; axis < dims.size(); ++axis) {
    if (dims[axis].is_string()) {
      t.dims.push_back(-1);
      if (axis == 0) t.leading = dims[axis].get<std::string>();
    } else {
      t.dims.push_back(dims[axis].get<std::int64_t>());
    }
  }
  return t;
}

std::string tensorsText(const char* field, const std::vector<Tensor>& tensors, bool batched) {
  std::string out = std::string(field) + " [\n";
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    std::vector<std::int64_t> dims(t.dims.begin() + (batched ? 1 : 0), t.dims.end());
    out += "  {\n    name: " + quoted(t.name) + "\n    data_type: " + t.type + "\n    dims: [ ";
    // A scalar is one element reshaped to no dimensions, as Triton writes it.
    const bool scalar = dims.empty();
    if (scalar) dims.push_back(1);
    for (std::size_t d = 0; d < dims.size(); ++d) out += (d ? ", " : "") + std::to_string(dims[d]);
    out += " ]\n";
    if (scalar) out += "    reshape: { shape: [ ] }\n";
    out += std::string("  }") + (i + 1 < tensors.size() ? "," : "") + "\n";
  }
  return out + "]\n";
}

std::string header(const std::string& name, const char* platform, std::int64_t max_batch_size) {
  return "name: " + quoted(name) + "\nplatform: " + quoted(platform) + "\nmax_batch_size: " +
         std::to_string(max_batch_size) + "\n";
}

std::string mapText(const char* field, const std::vector<Tensor>& tensors) {
  std::string out;
  for (const Tensor& t : tensors) {
    out += std::string("      ") + field + " { key: " + quoted(t.name) + " value: " + quoted(t.name) + " }\n";
  }
  return out;
}

}  // namespace

std::string tritonModelName(const std::string& model) {
  std::string stem = std::filesystem::path(model).stem().string();
  if (stem.empty()) stem = "model";
  for (char& c : stem) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  }
  return stem;
}

Expected<TritonRepository> tritonRepository(const StageSet& stages, const PlacementPlan& plan,
                                            const std::string& model_name) {
  const Json manifest = Json::parse(stages.manifest_json);
  if (manifest.contains("external_data_dir")) {
    return internalError("--emit triton: stages with external data must be built for their own directories");
  }
  const std::string name = tritonModelName(model_name);
  std::vector<std::vector<Tensor>> inputs, outputs;
  std::map<std::string, Tensor> by_name;
  std::set<std::string> leading;
  bool all_batched = true;
  for (const Json& stage : manifest.at("stages")) {
    for (const auto& [list, field] : {std::pair{&inputs, "inputs"}, std::pair{&outputs, "outputs"}}) {
      list->emplace_back();
      for (const Json& entry : stage.at(field)) {
        auto tensor = tensorOf(entry);
        if (!tensor) return tensor.status().withContext("--emit triton");
        leading.insert(tensor->leading);
        all_batched = all_batched && !tensor->leading.empty();
        by_name.emplace(tensor->name, *tensor);
        list->back().push_back(std::move(*tensor));
      }
    }
  }
  // Batching when one symbolic leading dimension runs through everything; its placed value bounds it.
  std::int64_t max_batch = 0;
  if (all_batched && leading.size() == 1) {
    const Json& first = manifest.at("stages").at(0).at("inputs");
    max_batch = first.empty() ? 0 : std::max<std::int64_t>(1, first.at(0).at("shape").at(0).get<std::int64_t>());
  }
  const bool batched = max_batch > 0;
  TritonRepository out;
  std::string steps;
  for (std::size_t k = 0; k < stages.models.size(); ++k) {
    const std::string stage_name = name + "_stage" + std::to_string(k);
    const PlannedDevice& device = plan.devices[plan.stages[k].device];
    std::string config = header(stage_name, "onnxruntime_onnx", max_batch) + tensorsText("input", inputs[k], batched) +
                         tensorsText("output", outputs[k], batched) + "instance_group [\n  {\n";
    if (device.accelerator) {
      // One instance on each listed GPU: a replicated stage's replicas.
      std::string gpus;
      for (int index : device.replicas.empty() ? std::vector<int>{device.index} : device.replicas)
        gpus += (gpus.empty() ? "" : ", ") + std::to_string(index);
      config += "    kind: KIND_GPU\n    count: 1\n    gpus: [ " + gpus + " ]\n";
    } else {
      config += "    kind: KIND_CPU\n    count: 1\n";
    }
    config += "  }\n]\n";
    out.configs.emplace_back(stage_name + "/config.pbtxt", std::move(config));
    out.models.emplace_back(stage_name + "/1/model.onnx", stages.models[k].bytes);
    for (DataFile file : stages.models[k].data) {
      file.name = stage_name + "/1/" + file.name;
      out.data.push_back(std::move(file));
    }
    steps += std::string(k ? ",\n" : "") + "    {\n      model_name: " + quoted(stage_name) +
             "\n      model_version: -1\n" + mapText("input_map", inputs[k]) + mapText("output_map", outputs[k]) + "    }";
  }
  std::vector<Tensor> graph_inputs, graph_outputs;
  for (const auto& [list, field] : {std::pair{&graph_inputs, "graph_inputs"}, std::pair{&graph_outputs, "graph_outputs"}}) {
    for (const Json& tensor : manifest.at(field)) {
      auto found = by_name.find(tensor.get<std::string>());
      if (found == by_name.end()) return internalError("--emit triton: no stage has tensor '" + tensor.get<std::string>() + "'");
      list->push_back(found->second);
    }
  }
  std::string ensemble = header(name, "ensemble", max_batch) + tensorsText("input", graph_inputs, batched) +
                         tensorsText("output", graph_outputs, batched) + "ensemble_scheduling {\n  step [\n" + steps +
                         "\n  ]\n}\n";
  out.configs.emplace_back(name + "/config.pbtxt", std::move(ensemble));
  out.ensemble = name;
  return out;
}

}  // namespace placer
