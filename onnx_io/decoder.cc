// Decoders with a KV cache (decoder.h): the past/present pairs found by name, the decoder's
// dimensions found by the inputs that carry them, and the values a phase gives them.
#include "onnx_io/decoder.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>

namespace placer {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The first number in the name: the layer.
std::optional<int> layerOf(const std::string& name) {
  const auto digit = std::find_if(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c); });
  if (digit == name.end()) return std::nullopt;
  int layer = 0;
  for (auto it = digit; it != name.end() && std::isdigit(static_cast<unsigned char>(*it)); ++it) {
    if (layer > 1'000'000) return std::nullopt;
    layer = layer * 10 + (*it - '0');
  }
  return layer;
}

// The symbolic dimensions of an input's declared shape, by axis ("" for a fixed or unnamed one).
std::vector<std::string> params(const onnx::ValueInfoProto& info) {
  std::vector<std::string> out;
  if (!info.type().has_tensor_type()) return out;
  for (const auto& dim : info.type().tensor_type().shape().dim()) out.push_back(dim.has_dim_param() ? dim.dim_param() : "");
  return out;
}

}  // namespace

std::string kvKind(std::string name) {
  name = lower(std::move(name));
  for (std::size_t at; (at = name.find("key_values")) != std::string::npos;) name.erase(at, 10);
  if (name.find("value") != std::string::npos) return "value";
  if (name.find("key") != std::string::npos) return "key";
  return "kv";
}

KvCacheLayout findKvCache(const onnx::GraphProto& graph) {
  KvCacheLayout out;
  std::set<std::string> initializers;
  for (const auto& init : graph.initializer()) initializers.insert(init.name());
  std::map<std::tuple<int, std::string>, const onnx::ValueInfoProto*> pasts;
  const onnx::ValueInfoProto *ids = nullptr, *mask = nullptr;
  for (const auto& input : graph.input()) {
    if (initializers.count(input.name())) continue;
    const std::string name = lower(input.name());
    if (name == "input_ids" || (name == "inputs_embeds" && !ids)) ids = &input;
    if (name == "attention_mask") mask = &input;
    const auto layer = layerOf(name);
    if (layer && name.find("past") != std::string::npos) pasts.emplace(std::tuple{*layer, kvKind(name)}, &input);
  }
  for (const auto& output : graph.output()) {
    const std::string name = lower(output.name());
    const auto layer = layerOf(name);
    if (!layer || name.find("present") == std::string::npos) continue;
    auto past = pasts.find({*layer, kvKind(name)});
    if (past == pasts.end()) continue;
    out.pairs.push_back({*layer, std::get<1>(past->first), past->second->name(), output.name()});
  }
  std::sort(out.pairs.begin(), out.pairs.end(),
            [](const auto& a, const auto& b) { return std::tie(a.layer, a.kind) < std::tie(b.layer, b.kind); });
  if (out.empty()) return out;
  if (ids) {
    const auto dims = params(*ids);
    if (!dims.empty()) out.batch = dims[0];
    if (dims.size() > 1) out.sequence = dims[1];
  }
  for (const std::string& p : params(*pasts.at({out.pairs[0].layer, out.pairs[0].kind}))) {
    if (!p.empty() && p != out.batch && p != out.sequence && out.past.empty()) out.past = p;
  }
  if (mask) {
    const auto dims = params(*mask);
    if (dims.size() > 1 && dims[1] != out.sequence && dims[1] != out.past) out.total = dims[1];
  }
  return out;
}

Status applyDecoderPhase(const KvCacheLayout& layout, DecoderPhase phase, std::int64_t default_dim,
                         const std::string& source, std::map<std::string, std::int64_t>& dims) {
  auto fix = [&](const std::string& name, std::int64_t value, const std::string& why) -> Status {
    if (name.empty()) return Status::ok();
    if (auto given = dims.find(name); given != dims.end() && given->second != value) {
      return invalidInput(source + ": --dim " + name + "=" + std::to_string(given->second) + " contradicts --phase " +
                          toString(phase) + " (" + why + ", so " + name + " = " + std::to_string(value) + ")");
    }
    dims[name] = value;
    return Status::ok();
  };
  if (phase == DecoderPhase::Prompt) {
    if (Status s = fix(layout.past, 0, "the prompt has no past"); !s) return s;
  } else {
    if (Status s = fix(layout.sequence, 1, "a token step runs one new token"); !s) return s;
  }
  if (layout.total.empty()) return Status::ok();
  auto value = [&](const std::string& name, std::int64_t otherwise) {
    if (name.empty()) return otherwise;
    auto it = dims.find(name);
    return it != dims.end() ? it->second : default_dim;
  };
  return fix(layout.total, value(layout.past, 0) + value(layout.sequence, 1), "the total is past + sequence");
}

}  // namespace placer
