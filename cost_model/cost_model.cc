#include "cost_model/cost_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

#include "cost_model/qdq.h"

namespace placer {

namespace {

OpShapeInfo nodeShapeInfo(const OnnxNode& n, const std::vector<TensorInfo>& tensors) {
  OpShapeInfo info;
  info.op_type = n.op_type;
  info.domain = n.domain;
  info.int_attributes = n.int_attributes;
  info.float_attributes = n.float_attributes;
  info.string_attributes = n.string_attributes;
  info.constant_inputs = n.constant_inputs;
  for (int t : n.inputs) {
    info.inputs.push_back(t >= 0 ? tensors[t].shape : std::nullopt);
    info.input_element_bytes.push_back(t >= 0 ? elementBytes(tensors[t].element_type) : 0);
    info.input_element_types.push_back(t >= 0 ? tensors[t].element_type : 0);
    info.input_is_weight.push_back(t >= 0 && tensors[t].is_weight);
  }
  for (int t : n.outputs) {
    info.outputs.push_back(t >= 0 ? tensors[t].shape : std::nullopt);
    info.output_element_bytes.push_back(t >= 0 ? elementBytes(tensors[t].element_type) : 0);
    info.output_element_types.push_back(t >= 0 ? tensors[t].element_type : 0);
    if (t >= 0 && tensors[t].is_graph_output) info.view_copies = true;
  }
  for (const OnnxSubgraph& body : n.subgraphs) {
    SubgraphShapeInfo sub{body.attribute, {}};
    for (const OnnxNode& inner : body.nodes)
      sub.nodes.push_back(nodeShapeInfo(inner, body.tensors));
    info.subgraphs.push_back(std::move(sub));
  }
  if (n.body_runs) info.body_runs = static_cast<double>(*n.body_runs);
  return info;
}

}  // namespace

OpShapeInfo shapeInfo(const OnnxGraph& graph, int node) {
  return nodeShapeInfo(graph.nodes[node], graph.tensors);
}

OpShapeInfo costedShapeInfo(const OnnxGraph& graph, int node) {
  OpShapeInfo info = shapeInfo(graph, node);
  return qdqRole(graph, node) == QdqRole::Quantized ? quantizedShapeInfo(graph, node, std::move(info)) : info;
}

TimeEstimate RooflineCostModel::estimate(const OnnxGraph& graph, int node, const DeviceSpec& devices) const {
  // A DQ or Q that ONNX Runtime fuses into an integer kernel does no work of its own.
  const OpShapeInfo info = costedShapeInfo(graph, node);
  const bool absorbed = qdqRole(graph, node) == QdqRole::Absorbed;
  const OpWork work = absorbed ? OpWork{} : estimateWork(info);
  const ComputeType type = computeType(info);
  const OpClass op_class = opClass(info);
  const AcceleratorSpec& acc = devices.accelerators;
  const CpuSpec& cpu = devices.cpus;
  // A calibrated rate for the operator's class and type (calibration.h) replaces the datasheet
  // roofline; from the figures alone, a section with count 0 and no figures gives +inf.
  auto seconds = [&](const CalibratedRates& rates, const RooflineDevice& device) {
    if (absorbed) return 0.0;
    const ComputeType rate_type = rateType(type, device.peak_flops_by_type);
    if (const EffectiveRate* rate = findRate(rates, info.op_type, op_class, rate_type))
      return calibratedSeconds(work, *rate);
    return rooflineSeconds(work, device, type);
  };
  TimeEstimate times;
  times.accelerator = seconds(acc.calibrated, {acc.peak_flops, acc.memory_bandwidth, acc.peak_flops_by_type});
  times.cpu = seconds(cpu.calibrated, {cpu.peak_flops, cpu.memory_bandwidth, cpu.peak_flops_by_type});
  return times;
}

namespace {

// The node an override key names: the node of that name, else — for ONNX Runtime's
// "<node name>_<decimal hash>" — the node named by what precedes the last '_'. -1 for none.
int overriddenNode(const std::string& key, const std::map<std::string, int>& node_of_name) {
  if (auto it = node_of_name.find(key); it != node_of_name.end()) return it->second;
  const std::size_t cut = key.rfind('_');
  if (cut == std::string::npos || cut + 1 == key.size()) return -1;
  if (!std::all_of(key.begin() + static_cast<std::ptrdiff_t>(cut) + 1, key.end(),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  auto it = node_of_name.find(key.substr(0, cut));
  return it == node_of_name.end() ? -1 : it->second;
}

// Up to three quoted names, then how many more.
std::string someNames(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i)
    text += (i > 0 ? ", \"" : "\"") + names[i] + "\"";
  if (names.size() > 3) text += " and " + std::to_string(names.size() - 3) + " more";
  return text;
}

// Replaces memory[v] by the measured figures of options.memory_overrides, less the shared weights
// the node reads (shared_read[v]); rules in cost_model.h.
void applyMemoryOverrides(const OnnxGraph& graph, const AnnotateOptions& options,
                          const std::vector<double>& shared_read, std::vector<double>& memory,
                          std::vector<std::string>& warnings) {
  if (options.memory_overrides.empty()) return;
  std::map<std::string, int> node_of_name;
  for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v)
    node_of_name.emplace(graph.nodes[v].name, v);
  std::map<int, MemoryOverride> measured;
  std::map<std::string, std::vector<std::string>> unknown;  // source -> keys
  for (const auto& [key, figure] : options.memory_overrides) {
    const int v = overriddenNode(key, node_of_name);
    if (v < 0) {
      unknown[figure.source].push_back(key);
      continue;
    }
    auto [it, inserted] = measured.try_emplace(v, figure);
    if (!inserted && figure.bytes > it->second.bytes) it->second = figure;
  }
  std::map<std::string, std::vector<std::string>> zero;  // source -> node names
  for (const auto& [v, figure] : measured) {
    if (figure.bytes == 0 && memory[v] + shared_read[v] > 0) {
      zero[figure.source].push_back(graph.nodes[v].name);
    } else {
      memory[v] = std::max(0.0, figure.bytes - shared_read[v]);
    }
  }
  for (const auto& [source, keys] : unknown) {
    warnings.push_back(
        source + ": " + std::to_string(keys.size()) +
        " memory statistics row(s) name no operator of the model (weight producers folded into "
        "their readers, or nodes made by ONNX Runtime's optimizer) and are ignored: " +
        someNames(keys));
  }
  for (const auto& [source, names] : zero) {
    warnings.push_back(source + ": initializers_sizes is 0 for " + std::to_string(names.size()) +
                       " operator(s) that read weights (" + someNames(names) +
                       "); ONNX Runtime writes 0 there when it counts weights under input_sizes, so the "
                       "model's weight bytes are kept");
  }
}

// The times of node v: for each kind of device, the first model that gives one. A kind the device
// set lacks still takes a time when a model has one (an exported workload keeps it), but records
// no source and may stay +inf.
Status askModels(const OnnxGraph& graph, int v, const DeviceSpec& devices,
                 const std::vector<const CostModel*>& models, OpNode& op, int& accelerator_source,
                 int& cpu_source) {
  const bool need_accelerator = devices.accelerators.count > 0, need_cpu = devices.cpus.count > 0;
  bool have_accelerator = false, have_cpu = false;
  for (std::size_t i = 0; i < models.size() && !(have_accelerator && have_cpu); ++i) {
    const TimeEstimate times = models[i]->estimate(graph, v, devices);
    if (!have_accelerator && times.accelerator) {
      op.p_acc = *times.accelerator;
      have_accelerator = true;
      if (need_accelerator) accelerator_source = static_cast<int>(i);
    }
    if (!have_cpu && times.cpu) {
      op.p_cpu = *times.cpu;
      have_cpu = true;
      if (need_cpu) cpu_source = static_cast<int>(i);
    }
  }
  if ((need_accelerator && accelerator_source < 0) || (need_cpu && cpu_source < 0)) {
    const OnnxNode& node = graph.nodes[v];
    return invalidInput(graph.path + ": no cost model gives " +
                        (need_accelerator && accelerator_source < 0 ? "an accelerator" : "a CPU") +
                        " time for node \"" + node.name + "\" (" + node.op_type + ")");
  }
  return Status::ok();
}

// "profile: accelerator times for 0 of 122 operators, cpu times for 118; roofline: ..." and how many
// operators mix two sources.
std::vector<std::string> sourceNotes(const std::vector<const CostModel*>& models,
                                     const std::vector<int>& accelerator_source,
                                     const std::vector<int>& cpu_source) {
  const std::size_t n = accelerator_source.size();
  std::vector<std::string> notes;
  std::string counts;
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto count = [&](const std::vector<int>& source) {
      return std::count(source.begin(), source.end(), static_cast<int>(i));
    };
    const auto accelerator = count(accelerator_source), cpu = count(cpu_source);
    if (accelerator == 0 && cpu == 0) continue;
    counts += (counts.empty() ? "" : "; ") + std::string(models[i]->name()) + ": accelerator times for " +
              std::to_string(accelerator) + ", cpu times for " + std::to_string(cpu);
  }
  notes.push_back("operator times from " + counts + " (of " + std::to_string(n) + " operators)");
  std::size_t mixed = 0;
  for (std::size_t v = 0; v < n; ++v)
    mixed += accelerator_source[v] >= 0 && cpu_source[v] >= 0 && accelerator_source[v] != cpu_source[v];
  if (mixed > 0) {
    notes.push_back(std::to_string(mixed) +
                    " operator(s) take their accelerator and cpu times from different sources");
  }
  return notes;
}

// A node's times on the further kinds of a mixed machine (kinds 1, 2, ...; `first` is its time on
// kind 0, given by `model`, null where none did). An estimating model (the roofline, a plugin's) is
// asked again with each kind's figures, and that kind's operator overhead is added; a time measured
// on kind 0 (a profile) is carried over to each kind in proportion to the kinds' roofline estimates,
// since a profile measures one device. A kind the model gives no time for takes the roofline's. A
// kind with a measured model of its own (`kind_models`, a profile recorded on that kind) takes the
// finite time that one gives first.
std::vector<double> otherKindTimes(const OnnxGraph& graph, int v, const DeviceSpec& devices,
                                   const std::vector<DeviceSpec>& kind_specs, double first, const CostModel* model,
                                   const std::vector<const CostModel*>& kind_models) {
  const RooflineCostModel roofline;
  auto estimate = [&](const CostModel& by, const DeviceSpec& spec) -> std::optional<double> {
    const std::optional<double> t = by.estimate(graph, v, spec).accelerator;
    if (!t) return std::nullopt;
    return *t + spec.accelerators.op_overhead;
  };
  const bool measured = model != nullptr && model->includesOperatorOverhead();
  const double base = measured ? estimate(roofline, devices).value_or(kInfinity) : 0;
  std::vector<double> times;
  for (std::size_t k = 0; k < kind_specs.size(); ++k) {
    const DeviceSpec& spec = kind_specs[k];
    if (const CostModel* own = k < kind_models.size() ? kind_models[k] : nullptr) {
      const std::optional<double> t = own->estimate(graph, v, spec).accelerator;
      if (t && std::isfinite(*t)) {
        times.push_back(*t + (own->includesOperatorOverhead() ? 0 : spec.accelerators.op_overhead));
        continue;
      }
    }
    std::optional<double> t = model != nullptr && !measured ? estimate(*model, spec) : std::nullopt;
    if (!t) t = estimate(roofline, spec);
    double time = t.value_or(kInfinity);
    if (measured && base > 0 && std::isfinite(base)) time = first * (time / base);
    times.push_back(std::isfinite(time) ? time : first);
  }
  return times;
}

}  // namespace

Expected<Annotation> annotate(const OnnxGraph& graph, const DeviceSpec& devices,
                              const std::vector<const CostModel*>& models, const AnnotateOptions& options) {
  Annotation out;
  Problem& problem = out.problem;
  problem.source = graph.path;
  problem.devices = devices.deviceSet();
  const int n = static_cast<int>(graph.nodes.size());

  // A weight read by one operator is its own memory; one read by several is a SharedWeight.
  std::vector<double> memory(n, 0), shared_read(n, 0);
  for (const TensorInfo& t : graph.tensors) {
    if (!t.is_weight || t.consumers.empty()) continue;
    const double bytes = t.bytes().value_or(0);
    if (t.consumers.size() == 1) {
      memory[t.consumers.front()] += bytes;
      continue;
    }
    SharedWeight weight{t.name, bytes, {}};
    for (int c : t.consumers) {
      weight.readers.push_back(static_cast<Vertex>(c));
      shared_read[c] += bytes;
    }
    std::sort(weight.readers.begin(), weight.readers.end());
    problem.weights.push_back(std::move(weight));
  }
  for (int v = 0; v < n; ++v)
    memory[v] += graph.nodes[v].subgraph_weight_bytes;  // defined inside its bodies: its own
  applyMemoryOverrides(graph, options, shared_read, memory, out.warnings);

  // A mixed machine: the specification as each further kind of accelerator sees it.
  std::vector<DeviceSpec> kind_specs;
  for (int k = 1; k < problem.devices.kindCount(); ++k) {
    kind_specs.push_back(devices);
    kind_specs.back().accelerators = devices.kindFigures(k);
  }
  out.accelerator_source.assign(n, -1);
  out.cpu_source.assign(n, -1);
  for (const CostModel* model : models)
    out.source_names.emplace_back(model->name());
  for (int v = 0; v < n; ++v) {
    const OnnxNode& node = graph.nodes[v];
    OpNode op;
    op.name = node.name;
    op.op_type = node.op_type;
    op.p_acc = op.p_cpu = kInfinity;  // a kind the device set lacks runs nothing
    op.memory = memory[v];
    op.members = {v};
    if (Status s = askModels(graph, v, devices, models, op, out.accelerator_source[v], out.cpu_source[v]); !s)
      return s;
    // The runtime's dispatch, on top of an estimate (a measured time carries it already).
    auto measured = [&](int source) { return source >= 0 && models[source]->includesOperatorOverhead(); };
    if (op.supportedOnAccelerator() && !measured(out.accelerator_source[v]))
      op.p_acc += devices.accelerators.op_overhead;
    if (!measured(out.cpu_source[v])) op.p_cpu += devices.cpus.op_overhead;
    if (op.supportedOnAccelerator() && !kind_specs.empty())
      op.p_kinds = otherKindTimes(graph, v, devices, kind_specs, op.p_acc,
                                  out.accelerator_source[v] >= 0 ? models[out.accelerator_source[v]] : nullptr,
                                  options.kind_models);
    addNode(problem.graph, std::move(op));
  }
  if (models.size() > 1) out.notes = sourceNotes(models, out.accelerator_source, out.cpu_source);

  int unsized = 0;
  for (const TensorInfo& t : graph.tensors) {
    if (t.producer < 0 || t.consumers.empty()) continue;
    std::optional<double> bytes = t.bytes();
    if (!bytes) ++unsized;
    // Each side of a stage boundary pays for the tensor: an accelerator the link transfer and its
    // boundary overhead, a CPU core its boundary overhead and copy. Without accelerators there is no
    // link to price a transfer on.
    const double cost =
        devices.accelerators.count > 0 ? devices.acceleratorBoundarySeconds(bytes.value_or(0)) : 0.0;
    const double cpu_cost = devices.cpus.count > 0 ? devices.cpuBoundarySeconds(bytes.value_or(0)) : 0.0;
    Net net{static_cast<Vertex>(t.producer), {}, cost, cpu_cost, bytes.value_or(0)};
    for (int c : t.consumers) {
      if (c == t.producer) continue;
      net.sinks.push_back(static_cast<Vertex>(c));
      boost::add_edge(static_cast<Vertex>(t.producer), static_cast<Vertex>(c),
                      OpEdge{net.cost, false, net.cpu_cost, net.bytes}, problem.graph);
    }
    if (!net.sinks.empty()) problem.nets.push_back(std::move(net));
  }
  if (unsized > 0) {
    out.warnings.push_back(std::to_string(unsized) +
                           " tensor(s) have no static size; their transfers count 0 bytes");
  }
  // A tensor many times larger than an accelerator: most likely a dimension value set too large.
  const TensorInfo* largest = nullptr;
  for (const TensorInfo& t : graph.tensors) {
    if (t.bytes() && (!largest || *t.bytes() > *largest->bytes())) largest = &t;
  }
  if (largest && devices.accelerators.count > 0 && *largest->bytes() > 10 * devices.accelerators.memory) {
    std::string shape;
    for (std::int64_t d : *largest->shape)
      shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    char size[64];
    std::snprintf(size, sizeof size, "%.3g bytes, more than 10 times an accelerator's %.3g",
                  *largest->bytes(), devices.accelerators.memory);
    out.warnings.push_back("tensor '" + largest->name + "' [" + shape + "] holds " + size +
                           ": is a dimension value too large?");
  }
  // A decoder's KV cache stays where its layer's attention runs: the readers of each past, the
  // producer of its present and the present's readers share a device, so no cache tensor crosses
  // devices (decoder.h).
  std::vector<std::vector<Vertex>> caches;
  for (const auto& [past, present] : graph.kv_cache) {
    std::vector<Vertex> group(graph.tensors[past].consumers.begin(), graph.tensors[past].consumers.end());
    const TensorInfo& out_tensor = graph.tensors[present];
    if (out_tensor.producer >= 0) group.push_back(static_cast<Vertex>(out_tensor.producer));
    group.insert(group.end(), out_tensor.consumers.begin(), out_tensor.consumers.end());
    if (group.size() > 1) caches.push_back(std::move(group));
  }
  if (!caches.empty()) colocateGroups(problem, caches);
  if (Status s = applySharedWeightMode(problem, options.shared_weights, options.colocate_weight_bytes); !s)
    return s.withContext(graph.path);
  return out;
}

}  // namespace placer
