#include "api/inspect.h"

#include <map>

#include "core/onnx_domain.h"
#include "cost_model/cost_model.h"

namespace placer::api {

namespace {

// What the cost model gives the whole model, for inspect: its time per sample on one device of each
// kind, the part of it that is operator overhead, and the operators whose two times come from
// different sources.
nlohmann::ordered_json costSummary(const api::LoadedModel& model) {
  const Problem& p = model.annotation.problem;
  const DeviceSpec& d = model.devices;
  double accelerator = 0, cpu = 0;
  int unsupported = 0;
  for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v) {
    if (p.graph[v].supportedOnAccelerator()) {
      accelerator += p.graph[v].p_acc;
    } else {
      ++unsupported;
    }
    cpu += p.graph[v].p_cpu;
  }
  const double n = static_cast<double>(boost::num_vertices(p.graph));
  nlohmann::ordered_json mixed = nlohmann::ordered_json::array();
  std::size_t mixed_count = 0;
  for (std::size_t v = 0; v < model.annotation.accelerator_source.size(); ++v) {
    const int a = model.annotation.accelerator_source[v], c = model.annotation.cpu_source[v];
    if (a < 0 || c < 0 || a == c) continue;
    if (++mixed_count <= 10) mixed.push_back(model.graph.nodes[v].name);
  }
  nlohmann::ordered_json out;
  out["devices"] = {{"name", d.name}, {"accelerators", d.accelerators.count}, {"cpus", d.cpus.count}};
  out["overheads"] = {{"accelerator",
                       {{"operator_seconds", d.accelerators.op_overhead},
                        {"boundary_seconds", d.accelerators.boundary_overhead}}},
                      {"cpu",
                       {{"operator_seconds", d.cpus.op_overhead},
                        {"boundary_seconds", d.cpus.boundary_overhead},
                        {"boundary_bandwidth", d.cpus.boundary_bandwidth}}}};
  out["seconds_per_sample"] = {
      {"one_accelerator", d.accelerators.count > 0 ? nlohmann::ordered_json(accelerator) : nullptr},
      {"one_accelerator_operator_overhead", d.accelerators.op_overhead * (n - unsupported)},
      {"operators_unsupported_on_accelerators", unsupported},
      {"one_cpu", d.cpus.count > 0 ? nlohmann::ordered_json(cpu) : nullptr},
      {"one_cpu_operator_overhead", d.cpus.op_overhead * n}};
  if (p.devices.mixed()) {  // a machine of several kinds: the model on one device of each
    nlohmann::ordered_json kinds;
    for (int k = 0; k < p.devices.kindCount(); ++k) {
      double total = 0;
      for (Vertex v = 0; v < boost::num_vertices(p.graph); ++v)
        if (p.graph[v].supportedOnAccelerator()) total += p.graph[v].accTime(k);
      kinds[p.devices.kinds[k].name] = total;
    }
    out["seconds_per_sample"]["one_accelerator_of_each_kind"] = std::move(kinds);
  }
  out["cost_sources"] = model.annotation.notes;
  out["mixed_sources"] = {{"count", mixed_count}, {"first", mixed}};
  return out;
}

}  // namespace

ModelSummary summarize(const LoadedModel& model) {
  ModelSummary summary;
  const OnnxGraph* graph = &model.graph;
  std::map<std::string, int> histogram;
  double flops = 0, macs = 0, weights = 0, weight_count = 0;
  for (int v = 0; v < static_cast<int>(graph->nodes.size()); ++v) {
    // An operator of another domain under its domain, as the fidelity line names it: ONNX Runtime's
    // com.microsoft Gelu is not the default domain's.
    const OnnxNode& node = graph->nodes[v];
    ++histogram[isDefaultDomain(node.domain) ? node.op_type : node.op_type + "(" + node.domain + ")"];
    const OpWork work = estimateWork(shapeInfo(*graph, v));
    flops += work.flops;
    macs += work.macs;
  }
  summary.fidelity = costFidelity(*graph, model.annotation);
  const CostFidelity& fidelity = summary.fidelity;
  std::vector<std::string> unknown;
  for (const TensorInfo& t : graph->tensors) {
    if (t.is_weight && !t.consumers.empty()) {
      weights += t.bytes().value_or(0);
      ++weight_count;
    }
    if (!t.bytes() && (!t.consumers.empty() || t.is_graph_output)) unknown.push_back(t.name);
  }
  const std::vector<SharedWeight>& shared = model.annotation.problem.weights;
  double shared_bytes = 0;
  for (const SharedWeight& w : shared) {
    shared_bytes += w.bytes;
    if (!summary.largest_shared || w.bytes > summary.largest_shared->bytes) summary.largest_shared = &w;
  }
  const nlohmann::ordered_json costs = costSummary(model);
  nlohmann::ordered_json& out = summary.json;
  out["model"] = graph->path;
  out["ir_version"] = graph->ir_version;
  out["opsets"] = graph->opsets;
  out["operators"] = graph->nodes.size();
  out["op_types"] = histogram;
  out["weights"] = {{"tensors", weight_count}, {"bytes", weights}};
  out["shared_weights"] = {{"tensors", shared.size()}, {"bytes", shared_bytes}};
  out["flops"] = flops;
  out["macs"] = macs;
  out["operators_without_exact_cost"] = fidelity.fallback;
  out["tensors_without_static_shape"] = unknown;
  out["fidelity"] = toJson(fidelity);
  out["costs"] = costs;
  out["warnings"] = graph->warnings;
  for (const std::string& w : model.annotation.warnings)
    out["warnings"].push_back(w);
  return summary;
}

}  // namespace placer::api
