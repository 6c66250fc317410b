// Olive's split_assignments and ONNX Runtime's name-based layer assignment for a placement
// (placement_strings.h): node-name namespaces grouped by stage, checked against the rules each tool
// applies.
#include "onnx_io/placement_strings.h"

#include <algorithm>
#include <map>
#include <set>

namespace placer {
namespace {

bool isSeparator(char c) {
  return c == '/' || c == '.';
}

// Olive's components: '/' read as '.', leading dots dropped, split at every dot.
std::vector<std::string> components(const std::string& name) {
  std::size_t start = 0;
  while (start < name.size() && isSeparator(name[start])) ++start;
  std::vector<std::string> out{""};
  for (std::size_t i = start; i < name.size(); ++i) {
    if (isSeparator(name[i])) {
      out.emplace_back();
    } else {
      out.back() += name[i];
    }
  }
  return out;
}

// The name up to and including the separator after its first `depth` components; the whole name
// when it has no more.
std::string namePattern(const std::string& name, int depth) {
  std::size_t i = 0;
  while (i < name.size() && isSeparator(name[i])) ++i;
  int seen = 0;
  for (; i < name.size(); ++i) {
    if (isSeparator(name[i]) && ++seen == depth) return name.substr(0, i + 1);
  }
  return name;
}

// The device-grouped pattern string when every operator contains a pattern of its own device and
// none of another's; else empty, with `why` set.
std::string nameBased(const OnnxGraph& graph, const PlacementPlan& plan, const std::vector<int>& ops, int depth,
                      std::string& why) {
  auto device_of = [&](int n) { return plan.stages[plan.stage_of_node[n]].device; };
  std::map<int, std::set<std::string>> patterns;  // device -> patterns
  for (int n : ops) patterns[device_of(n)].insert(namePattern(graph.nodes[n].name, depth));
  for (const auto& [device, list] : patterns) {
    for (const std::string& p : list) {
      if (p.find_first_of(",;()") != std::string::npos || p.front() == ' ' || p.back() == ' ') {
        why = "the pattern '" + p + "' holds a character the option's grammar uses (, ; ( ) or an edge space)";
        return "";
      }
    }
  }
  for (int n : ops) {
    const std::string& name = graph.nodes[n].name;
    for (const auto& [device, list] : patterns) {
      if (device == device_of(n)) continue;
      for (const std::string& p : list) {
        if (name.find(p) != std::string::npos) {
          why = "node '" + name + "' on " + plan.devices[device_of(n)].name + " contains '" + p + "', a pattern of " +
                plan.devices[device].name + ": substring matching cannot tell them apart";
          return "";
        }
      }
    }
  }
  std::string out;
  for (const auto& [device, list] : patterns) {
    out += (out.empty() ? "" : "; ") + plan.devices[device].name + "(";
    bool first = true;
    for (const std::string& p : list) {
      out += (first ? "" : ", ") + p;
      first = false;
    }
    out += ")";
  }
  return out;
}

}  // namespace

std::string oliveNamespace(const std::string& node_name, int depth) {
  const std::vector<std::string> parts = components(node_name);
  std::string out;
  for (int i = 0; i < depth && i < static_cast<int>(parts.size()); ++i) out += (i ? "." : "") + parts[i];
  return out;
}

PlacementStrings placementStrings(const OnnxGraph& graph, const PlacementPlan& plan) {
  PlacementStrings out;
  std::vector<int> ops;
  int deepest = 1;
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    const OnnxNode& node = graph.nodes[n];
    if (node.op_type == "Identity" && node.domain.empty()) continue;  // Olive removes them
    if (node.generated_name) {
      out.split_note = out.name_note = "operator " + std::to_string(node.onnx_index) + " (" + node.op_type +
                                        ") has no name in the model, and both strings place nodes by name";
      return out;
    }
    ops.push_back(static_cast<int>(n));
    deepest = std::max(deepest, static_cast<int>(components(node.name).size()));
  }
  if (ops.empty()) {
    out.split_note = out.name_note = "the model has no operators to place by name";
    return out;
  }
  // The smallest depth at which namespaces do not straddle stages.
  int depth = 0;
  std::map<std::string, int> keys;
  std::string straddling;
  for (int d = 1; d <= deepest && depth == 0; ++d) {
    keys.clear();
    bool consistent = true;
    for (int n : ops) {
      const int stage = plan.stage_of_node[n];
      auto [it, inserted] = keys.emplace(oliveNamespace(graph.nodes[n].name, d), stage);
      if (!inserted && it->second != stage) {
        straddling = "'" + it->first + "' holds operators of stages " + std::to_string(it->second) + " and " +
                     std::to_string(stage);
        consistent = false;
        break;
      }
    }
    if (consistent) depth = d;
  }
  std::set<int> stages_keyed;
  for (const auto& [key, stage] : keys) stages_keyed.insert(stage);
  if (depth == 0) {
    out.split_note = "the stages do not follow module boundaries: even whole node names, as Olive reads them, " +
                     straddling;
  } else if (keys.size() * 2 > ops.size()) {
    out.split_note = "the stages do not follow module boundaries: grouping the " + std::to_string(ops.size()) +
                     " operators by node-name namespace takes " + std::to_string(keys.size()) + " keys (depth " +
                     std::to_string(depth) + ")";
  } else if (static_cast<int>(stages_keyed.size()) != static_cast<int>(plan.stages.size())) {
    out.split_note = "a stage holds no operator Olive would assign (only Identity operators)";
  } else {
    // Olive reads the depth off the first key: one of full depth goes first.
    std::vector<std::pair<std::string, int>> ordered(keys.begin(), keys.end());
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
      return std::tie(a.second, a.first) < std::tie(b.second, b.first);
    });
    auto full = std::find_if(ordered.begin(), ordered.end(),
                             [&](const auto& k) { return static_cast<int>(components(k.first).size()) == depth; });
    if (full != ordered.end()) std::rotate(ordered.begin(), full, full + 1);
    for (const auto& [key, stage] : ordered) {
      if (key.find_first_of("=;") != std::string::npos) {
        out.split_note = "the namespace '" + key + "' holds '=' or ';', which split_assignments separates by";
        break;
      }
      out.split_assignments += (out.split_assignments.empty() ? "" : ";") + key + "=" + std::to_string(stage);
    }
    if (!out.split_note.empty()) out.split_assignments.clear();
  }
  // ONNX Runtime's patterns: the namespaces' name prefixes, else whole names.
  out.name_based = nameBased(graph, plan, ops, depth > 0 ? depth : deepest, out.name_note);
  return out;
}

}  // namespace placer
