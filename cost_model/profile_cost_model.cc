// Loading profile tables (our JSON, ONNX Runtime traces, ONNX Runtime memory CSVs) and answering
// per-node times from them; the formats and merge rules are in profile_cost_model.h.
//
// Each file is parsed completely into its own tables before any of it is merged, so a file with an
// error contributes nothing and the first problem found is the one reported. JSON paths in messages
// are written `nodes["/conv1/Conv"].cpu`, array elements `[4]`.
#include "cost_model/profile_cost_model.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

#include "core/onnx_domain.h"
#include "onnx_io/input_file.h"
#include "onnx_io/json_text.h"

namespace placer {

using Json = nlohmann::json;
using Times = ProfileCostModel::Times;
using TimeTable = std::map<std::string, Times>;

namespace {

constexpr std::string_view kKernelSuffix = "_kernel_time";
constexpr std::string_view kCpuProvider = "CPUExecutionProvider";
constexpr std::string_view kMemoryHeader =
    "#name,input_sizes,initializers_sizes,total_dynamic_sizes,total_temp_allocations";

// One path segment: `.key` when the key is a plain identifier, `["key"]` otherwise (node names are
// full of slashes and dots).
std::string segment(const std::string& key, bool first) {
  bool plain = !key.empty();
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') plain = false;
  }
  if (plain) return first ? key : "." + key;
  return "[" + Json(key).dump() + "]";
}

std::string joinPath(const std::vector<std::string>& keys) {
  std::string path;
  for (std::size_t i = 0; i < keys.size(); ++i)
    path += segment(keys[i], i == 0);
  return path;
}

// A time field: a finite number >= 0, converted to seconds.
Expected<double> readTime(const Json& value, double seconds_per_unit, const std::string& where) {
  if (!value.is_number()) return invalidInput(where + ": expected a number, found " + value.dump());
  double t = value.get<double>();
  if (!std::isfinite(t)) return invalidInput(where + ": not a finite time");
  if (t < 0) return invalidInput(where + ": negative time " + value.dump());
  return t * seconds_per_unit;
}

// One "nodes" or "op_signatures" entry.
Expected<Times> readEntry(const Json& entry, double seconds_per_unit, const std::string& where) {
  if (!entry.is_object()) return invalidInput(where + ": expected an object, found " + entry.dump());
  if (entry.empty())
    return invalidInput(where + ": empty entry (give \"accelerator\", \"cpu\" or \"supported\")");
  Times times;
  std::optional<bool> supported;
  for (const auto& [key, value] : entry.items()) {
    const std::string field = where + segment(key, false);
    if (key == "accelerator" || key == "cpu") {
      auto t = readTime(value, seconds_per_unit, field);
      if (!t) return t.status();
      (key == "cpu" ? times.cpu : times.accelerator) = *t;
    } else if (key == "supported") {
      if (!value.is_boolean()) return invalidInput(field + ": expected true or false, found " + value.dump());
      supported = value.get<bool>();
    } else {
      return invalidInput(field + ": unknown field (expected accelerator, cpu or supported)");
    }
  }
  if (supported == false) {
    if (times.accelerator) return invalidInput(where + ": accelerator time given for an unsupported node");
    times.accelerator = std::numeric_limits<double>::infinity();
  }
  return times;
}

Status readEntries(const Json& section, const std::string& section_name, double seconds_per_unit,
                   const std::string& source, TimeTable& table) {
  if (!section.is_object())
    return invalidInput(source + ": " + section_name + ": expected an object, found " + section.dump());
  for (const auto& [key, entry] : section.items()) {
    auto times = readEntry(entry, seconds_per_unit, section_name + segment(key, false));
    if (!times) return times.status().withContext(source);
    table[key] = *times;
  }
  return Status::ok();
}

struct Tables {
  TimeTable by_name;
  TimeTable by_signature;
  std::map<std::string, ProfileCostModel::MemoryStats> memory;
  std::map<std::string, double> first_run;  // trace kernels: when each first ran (the trace's "ts")
};

Status readOwnJson(const Json& root, const std::string& source, Tables& tables) {
  if (!root.contains("version"))
    return invalidInput(source +
                        ": not a profile: a JSON object needs \"version\": 1 (an ONNX Runtime "
                        "trace is a JSON array)");
  const Json& version = root["version"];
  if (!version.is_number_integer() || version.get<long long>() != 1)
    return invalidInput(source + ": version: unsupported version " + version.dump() + " (expected 1)");
  for (const auto& [key, value] : root.items()) {
    if (key != "version" && key != "unit" && key != "comment" && key != "nodes" && key != "op_signatures")
      return invalidInput(source + ": " + segment(key, true) +
                          ": unknown field (expected version, unit, comment, nodes or "
                          "op_signatures)");
  }
  if (!root.contains("unit")) return invalidInput(source + ": unit: missing field");
  const Json& unit = root["unit"];
  double seconds_per_unit = 0;
  if (unit == "s") {
    seconds_per_unit = 1;
  } else if (unit == "ms") {
    seconds_per_unit = 1e-3;
  } else if (unit == "us") {
    seconds_per_unit = 1e-6;
  } else {
    return invalidInput(source + ": unit: unknown unit " + unit.dump() +
                        " (expected \"s\", \"ms\" or \"us\")");
  }
  if (root.contains("comment") && !root["comment"].is_string())
    return invalidInput(source + ": comment: expected a string");
  if (root.contains("nodes")) {
    Status s = readEntries(root["nodes"], "nodes", seconds_per_unit, source, tables.by_name);
    if (!s) return s;
  }
  if (root.contains("op_signatures")) {
    Status s =
        readEntries(root["op_signatures"], "op_signatures", seconds_per_unit, source, tables.by_signature);
    if (!s) return s;
  }
  return Status::ok();
}

// The median of a node's runs: a cold first run, or a stall, does not move it.
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Status readOrtTrace(const Json& events, const std::string& source, Tables& tables) {
  std::map<std::string, std::vector<double>> cpu, accelerator;  // microseconds, per run
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Json& event = events[i];
    const std::string where = source + ": [" + std::to_string(i) + "]";
    if (!event.is_object()) return invalidInput(where + ": expected an event object");
    auto cat = event.find("cat");
    auto name = event.find("name");
    if (cat == event.end() || *cat != "Node" || name == event.end() || !name->is_string()) continue;
    const std::string& event_name = name->get_ref<const std::string&>();
    if (!event_name.ends_with(kKernelSuffix)) continue;
    const std::string node = event_name.substr(0, event_name.size() - kKernelSuffix.size());
    auto dur = event.find("dur");
    if (dur == event.end()) return invalidInput(where + ".dur: missing field");
    auto t = readTime(*dur, 1, where + ".dur");
    if (!t) return t.status();
    auto args = event.find("args");
    if (args == event.end() || !args->is_object() || !args->contains("provider") ||
        !args->at("provider").is_string())
      return invalidInput(where +
                          ".args.provider: missing field (the trace must come from an "
                          "ONNX Runtime that records each kernel's provider)");
    if (node.empty()) continue;
    (args->at("provider") == kCpuProvider ? cpu[node] : accelerator[node]).push_back(*t);
    // Execution order: the start time when the trace has one, else the event's position.
    const double at =
        event.contains("ts") && event["ts"].is_number() ? event["ts"].get<double>() : static_cast<double>(i);
    auto [seen, inserted] = tables.first_run.try_emplace(node, at);
    if (!inserted) seen->second = std::min(seen->second, at);
  }
  for (const auto& [node, runs] : cpu)
    tables.by_name[node].cpu = median(runs) * 1e-6;
  for (const auto& [node, runs] : accelerator)
    tables.by_name[node].accelerator = median(runs) * 1e-6;
  return Status::ok();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

Status readMemoryCsv(const std::string& text, const std::string& source, Tables& tables) {
  static constexpr const char* kColumns[] = {"name", "input_sizes", "initializers_sizes",
                                             "total_dynamic_sizes", "total_temp_allocations"};
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    std::string_view row = trim(raw);
    if (line == 1) {
      if (row.starts_with("\xEF\xBB\xBF")) row.remove_prefix(3);
      if (row != kMemoryHeader)
        return invalidInput(source + ":1: expected the header \"" + std::string(kMemoryHeader) + "\"");
      continue;
    }
    if (row.empty()) continue;
    std::vector<std::string_view> fields;
    for (std::size_t start = 0;;) {
      std::size_t comma = row.find(',', start);
      fields.push_back(trim(row.substr(start, comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    const std::string where = source + ":" + std::to_string(line);
    if (fields.size() != 5)
      return invalidInput(where + ": expected 5 columns, found " + std::to_string(fields.size()));
    if (fields[0].empty()) return invalidInput(where + ": name: empty node name");
    double bytes[5] = {};
    for (std::size_t c = 1; c < 5; ++c) {
      unsigned long long value = 0;
      auto [end, error] = std::from_chars(fields[c].data(), fields[c].data() + fields[c].size(), value);
      if (error != std::errc() || end != fields[c].data() + fields[c].size() || fields[c].empty())
        return invalidInput(where + ": " + kColumns[c] + ": expected a byte count, found \"" +
                            std::string(fields[c]) + "\"");
      bytes[c] = static_cast<double>(value);
    }
    tables.memory[std::string(fields[0])] = {bytes[1], bytes[2], bytes[3], bytes[4], source};
  }
  return Status::ok();
}

Status readProfileFile(const std::filesystem::path& path, Tables& tables) {
  const std::string source = path.string();
  auto read = readInputFile(path, kMaxTextBytes);
  if (!read) return read.status();
  const std::string& text = *read;

  std::string_view start = text;
  if (start.starts_with("\xEF\xBB\xBF")) start.remove_prefix(3);
  while (!start.empty() && std::isspace(static_cast<unsigned char>(start.front())))
    start.remove_prefix(1);
  if (start.starts_with("#name,")) return readMemoryCsv(text, source, tables);
  if (!start.starts_with("{") && !start.starts_with("["))
    return invalidInput(source +
                        ": not a profile: expected our JSON profile (an object with \"version\"), "
                        "an ONNX Runtime trace (a JSON array) or an ONNX Runtime memory CSV "
                        "(starting \"#name,\")");
  auto root = parseJsonRejectingDuplicates<Json>(text, source, joinPath);
  if (!root) return root.status();
  if (root->is_array()) return readOrtTrace(*root, source, tables);
  return readOwnJson(*root, source, tables);
}

void mergeTimes(const TimeTable& from, TimeTable& into) {
  for (const auto& [key, times] : from) {
    Times& target = into[key];
    if (times.accelerator) target.accelerator = times.accelerator;
    if (times.cpu) target.cpu = times.cpu;
  }
}

std::string shapeText(const TensorInfo& tensor) {
  if (!tensor.shape) return "?";
  if (tensor.shape->empty()) return "scalar";
  std::string text;
  for (std::size_t i = 0; i < tensor.shape->size(); ++i) {
    if (i > 0) text += 'x';
    std::int64_t dim = (*tensor.shape)[i];
    text += dim < 0 ? "?" : std::to_string(dim);
  }
  return text;
}

}  // namespace

std::string opSignature(const OnnxGraph& graph, int node) {
  const OnnxNode& n = graph.nodes[node];
  std::string signature;
  if (!isDefaultDomain(n.domain)) signature = n.domain + ".";
  signature += n.op_type + "(";
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    if (i > 0) signature += ';';
    if (n.inputs[i] >= 0) signature += shapeText(graph.tensors[n.inputs[i]]);
  }
  return signature + ")";
}

TimeEstimate ProfileCostModel::estimate(const OnnxGraph& graph, int node,
                                        const DeviceSpec& /*devices*/) const {
  Times times;
  if (auto it = by_name_.find(graph.nodes[node].name); it != by_name_.end()) times = it->second;
  if ((!times.accelerator || !times.cpu) && !by_signature_.empty()) {
    if (auto it = by_signature_.find(opSignature(graph, node)); it != by_signature_.end()) {
      if (!times.accelerator) times.accelerator = it->second.accelerator;
      if (!times.cpu) times.cpu = it->second.cpu;
    }
  }
  return TimeEstimate{times.accelerator, times.cpu};
}

std::size_t ProfileCostModel::matchedNodes(const OnnxGraph& graph) const {
  const DeviceSpec unused;
  std::size_t matched = 0;
  for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v) {
    if (!estimate(graph, v, unused).empty()) ++matched;
  }
  return matched;
}

namespace {

constexpr std::string_view kRenamedSuffixes[] = {"_nchwc"};

// Operators ONNX Runtime folds into the kernel before them (activations, a residual Add, a scale).
bool foldsForward(const std::string& op_type) {
  static const std::set<std::string> kinds{"Relu", "Clip",      "Add",         "Sum",       "Sigmoid", "Tanh",
                                           "Mul",  "LeakyRelu", "HardSigmoid", "HardSwish", "Gelu",    "Div"};
  return kinds.count(op_type) > 0;
}

// The operator-produced inputs of `node` (weights and graph inputs aside), each producer once.
std::vector<int> producers(const OnnxGraph& graph, int node) {
  std::vector<int> out;
  for (int t : graph.nodes[node].inputs) {
    if (t < 0 || graph.tensors[t].is_weight || graph.tensors[t].producer < 0) continue;
    if (std::find(out.begin(), out.end(), graph.tensors[t].producer) == out.end())
      out.push_back(graph.tensors[t].producer);
  }
  return out;
}

// The one reader of `node`'s outputs, when a single output tensor is read by a single operator and
// is not a graph output; -1 otherwise.
int soleReader(const OnnxGraph& graph, int node) {
  int reader = -1;
  for (int t : graph.nodes[node].outputs) {
    if (t < 0) continue;
    const TensorInfo& tensor = graph.tensors[t];
    if (tensor.is_graph_output) return -1;
    if (tensor.consumers.empty()) continue;
    if (reader >= 0 || tensor.consumers.size() != 1) return -1;
    reader = tensor.consumers.front();
  }
  return reader;
}

// The operator a kernel's name stands for when ONNX Runtime renamed it: `<tensor>_nchwc` (the
// producer of that tensor) or `<node>/<Fusion>/...` (the longest '/'-prefix naming an operator).
int renamedKernelEnd(const OnnxGraph& graph, const std::map<std::string, int>& node_of_name,
                     const std::string& name) {
  std::string tensor = name;
  for (std::string_view suffix : kRenamedSuffixes) {
    if (tensor.size() > suffix.size() && tensor.ends_with(suffix))
      tensor.resize(tensor.size() - suffix.size());
  }
  if (auto t = graph.tensor_index.find(tensor);
      t != graph.tensor_index.end() && graph.tensors[t->second].producer >= 0)
    return graph.tensors[t->second].producer;
  if (name.find("Fusion") == std::string::npos) return -1;
  for (std::size_t cut = name.rfind('/'); cut != std::string::npos && cut > 0;
       cut = name.rfind('/', cut - 1)) {
    if (auto it = node_of_name.find(name.substr(0, cut)); it != node_of_name.end()) return it->second;
  }
  return -1;
}

// Adds `total` to the members' times of one kind, split in proportion to `weight` (their roofline
// times; equally when those give nothing).
void spread(const std::optional<double>& total, const std::vector<int>& members,
            const std::vector<double>& weight, std::map<int, double>& into) {
  if (!total || members.empty()) return;
  double sum = 0;
  for (double w : weight)
    sum += std::isfinite(w) ? w : 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const double share = sum > 0 ? (std::isfinite(weight[i]) ? weight[i] / sum : 0)
                                 : 1.0 / static_cast<double>(members.size());
    into[members[i]] += std::isfinite(*total) ? *total * share : *total;
  }
}

}  // namespace

ProfileCostModel ProfileCostModel::resolvedFor(const OnnxGraph& graph, const DeviceSpec& devices,
                                               Match& match) const {
  match = Match{};
  const int n = static_cast<int>(graph.nodes.size());
  std::map<std::string, int> node_of_name;
  for (int v = 0; v < n; ++v)
    node_of_name.emplace(graph.nodes[v].name, v);
  RooflineCostModel roofline;
  std::vector<TimeEstimate> estimate(n);
  for (int v = 0; v < n; ++v)
    estimate[v] = roofline.estimate(graph, v, devices);

  // 1. Entries naming an operator; 2. renamed kernels and the operators fused into them.
  std::vector<char> taken(n, 0);
  std::map<std::string, int> anchor;  // entry -> the operator it is placed at, for execution order
  std::vector<std::pair<const std::string*, int>> kernels;
  std::vector<const std::string*> leftover;
  for (const auto& [name, times] : by_name_) {
    if (auto it = node_of_name.find(name); it != node_of_name.end()) {
      taken[it->second] = 1;
      anchor[name] = it->second;
      ++match.exact;
    } else if (const int end = renamedKernelEnd(graph, node_of_name, name); end >= 0) {
      kernels.emplace_back(&name, end);
    } else {
      leftover.push_back(&name);
    }
  }
  // Every kernel's own operator first, so no kernel's walk takes another kernel's operator.
  std::vector<std::pair<const std::string*, int>> placed;
  for (const auto& [name, end] : kernels) {
    if (taken[end]) {  // its operator has an entry of its own, or another kernel ends there
      leftover.push_back(name);
      continue;
    }
    taken[end] = 1;
    anchor[*name] = end;
    placed.emplace_back(name, end);
  }
  std::map<int, double> added_accelerator, added_cpu;
  for (const auto& [name, end] : placed) {
    std::vector<int> group{end};
    // Back: the chain whose single output feeds only the next member (a Conv before its Clip), and
    // Transposes and scales (a Mul or Div of one operator's output by a constant) folded into a
    // fused MatMul.
    for (std::size_t i = 0; i < group.size(); ++i) {
      const std::vector<int> inputs = producers(graph, group[i]);
      for (int u : inputs) {
        if (taken[u] || soleReader(graph, u) != group[i]) continue;
        const std::string& op = graph.nodes[u].op_type;
        const bool scale = (op == "Mul" || op == "Div") && producers(graph, u).size() == 1;
        if (inputs.size() != 1 && op != "Transpose" && !scale) continue;
        taken[u] = 1;
        group.push_back(u);
      }
    }
    // Forward: element-wise operators that alone read the kernel's output (activations, residual Add).
    for (int a = soleReader(graph, end); a >= 0 && !taken[a] && foldsForward(graph.nodes[a].op_type);
         a = soleReader(graph, a)) {
      taken[a] = 1;
      group.push_back(a);
    }
    ++match.renamed;
    match.fused += static_cast<int>(group.size()) - 1;
    std::vector<double> acc, cpu;
    for (int v : group) {
      acc.push_back(estimate[v].accelerator.value_or(0));
      cpu.push_back(estimate[v].cpu.value_or(0));
    }
    const Times& t = by_name_.at(*name);
    spread(t.accelerator, group, acc, added_accelerator);
    spread(t.cpu, group, cpu, added_cpu);
  }

  // 3. Kernels that name nothing of the graph (a fused SkipLayerNormalization, a Gelu built from
  // Div/Erf/Mul): placed by execution order, over the operators still without a time that lie
  // between the operators of the kernels before and after them.
  std::vector<std::pair<std::pair<int, double>, const std::string*>> timeline;
  for (const auto& [name, at] : order_)
    timeline.push_back({at, &name});
  std::sort(timeline.begin(), timeline.end());
  std::vector<char> residual(n, 0);
  for (int v = 0; v < n; ++v)
    residual[v] = !taken[v];
  for (const std::string* name : leftover) {
    const Times& t = by_name_.at(*name);
    std::vector<int> members;
    auto at =
        std::find_if(timeline.begin(), timeline.end(), [&](const auto& e) { return *e.second == *name; });
    if (at != timeline.end()) {
      int before = -1, after = n;
      for (auto it = at; it != timeline.begin();) {
        --it;
        if (auto a = anchor.find(*it->second); a != anchor.end()) {
          before = a->second;
          break;
        }
      }
      for (auto it = at + 1; it != timeline.end(); ++it) {
        if (auto a = anchor.find(*it->second); a != anchor.end()) {
          after = a->second;
          break;
        }
      }
      if (before > after) std::swap(before, after);
      for (int v = before + 1; v < after; ++v) {
        if (residual[v]) members.push_back(v);
      }
    }
    if (members.empty()) {
      ++match.unmatched_entries;
      if (match.unmatched_names.size() < 5) match.unmatched_names.push_back(*name);
      if (t.accelerator && std::isfinite(*t.accelerator))
        match.unmatched_accelerator_seconds += *t.accelerator;
      if (t.cpu) match.unmatched_cpu_seconds += *t.cpu;
      continue;
    }
    ++match.by_order;
    std::vector<double> acc, cpu;
    for (int v : members) {
      acc.push_back(estimate[v].accelerator.value_or(0));
      cpu.push_back(estimate[v].cpu.value_or(0));
    }
    spread(t.accelerator, members, acc, added_accelerator);
    spread(t.cpu, members, cpu, added_cpu);
  }
  for (int v = 0; v < n; ++v) {
    if (residual[v] && (added_accelerator.count(v) || added_cpu.count(v))) ++match.ordered;
  }

  ProfileCostModel out = *this;
  for (const auto& [v, seconds] : added_accelerator)
    out.by_name_[graph.nodes[v].name].accelerator = seconds;
  for (const auto& [v, seconds] : added_cpu)
    out.by_name_[graph.nodes[v].name].cpu = seconds;
  return out;
}

std::optional<ProfileCostModel::MemoryStats> ProfileCostModel::memoryStats(
    const std::string& row_name) const {
  auto it = memory_.find(row_name);
  if (it == memory_.end()) return std::nullopt;
  return it->second;
}

std::map<std::string, MemoryOverride> ProfileCostModel::weightMemory() const {
  std::map<std::string, MemoryOverride> out;
  for (const auto& [name, stats] : memory_)
    out[name] = MemoryOverride{stats.initializers_sizes, stats.source};
  return out;
}

Expected<ProfileCostModel> loadProfile(const std::vector<std::filesystem::path>& files) {
  ProfileCostModel model;
  for (const std::filesystem::path& path : files) {
    Tables tables;
    Status s = readProfileFile(path, tables);
    if (!s) return s;
    mergeTimes(tables.by_name, model.by_name_);
    mergeTimes(tables.by_signature, model.by_signature_);
    for (const auto& [name, at] : tables.first_run)
      model.order_[name] = {static_cast<int>(&path - files.data()), at};
    for (auto& [name, stats] : tables.memory)
      model.memory_[name] = stats;
  }
  return model;
}

}  // namespace placer
