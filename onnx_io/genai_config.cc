// genai_config.json for a split decoder (genai_config.h).
#include "onnx_io/genai_config.h"
#include "onnx_io/decoder.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

namespace placer {
namespace {

using Json = nlohmann::ordered_json;

// The name with its first number replaced by %d ("past_key_values.0.key" -> "past_key_values.%d.key").
std::string layerPattern(const std::string& name) {
  const auto digit = name.find_first_of("0123456789");
  if (digit == std::string::npos) return "";
  auto end = digit;
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  return name.substr(0, digit) + "%d" + name.substr(end);
}

// The common %d pattern of the pasts (or presents) of one kind, or "" when the names have none.
std::string kindPattern(const OnnxGraph& graph, bool present, const std::string& kind) {
  std::set<std::string> patterns;
  for (const auto& [past, out] : graph.kv_cache) {
    const std::string& name = graph.tensors[present ? out : past].name;
    if (kvKind(name) == kind) patterns.insert(layerPattern(name));
  }
  return patterns.size() == 1 ? *patterns.begin() : "";
}

}  // namespace

Expected<std::string> genaiConfig(const OnnxGraph& graph, const PlacementPlan& plan, const StageSet& stages) {
  if (graph.kv_cache.empty()) {
    return unsupported("--emit genai needs a decoder with a KV cache (inputs past_key_values.<layer>.key/value "
                       "and outputs present.<layer>.key/value); " + graph.path + " has none");
  }
  if (!graph.tensor_index.count("logits")) {
    return unsupported("--emit genai: " + graph.path + " has no 'logits' output for GenAI to sample from");
  }
  for (const PlannedDevice& device : plan.devices) {
    if (device.replicas.size() > 1) {
      return unsupported("--emit genai: ONNX Runtime GenAI's pipeline runs each stage in one session on one "
                         "device, and this placement runs each stage on " +
                         std::to_string(device.replicas.size()) + " replicas (place with --replicas 1)");
    }
  }
  const Json manifest = Json::parse(stages.manifest_json);
  Json inputs, outputs;
  for (const char* role : {"input_ids", "inputs_embeds", "attention_mask", "position_ids"}) {
    auto t = graph.tensor_index.find(role);
    if (t != graph.tensor_index.end() && graph.tensors[t->second].is_graph_input) inputs[role] = role;
  }
  for (const auto& [role, kind, present] :
       {std::tuple{"past_key_names", "key", false}, std::tuple{"past_value_names", "value", false},
        std::tuple{"past_names", "kv", false}, std::tuple{"present_key_names", "key", true},
        std::tuple{"present_value_names", "value", true}, std::tuple{"present_names", "kv", true}}) {
    const std::string pattern = kindPattern(graph, present, kind);
    if (!pattern.empty()) (present ? outputs : inputs)[role] = pattern;
  }
  outputs["logits"] = "logits";
  Json entries = Json::object();
  for (std::size_t k = 0; k < plan.stages.size(); ++k) {
    const Json& stage = manifest.at("stages").at(k);
    Json entry;
    entry["filename"] = stage.at("file");
    Json in = Json::array(), out = Json::array();
    bool lm_head = false;
    for (const Json& t : stage.at("inputs")) in.push_back(t.at("name"));
    for (const Json& t : stage.at("outputs")) {
      out.push_back(t.at("name"));
      lm_head = lm_head || t.at("name") == "logits";
    }
    entry["inputs"] = std::move(in);
    entry["outputs"] = std::move(out);
    const PlannedDevice& device = plan.devices[plan.stages[k].device];
    if (device.accelerator) {
      entry["session_options"] = {
          {"log_id", "onnx-placer-stage" + std::to_string(k)},
          {"provider_options", Json::array({{{"cuda", {{"device_id", std::to_string(device.index)}}}}})}};
    }
    entry["inherit_session_options"] = false;
    entry["run_on_prompt"] = true;
    entry["run_on_token_gen"] = true;
    entry["is_lm_head"] = lm_head;
    entries["stage" + std::to_string(k)] = std::move(entry);
  }
  Json config;
  config["model"]["type"] = "decoder-pipeline";
  config["model"]["decoder"]["inputs"] = std::move(inputs);
  config["model"]["decoder"]["outputs"] = std::move(outputs);
  config["model"]["decoder"]["pipeline"] = Json::array({std::move(entries)});
  return config.dump(4) + "\n";
}

}  // namespace placer
