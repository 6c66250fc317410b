#include "cost_model/fidelity.h"

#include <map>
#include <utility>

#include "cost_model/roofline.h"

namespace placer {

namespace {

// Whether the node's times came from a model other than the roofline (a profile or a plugin).
bool measured(const Annotation& annotation, int v) {
  for (const auto* sources : {&annotation.cpu_source, &annotation.accelerator_source}) {
    if (v >= static_cast<int>(sources->size())) continue;
    const int source = (*sources)[v];
    if (source >= 0 && source < static_cast<int>(annotation.source_names.size()) &&
        annotation.source_names[source] != "roofline")
      return true;
  }
  return false;
}

}  // namespace

CostFidelity costFidelity(const OnnxGraph& graph, const Annotation& annotation) {
  CostFidelity out;
  std::map<std::pair<std::string, std::string>, OpTypeFidelity> by_type;
  auto entry = [&](const std::string& op_type, const std::string& domain) -> OpTypeFidelity& {
    const std::string d = domain == "ai.onnx" ? "" : domain;
    OpTypeFidelity& e = by_type[{op_type, d}];
    e.op_type = op_type;
    e.domain = d;
    return e;
  };
  for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v) {
    const OnnxNode& node = graph.nodes[v];
    OpTypeFidelity& e = entry(node.op_type, node.domain);
    ++out.operators;
    if (measured(annotation, v)) {
      ++e.measured;
      ++out.measured;
      continue;
    }
    const OpWork work = estimateWork(shapeInfo(graph, v));
    if (work.estimated) {
      ++e.formula;
      ++out.formula;
    } else {
      if (e.fallback++ == 0) e.fallback_reason = work.note;
      ++out.fallback;
    }
  }
  for (const FoldedNode& f : graph.folded_nodes) {
    ++entry(f.op_type, "").folded;
    ++out.folded_nodes;
  }
  for (const TensorInfo& t : graph.tensors) {
    if (!t.bytes() && (!t.consumers.empty() || t.is_graph_output)) ++out.tensors_without_shape;
  }
  for (auto& [key, e] : by_type)
    out.op_types.push_back(std::move(e));
  return out;
}

std::string CostFidelity::summary() const {
  return std::to_string(operators) + " operators: " + std::to_string(formula) + " by exact formula, " +
         std::to_string(measured) + " measured, " + std::to_string(fallback) + " on the fallback cost; " +
         std::to_string(folded_nodes) + " nodes folded to constants; " + std::to_string(tensors_without_shape) +
         " tensors without a static shape";
}

std::optional<std::string> CostFidelity::warning() const {
  if (fallback == 0 && tensors_without_shape == 0) return std::nullopt;
  std::string text;
  if (fallback > 0) {
    text = std::to_string(fallback) + " operator(s) on the fallback cost (one FLOP per output element; their "
                                      "times are guesses):";
    int listed = 0;
    for (const OpTypeFidelity& e : op_types) {
      if (e.fallback == 0 || listed++ >= 8) continue;
      text += " " + e.op_type + (e.domain.empty() ? "" : " (" + e.domain + ")") + " x" + std::to_string(e.fallback) +
              " [" + e.fallback_reason + "]";
    }
  }
  if (tensors_without_shape > 0) {
    if (!text.empty()) text += "; ";
    text += std::to_string(tensors_without_shape) +
            " tensor(s) without a static shape (their transfers and the work of the operators reading them "
            "count 0)";
  }
  return text;
}

nlohmann::ordered_json toJson(const CostFidelity& f) {
  nlohmann::ordered_json types = nlohmann::ordered_json::array();
  for (const OpTypeFidelity& e : f.op_types) {
    nlohmann::ordered_json j;
    j["op_type"] = e.op_type;
    if (!e.domain.empty()) j["domain"] = e.domain;
    j["formula"] = e.formula;
    j["measured"] = e.measured;
    j["fallback"] = e.fallback;
    j["folded"] = e.folded;
    if (!e.fallback_reason.empty()) j["fallback_reason"] = e.fallback_reason;
    types.push_back(std::move(j));
  }
  nlohmann::ordered_json out;
  out["operators"] = f.operators;
  out["formula"] = f.formula;
  out["measured"] = f.measured;
  out["fallback"] = f.fallback;
  out["folded_nodes"] = f.folded_nodes;
  out["tensors_without_static_shape"] = f.tensors_without_shape;
  out["op_types"] = std::move(types);
  return out;
}

}  // namespace placer
