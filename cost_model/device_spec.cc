// Reading and validating device specifications, and the bundled presets (device_spec_json.cc
// writes them).
//
// Validation reports the first problem in a fixed order (JSON syntax, duplicated fields, then the
// top level, accelerators, cpus, link), each message naming the source and the field's JSON path.
// The presets are compiled in as JSON text, generated from cost_model/presets/<name>.json at configure
// time, and go through the same parser as a user's file.
#include "cost_model/device_spec.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "onnx_io/input_file.h"
#include "onnx_io/json_text.h"

namespace placer {

using Json = nlohmann::ordered_json;

namespace {

struct Preset {
  std::string_view name;
  std::string_view json;
};

// The presets' texts, each byte for byte the file cost_model/presets/<name>.json (generated from those
// files by cost_model/CMakeLists.txt, so the two cannot disagree); the comment inside each says where
// its figures come from.
constexpr Preset kPresets[] = {
#include "device_presets.inc"
};

constexpr int kMaxCount = 4096;

// The keys of peak_flops_by_type: every compute type but fp32, whose rate is peak_flops.
const std::vector<std::string_view> kTypedPeakKeys = {"tf32", "fp16", "bf16", "fp8", "int8", "int4"};

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string joined(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// " (did you mean "x"?)" when a known name is within two edits of the given one.
std::string suggestion(std::string_view given, const std::vector<std::string_view>& known) {
  std::string_view best;
  std::size_t best_distance = 3;
  for (std::string_view name : known) {
    if (std::size_t d = editDistance(given, name); d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best.empty() ? "" : " (did you mean \"" + std::string(best) + "\"?)";
}

// Validates one document; `source_` prefixes every message and fields are named by JSON path.
class SpecReader {
 public:
  explicit SpecReader(std::string source) : source_(std::move(source)) {}

  Expected<DeviceSpec> read(const Json& root) const {
    if (!root.is_object())
      return invalidInput(source_ + ": expected a JSON object at the top level (got " + root.type_name() +
                          ")");
    for (const char* key : {"kinds", "devices", "switches", "links", "host"}) {
      if (root.contains(key)) return readTopologySpec(root);
    }
    if (Status s = knownFields(root, "", {"name", "comment", "accelerators", "cpus", "link"}); !s) return s;

    DeviceSpec spec;
    spec.name = std::filesystem::path(source_).filename().string();
    if (Status s = optionalString(root, "name", spec.name); !s) return s;
    std::string comment;
    if (Status s = optionalString(root, "comment", comment); !s) return s;

    if (Status s = readAccelerators(root, spec.accelerators); !s) return s;
    if (Status s = readCpus(root, spec.cpus); !s) return s;
    if (Status s = readLink(root, spec.accelerators.count, spec.link); !s) return s;
    if (spec.accelerators.count == 0 && spec.cpus.count == 0)
      return invalidInput(source_ + ": no devices: accelerators.count and cpus.count are both 0");
    return spec;
  }

 private:
  Status readAccelerators(const Json& root, AcceleratorSpec& out) const {
    const Json* section = nullptr;
    if (Status s = findSection(root, "accelerators", true, "", section); !s) return s;
    if (Status s = knownFields(*section, "accelerators",
                               {"count", "memory", "peak_flops", "peak_flops_by_type", "memory_bandwidth",
                                "op_overhead", "boundary_overhead", "calibrated"});
        !s)
      return s;
    if (Status s = count(*section, "accelerators", out.count); !s) return s;
    return acceleratorFigures(*section, "accelerators", out.count > 0,
                              "accelerators.count is " + std::to_string(out.count), out);
  }

  // An accelerator's figures in `section` (named `name`): required and > 0 when `needed`.
  Status acceleratorFigures(const Json& section, const std::string& name, bool needed, const std::string& why,
                            AcceleratorSpec& out) const {
    if (Status s = figure(section, name, "memory", needed, why, out.memory); !s) return s;
    if (Status s = figure(section, name, "peak_flops", needed, why, out.peak_flops); !s) return s;
    if (Status s = typedPeaks(section, name, out.peak_flops_by_type); !s) return s;
    if (Status s = calibratedRates(section, name, out.calibrated); !s) return s;
    if (Status s = figure(section, name, "memory_bandwidth", needed, why, out.memory_bandwidth); !s) return s;
    if (Status s = figure(section, name, "op_overhead", false, "", out.op_overhead); !s) return s;
    return figure(section, name, "boundary_overhead", false, "", out.boundary_overhead);
  }

  // The topology form (device_spec.h): kinds, named devices, switches, links and the host link.
  Expected<DeviceSpec> readTopologySpec(const Json& root) const {
    if (Status s = knownFields(root, "", {"name", "comment", "kinds", "devices", "switches", "links", "host", "cpus"}); !s)
      return s;
    DeviceSpec spec;
    spec.name = std::filesystem::path(source_).filename().string();
    if (Status s = optionalString(root, "name", spec.name); !s) return s;
    std::string comment;
    if (Status s = optionalString(root, "comment", comment); !s) return s;
    Topology topology;
    const Json* kinds = nullptr;
    if (Status s = findSection(root, "kinds", true, " (the device kinds, by name)", kinds); !s) return s;
    for (const auto& [name, kind] : kinds->items()) {
      const std::string field = "kinds." + name;
      if (!kind.is_object()) return invalidInput(source_ + ": " + field + " must be an object");
      if (Status s = knownFields(kind, field,
                                 {"memory", "peak_flops", "peak_flops_by_type", "memory_bandwidth", "op_overhead",
                                  "boundary_overhead", "calibrated"});
          !s)
        return s;
      AcceleratorSpec figures;
      if (Status s = acceleratorFigures(kind, field, true, "it is a device kind", figures); !s) return s;
      topology.kinds.push_back(name);
      spec.kinds.push_back(figures);
    }
    if (Status s = readDevices(root, topology, spec.link); !s) return s;
    if (Status s = readLinks(root, topology); !s) return s;
    if (Status s = readCpus(root, spec.cpus); !s) return s;
    if (Status s = topology.finish(); !s) return invalidInput(source_ + ": " + s.message());
    spec.topology = topology;
    const std::vector<int> used = spec.usedKinds();
    if (used.size() > kMaxAcceleratorKinds) {
      return invalidInput(source_ + ": devices of " + std::to_string(used.size()) + " kinds: at most " +
                          std::to_string(kMaxAcceleratorKinds) + " kinds of accelerator are told apart");
    }
    // The first kind the devices use has the accelerators' figures (the times p_acc); the others'
    // stay in `kinds` (DeviceSpec::kindFigures).
    spec.accelerators = used.empty() ? AcceleratorSpec{} : spec.kinds[used.front()];
    spec.accelerators.count = static_cast<int>(topology.devices.size());
    if (spec.accelerators.count == 0 && spec.cpus.count == 0)
      return invalidInput(source_ + ": no devices: \"devices\" is empty and cpus.count is 0");
    spec.topology = std::move(topology);
    return spec;
  }

  // "devices" (required: [{"name", "kind"}]), "switches" (optional: [names]) and "host" (required
  // with devices: every device's link to the host, which is also DeviceSpec::link).
  Status readDevices(const Json& root, Topology& topology, LinkSpec& host_link) const {
    auto devices = root.find("devices");
    if (devices == root.end() || !devices->is_array())
      return invalidInput(source_ + ": devices: missing, or not an array of {\"name\", \"kind\"}");
    for (std::size_t i = 0; i < devices->size(); ++i) {
      const Json& device = (*devices)[i];
      const std::string field = "devices[" + std::to_string(i) + "]";
      if (!device.is_object()) return invalidInput(source_ + ": " + field + " must be an object");
      if (Status s = knownFields(device, field, {"name", "kind"}); !s) return s;
      const auto name = device.find("name"), kind = device.find("kind");
      if (name == device.end() || !name->is_string() || kind == device.end() || !kind->is_string())
        return invalidInput(source_ + ": " + field + " needs a \"name\" and a \"kind\" (strings)");
      const auto k = std::find(topology.kinds.begin(), topology.kinds.end(), kind->get<std::string>());
      if (k == topology.kinds.end())
        return invalidInput(source_ + ": " + field + ".kind: \"" + kind->get<std::string>() + "\" is not in kinds");
      topology.devices.push_back({name->get<std::string>(), static_cast<int>(k - topology.kinds.begin())});
    }
    if (auto switches = root.find("switches"); switches != root.end()) {
      if (!switches->is_array()) return invalidInput(source_ + ": switches must be an array of names");
      for (const Json& name : *switches) {
        if (!name.is_string()) return invalidInput(source_ + ": switches must be an array of names");
        topology.switches.push_back(name.get<std::string>());
      }
    }
    const Json* host = nullptr;
    if (Status s = findSection(root, "host", !topology.devices.empty(), " (required with devices)", host); !s) return s;
    if (host == nullptr) return Status::ok();
    if (Status s = knownFields(*host, "host", {"bandwidth", "latency"}); !s) return s;
    TopologyLink link;
    if (Status s = figure(*host, "host", "bandwidth", true, "there are devices", link.bandwidth); !s) return s;
    if (Status s = figure(*host, "host", "latency", false, "", link.latency); !s) return s;
    host_link = LinkSpec{link.bandwidth, link.latency};
    for (std::size_t i = 0; i < topology.devices.size(); ++i) {
      link.a = static_cast<int>(i);
      link.b = topology.hostNode();
      topology.links.push_back(link);
    }
    return Status::ok();
  }

  // "links" (optional): [{"between": [name, name], "bandwidth", "latency"}] between devices, switches
  // and "host".
  Status readLinks(const Json& root, Topology& topology) const {
    auto links = root.find("links");
    if (links == root.end()) return Status::ok();
    if (!links->is_array()) return invalidInput(source_ + ": links must be an array");
    for (std::size_t i = 0; i < links->size(); ++i) {
      const Json& entry = (*links)[i];
      const std::string field = "links[" + std::to_string(i) + "]";
      if (!entry.is_object()) return invalidInput(source_ + ": " + field + " must be an object");
      if (Status s = knownFields(entry, field, {"between", "bandwidth", "latency"}); !s) return s;
      const auto between = entry.find("between");
      if (between == entry.end() || !between->is_array() || between->size() != 2 || !(*between)[0].is_string() ||
          !(*between)[1].is_string())
        return invalidInput(source_ + ": " + field + ".between must name two devices, switches or \"host\"");
      TopologyLink link;
      for (int end = 0; end < 2; ++end) {
        const std::string name = (*between)[end].get<std::string>();
        const int node = topology.nodeOf(name);
        if (node < 0) return invalidInput(source_ + ": " + field + ".between: no device or switch is named \"" + name + "\"");
        (end == 0 ? link.a : link.b) = node;
      }
      if (Status s = figure(entry, field, "bandwidth", true, "it is a link", link.bandwidth); !s) return s;
      if (Status s = figure(entry, field, "latency", false, "", link.latency); !s) return s;
      topology.links.push_back(link);
    }
    return Status::ok();
  }

  Status readCpus(const Json& root, CpuSpec& out) const {
    const Json* section = nullptr;
    if (Status s = findSection(root, "cpus", true, "", section); !s) return s;
    if (Status s = knownFields(*section, "cpus",
                               {"count", "peak_flops", "peak_flops_by_type", "memory_bandwidth",
                                "op_overhead", "boundary_overhead", "boundary_bandwidth", "calibrated"});
        !s)
      return s;
    if (Status s = count(*section, "cpus", out.count); !s) return s;
    const std::string why = "cpus.count is " + std::to_string(out.count);
    const bool needed = out.count > 0;
    if (Status s = figure(*section, "cpus", "peak_flops", needed, why, out.peak_flops); !s) return s;
    if (Status s = typedPeaks(*section, "cpus", out.peak_flops_by_type); !s) return s;
    if (Status s = calibratedRates(*section, "cpus", out.calibrated); !s) return s;
    if (Status s = figure(*section, "cpus", "memory_bandwidth", needed, why, out.memory_bandwidth); !s)
      return s;
    if (Status s = figure(*section, "cpus", "op_overhead", false, "", out.op_overhead); !s) return s;
    if (Status s = figure(*section, "cpus", "boundary_overhead", false, "", out.boundary_overhead); !s)
      return s;
    return figure(*section, "cpus", "boundary_bandwidth", false, "", out.boundary_bandwidth);
  }

  Status readLink(const Json& root, int accelerators, LinkSpec& out) const {
    const bool needed = accelerators > 0;
    const Json* section = nullptr;
    if (Status s = findSection(root, "link", needed, " (required when accelerators.count > 0)", section); !s)
      return s;
    if (section == nullptr) return Status::ok();
    if (Status s = knownFields(*section, "link", {"bandwidth", "latency"}); !s) return s;
    const std::string why = "accelerators.count is " + std::to_string(accelerators);
    if (Status s = figure(*section, "link", "bandwidth", needed, why, out.bandwidth); !s) return s;
    return figure(*section, "link", "latency", false, "", out.latency);
  }

  // Points `out` at root[key], or leaves it null when the optional section is absent.
  Status findSection(const Json& root, const char* key, bool required, const std::string& why,
                     const Json*& out) const {
    if (required && !root.contains(key)) return invalidInput(source_ + ": " + key + ": missing section" + why);
    return optionalObject(root, key, key, out);
  }

  // Points `out` at parent[key] (named `field` in errors), or leaves it null when absent; present,
  // it must be an object.
  Status optionalObject(const Json& parent, const char* key, const std::string& field, const Json*& out) const {
    out = nullptr;
    auto it = parent.find(key);
    if (it == parent.end()) return Status::ok();
    if (!it->is_object())
      return invalidInput(source_ + ": " + field + " must be an object (got " + it->type_name() + ")");
    out = &*it;
    return Status::ok();
  }

  Status knownFields(const Json& object, const std::string& section,
                     const std::vector<std::string_view>& known) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      return invalidInput(source_ + ": " + path(section, key) + ": unknown field" + suggestion(key, known) +
                          "; known fields: " + joined(known));
    }
    return Status::ok();
  }

  Status optionalString(const Json& object, const char* key, std::string& out) const {
    auto it = object.find(key);
    if (it == object.end()) return Status::ok();
    if (!it->is_string())
      return invalidInput(source_ + ": " + key + " must be a string (got " + it->type_name() + ")");
    out = it->get<std::string>();
    return Status::ok();
  }

  // A required integer in 0..kMaxCount, written as such or as a number with no fraction.
  Status count(const Json& section, const std::string& name, int& out) const {
    const std::string field = path(name, "count");
    auto it = section.find("count");
    if (it == section.end()) return invalidInput(source_ + ": " + field + ": missing field");
    if (!it->is_number())
      return invalidInput(source_ + ": " + field + " must be a number (got " + it->type_name() + ")");
    const double value = it->get<double>();
    if (!(value >= 0 && value <= kMaxCount && value == std::floor(value)))
      return invalidInput(source_ + ": " + field + " must be an integer in 0.." + std::to_string(kMaxCount) +
                          " (got " + it->dump() + ")");
    out = static_cast<int>(value);
    return Status::ok();
  }

  // A finite number >= 0; when `needed` it must be present and > 0 (`why` says why), otherwise it
  // defaults to 0.
  Status figure(const Json& section, const std::string& name, const char* key, bool needed,
                const std::string& why, double& out) const {
    const std::string field = path(name, key);
    auto it = section.find(key);
    if (it == section.end()) {
      if (needed) return invalidInput(source_ + ": " + field + ": missing field");
      out = 0;
      return Status::ok();
    }
    if (!it->is_number())
      return invalidInput(source_ + ": " + field + " must be a number (got " + it->type_name() + ")");
    const double value = it->get<double>();
    if (!std::isfinite(value))
      return invalidInput(source_ + ": " + field + " must be finite (got " + it->dump() + ")");
    if (needed && !(value > 0))
      return invalidInput(source_ + ": " + field + " must be positive since " + why + " (got " + it->dump() +
                          ")");
    if (value < 0)
      return invalidInput(source_ + ": " + field + " must not be negative (got " + it->dump() + ")");
    out = value;
    return Status::ok();
  }

  // The optional object of per-format peak rates: known keys other than fp32, each a finite number > 0.
  Status typedPeaks(const Json& section, const std::string& name, PeakFlopsByType& out) const {
    const std::string field = path(name, "peak_flops_by_type");
    const Json* it = nullptr;
    if (Status s = optionalObject(section, "peak_flops_by_type", field, it); !s || it == nullptr) return s;
    if (it->contains("fp32"))
      return invalidInput(source_ + ": " + field + ".fp32: not allowed; the float32 rate is " +
                          path(name, "peak_flops"));
    if (Status s = knownFields(*it, field, kTypedPeakKeys); !s) return s;
    for (const auto& [key, value] : it->items()) {
      if (!value.is_number())
        return invalidInput(source_ + ": " + field + "." + key + " must be a number (got " +
                            value.type_name() + ")");
      const double rate = value.get<double>();
      if (!std::isfinite(rate) || !(rate > 0))
        return invalidInput(source_ + ": " + field + "." + key + " must be a finite number > 0 (got " +
                            value.dump() + ")");
      out[*computeTypeNamed(key)] = rate;
    }
    return Status::ok();
  }

  // The optional object of calibrated rates: "<class>/<type>" -> {"flops", "bandwidth", "overhead",
  // "samples"} (calibration.h), rates finite and > 0, the overhead finite and >= 0.
  Status calibratedRates(const Json& section, const std::string& name, CalibratedRates& out) const {
    const std::string field = path(name, "calibrated");
    const Json* it = nullptr;
    if (Status s = optionalObject(section, "calibrated", field, it); !s || it == nullptr) return s;
    for (const auto& [key, value] : it->items()) {
      const std::string where = field + "[\"" + key + "\"]";
      if (!isRateKey(key)) {
        return invalidInput(source_ + ": " + where +
                            ": not a rate key (\"<class>/<type>\" or \"<op type>/<type>\": class matrix, "
                            "normalization, elementwise, reduction, movement or any; an op type such as Conv; "
                            "type fp32, tf32, fp16, bf16, fp8, int8 or int4)");
      }
      if (!value.is_object()) return invalidInput(source_ + ": " + where + " must be an object");
      if (Status s = knownFields(value, where, {"flops", "bandwidth", "overhead", "samples"}); !s) return s;
      EffectiveRate rate;
      for (auto [member, target, positive] : {std::tuple{"flops", &rate.flops, true},
                                              std::tuple{"bandwidth", &rate.bandwidth, true},
                                              std::tuple{"overhead", &rate.overhead, false}}) {
        auto v = value.find(member);
        if (v == value.end()) return invalidInput(source_ + ": " + where + "." + member + ": missing field");
        const double x = v->is_number() ? v->get<double>() : std::nan("");
        if (!std::isfinite(x) || x < 0 || (positive && x == 0))
          return invalidInput(source_ + ": " + where + "." + member + " must be a finite number " +
                              (positive ? "> 0" : ">= 0") + " (got " + v->dump() + ")");
        *target = x;
      }
      if (auto v = value.find("samples"); v != value.end()) {
        if (!v->is_number_integer() || v->get<long long>() < 0 || v->get<long long>() > 1'000'000'000)
          return invalidInput(source_ + ": " + where + ".samples must be a count (got " + v->dump() + ")");
        rate.samples = static_cast<int>(v->get<long long>());
      }
      out[key] = rate;
    }
    return Status::ok();
  }

  // "<class>/<type>" or "<op type>/<type>" (calibration.h's rateKey).
  static bool isRateKey(const std::string& key) {
    const std::size_t slash = key.find('/');
    if (slash == std::string::npos || !computeTypeNamed(key.substr(slash + 1))) return false;
    const std::string subject = key.substr(0, slash);
    const bool op_type = !subject.empty() && std::isupper(static_cast<unsigned char>(subject[0])) &&
                         std::all_of(subject.begin(), subject.end(), [](char c) {
                           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                         });
    return op_type || parseOpClass(subject).has_value();
  }

  static std::string path(const std::string& section, std::string_view key) {
    return section.empty() ? std::string(key) : section + "." + std::string(key);
  }

  std::string source_;
};

}  // namespace

std::vector<int> DeviceSpec::usedKinds() const {
  std::vector<int> used;
  if (!topology) return used;
  for (const Topology::Device& device : topology->devices) used.push_back(device.kind);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  return used;
}

AcceleratorSpec DeviceSpec::kindFigures(int kind) const {
  const std::vector<int> used = usedKinds();
  if (used.size() < 2) return accelerators;
  AcceleratorSpec figures = kind == 0 ? accelerators : kinds[used[kind]];  // kind 0: with overrides
  figures.count = 0;
  for (const Topology::Device& device : topology->devices) figures.count += device.kind == used[kind];
  return figures;
}

DeviceSet DeviceSpec::deviceSet() const {
  DeviceSet set{accelerators.count, accelerators.memory, cpus.count};
  const std::vector<int> used = usedKinds();
  if (used.size() < 2) return set;
  for (std::size_t k = 0; k < used.size(); ++k) {
    const AcceleratorSpec figures = kindFigures(static_cast<int>(k));
    set.kinds.push_back({topology->kinds[used[k]], figures.count, figures.memory});
    set.memory = std::max(set.memory, figures.memory);
  }
  return set;
}

double DeviceSpec::transferSeconds(double bytes) const {
  assert(bytes >= 0 && "a transfer cannot move a negative number of bytes");
  if (bytes <= 0) return link.latency;
  if (link.bandwidth <= 0) return std::numeric_limits<double>::infinity();
  return link.latency + bytes / link.bandwidth;
}

double DeviceSpec::acceleratorBoundarySeconds(double bytes) const {
  return transferSeconds(bytes) + accelerators.boundary_overhead;
}

double DeviceSpec::cpuBoundarySeconds(double bytes) const {
  const double copy = cpus.boundary_bandwidth > 0 ? bytes / cpus.boundary_bandwidth : 0.0;
  return cpus.boundary_overhead + copy;
}

Expected<DeviceSpec> parseDeviceSpec(const std::string& text, const std::string& source_name) {
  auto root = parseJsonRejectingDuplicates<Json>(text, source_name, dottedPath);
  if (!root) return root.status();
  return SpecReader(source_name).read(*root);
}

Expected<DeviceSpec> readDeviceSpec(const std::filesystem::path& path) {
  auto text = readInputFile(path, kMaxTextBytes);
  if (!text) return text.status();
  return parseDeviceSpec(*text, path.string());
}

std::vector<std::string> devicePresetNames() {
  std::vector<std::string> names;
  for (const Preset& preset : kPresets)
    names.emplace_back(preset.name);
  std::sort(names.begin(), names.end());
  return names;
}

Expected<DeviceSpec> devicePreset(std::string_view name) {
  for (const Preset& preset : kPresets) {
    if (preset.name != name) continue;
    auto spec = parseDeviceSpec(std::string(preset.json), "device preset " + std::string(name));
    if (!spec) return internalError("the bundled " + spec.status().message());
    return spec;
  }
  std::vector<std::string_view> known;
  for (const Preset& preset : kPresets)
    known.push_back(preset.name);
  std::sort(known.begin(), known.end());
  return invalidInput("unknown device preset \"" + std::string(name) + "\"" + suggestion(name, known) +
                      "; known presets: " + joined(known));
}

}  // namespace placer
