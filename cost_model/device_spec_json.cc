// Writing a device specification back as JSON (deviceSpecToJson, device_spec.h): every field, in
// the form it was read in (the accelerators/link form, or the topology form), so that
// parseDeviceSpec reads it back equal.
#include <string>

#include "cost_model/device_spec.h"

namespace placer {

using Json = nlohmann::ordered_json;

namespace {

// {"peak_flops": ..., "peak_flops_by_type": {...}} of a section, the second only when it has entries.
Json peaksJson(double peak_flops, const PeakFlopsByType& by_type) {
  Json out{{"peak_flops", peak_flops}};
  if (by_type.empty()) return out;
  Json typed = Json::object();
  for (const auto& [type, rate] : by_type)
    typed[std::string(computeTypeName(type))] = rate;
  out["peak_flops_by_type"] = std::move(typed);
  return out;
}

Json ratesJson(const CalibratedRates& rates) {
  Json out = Json::object();
  for (const auto& [key, rate] : rates) {
    out[key] = Json{{"flops", rate.flops}, {"bandwidth", rate.bandwidth}, {"overhead", rate.overhead},
                    {"samples", rate.samples}};
  }
  return out;
}

}  // namespace

Json deviceSpecToJson(const DeviceSpec& spec) {
  Json out;
  out["name"] = spec.name;
  out["accelerators"] = Json{{"count", spec.accelerators.count}, {"memory", spec.accelerators.memory}};
  out["accelerators"].update(peaksJson(spec.accelerators.peak_flops, spec.accelerators.peak_flops_by_type));
  out["accelerators"].update(Json{{"memory_bandwidth", spec.accelerators.memory_bandwidth},
                                  {"op_overhead", spec.accelerators.op_overhead},
                                  {"boundary_overhead", spec.accelerators.boundary_overhead}});
  out["cpus"] = Json{{"count", spec.cpus.count}};
  out["cpus"].update(peaksJson(spec.cpus.peak_flops, spec.cpus.peak_flops_by_type));
  out["cpus"].update(Json{{"memory_bandwidth", spec.cpus.memory_bandwidth},
                          {"op_overhead", spec.cpus.op_overhead},
                          {"boundary_overhead", spec.cpus.boundary_overhead},
                          {"boundary_bandwidth", spec.cpus.boundary_bandwidth}});
  if (!spec.accelerators.calibrated.empty()) out["accelerators"]["calibrated"] = ratesJson(spec.accelerators.calibrated);
  if (!spec.cpus.calibrated.empty()) out["cpus"]["calibrated"] = ratesJson(spec.cpus.calibrated);
  if (!spec.topology) {
    out["link"] = Json{{"bandwidth", spec.link.bandwidth}, {"latency", spec.link.latency}};
    return out;
  }
  // The topology form: the accelerators section becomes the kinds, the link the host's.
  const Topology& topology = *spec.topology;
  Json accelerators = out["accelerators"];
  out.erase("accelerators");
  Json cpus = out["cpus"];
  out.erase("cpus");
  Json kinds = Json::object();
  // The devices' kind has the accelerators' figures (calibrated rates, --memory), the others their own.
  const std::vector<int> used_kinds = spec.usedKinds();
  const int used = used_kinds.empty() ? -1 : used_kinds.front();
  for (std::size_t k = 0; k < topology.kinds.size(); ++k) {
    const AcceleratorSpec& figures =
        static_cast<int>(k) == used || k >= spec.kinds.size() ? spec.accelerators : spec.kinds[k];
    Json kind{{"memory", figures.memory}};
    kind.update(peaksJson(figures.peak_flops, figures.peak_flops_by_type));
    kind.update(Json{{"memory_bandwidth", figures.memory_bandwidth}, {"op_overhead", figures.op_overhead},
                     {"boundary_overhead", figures.boundary_overhead}});
    if (!figures.calibrated.empty()) kind["calibrated"] = ratesJson(figures.calibrated);
    kinds[topology.kinds[k]] = std::move(kind);
  }
  out["kinds"] = std::move(kinds);
  Json devices = Json::array();
  for (const Topology::Device& device : topology.devices)
    devices.push_back(Json{{"name", device.name}, {"kind", topology.kinds[device.kind]}});
  out["devices"] = std::move(devices);
  if (!topology.switches.empty()) out["switches"] = topology.switches;
  Json links = Json::array();
  for (const TopologyLink& link : topology.links) {
    if (link.b == topology.hostNode() && link.a < static_cast<int>(topology.devices.size()) &&
        link.bandwidth == spec.link.bandwidth && link.latency == spec.link.latency)
      continue;  // written as "host"
    links.push_back(Json{{"between", {topology.nodeName(link.a), topology.nodeName(link.b)}},
                         {"bandwidth", link.bandwidth},
                         {"latency", link.latency}});
  }
  out["links"] = std::move(links);
  out["host"] = Json{{"bandwidth", spec.link.bandwidth}, {"latency", spec.link.latency}};
  out["cpus"] = std::move(cpus);
  return out;
}

}  // namespace placer
