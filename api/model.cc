#include "api/model.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "api/plugins.h"
#include "cost_model/cost_sources.h"

namespace placer::api {

namespace {

// What the options change in the named device set (" (changed: 3 accelerators, 0 CPU cores, 2000000000
// bytes per accelerator)"), so that a report naming the set names the machine it placed on; in words,
// the same from the command line and from the API.
std::string overridesNamed(const PlaceOptions& options) {
  std::vector<std::string> parts;
  auto count = [](int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  if (options.accelerators) parts.push_back(count(*options.accelerators, "accelerator", "accelerators"));
  if (options.cpus) parts.push_back(count(*options.cpus, "CPU core", "CPU cores"));
  if (options.memory) {
    char text[64];
    std::snprintf(text, sizeof text, "%.15g bytes per accelerator", *options.memory);
    parts.push_back(text);
  }
  std::string out;
  for (const std::string& part : parts)
    out += (out.empty() ? " (changed: " : ", ") + part;
  return out.empty() ? out : out + ")";
}

}  // namespace

Expected<DeviceSpec> resolveDevices(const PlaceOptions& options, OptionNaming naming) {
  Expected<DeviceSpec> spec = invalidInput("no devices");
  if (!options.topology.empty()) {
    PlaceOptions named = options;
    named.devices = options.topology;
    named.topology.clear();
    spec = resolveDevices(named, naming);
    if (spec && !spec->topology) {
      return invalidInput(optionName("topology", naming) + " " + options.topology +
                          " describes no topology (it has the accelerators/link form; give it with " +
                          optionName("devices", naming) +
                          ", or describe the devices and links: README.md, "
                          "\"Devices\")");
    }
    return spec;
  }
  if (!options.devices_json.empty()) {
    spec = parseDeviceSpec(options.devices_json, naming == OptionNaming::Flag ? "--devices" : "devices");
  } else if (options.devices.empty()) {
    spec = devicePreset(kDefaultDevicePreset);
  } else {
    std::error_code ec;
    if (std::filesystem::exists(options.devices, ec)) {
      spec = readDeviceSpec(options.devices);
    } else {
      spec = devicePreset(options.devices);
      if (!spec) {
        return invalidInput(optionName("devices", naming) + " " + options.devices +
                            " is neither a file nor a preset: " + spec.status().message());
      }
    }
  }
  if (!spec) return spec;
  if (options.accelerators) {
    spec->accelerators.count = *options.accelerators;
    if (spec->topology) {
      // A topology keeps its first devices, with their links.
      auto fewer = spec->topology->firstDevices(*options.accelerators);
      if (!fewer) {
        return invalidInput(optionName("accelerators", naming) + " " + std::to_string(*options.accelerators) +
                            ": " + fewer.status().message() + " (" + spec->name + ")");
      }
      spec->topology = std::move(*fewer);
      // The first kind the devices left use has the accelerators' figures (device_spec.h).
      if (const std::vector<int> used = spec->usedKinds();
          !used.empty() && used.front() < static_cast<int>(spec->kinds.size())) {
        spec->accelerators = spec->kinds[used.front()];
        spec->accelerators.count = *options.accelerators;
      }
    }
  }
  if (options.cpus) spec->cpus.count = *options.cpus;
  if (options.memory) {
    spec->accelerators.memory = *options.memory;
    for (AcceleratorSpec& kind : spec->kinds)
      kind.memory = *options.memory;
  }
  spec->name += overridesNamed(options);
  return spec;
}

std::vector<std::pair<std::string, std::string>> LoadedModel::messages() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& w : graph.warnings)
    out.emplace_back("warning: ", w);
  for (const std::string& note : annotation.notes)
    out.emplace_back("", note);
  for (const std::string& w : annotation.warnings)
    out.emplace_back("warning: ", w);
  return out;
}

Expected<LoadedModel> readModel(const ModelSource& source, const PlaceOptions& options, OptionNaming naming) {
  LoadedModel out;
  out.source = source;
  out.shared_weights = options.shared_weights;
  auto devices = resolveDevices(options, naming);
  if (!devices) return devices.status();
  out.devices = std::move(*devices);
  LoadOptions load;
  load.dims = options.dims;
  load.phase = options.phase;
  load.isolate_shape_inference = options.isolate_shape_inference;
  auto graph = loadOnnx(source, load);
  if (!graph) return graph.status();
  out.graph = std::move(*graph);
  return out;
}

namespace {

// The profiles given as KIND=FILE (KIND an accelerator kind of the machine, FILE not itself a file
// of that name) go to that kind: the first kind's are the plain profiles (measured on kind 0, as a
// profile without a kind is), a further kind's its own. A KIND= prefix naming no kind is refused
// with the kinds there are, so a misspelt kind is never read as a file name.
Status assignProfiles(const std::vector<std::filesystem::path>& given, const DeviceSpec& spec,
                      CostSources& sources) {
  const DeviceSet devices = spec.deviceSet();
  std::vector<std::string> kinds;
  for (const AcceleratorKind& kind : devices.kinds)
    kinds.push_back(kind.name);
  if (kinds.empty() && spec.topology && !spec.usedKinds().empty())
    kinds.push_back(spec.topology->kinds[spec.usedKinds().front()]);
  for (const std::filesystem::path& path : given) {
    const std::string text = path.string();
    const std::size_t eq = text.find('=');
    std::error_code ec;
    if (eq == std::string::npos || text.find('/') < eq || std::filesystem::exists(path, ec)) {
      sources.profiles.push_back(path);
      continue;
    }
    const std::string kind = text.substr(0, eq);
    const auto it = std::find(kinds.begin(), kinds.end(), kind);
    if (it == kinds.end()) {
      std::string known;
      for (const std::string& k : kinds)
        known += (known.empty() ? "" : ", ") + k;
      return invalidInput(
          "cost profile " + text + ": '" + kind + "' is not an accelerator kind of the machine (" +
          (known.empty() ? std::string("its accelerators are not named by kind") : "its kinds: " + known) +
          "), and there is no file of that name");
    }
    const std::size_t k = static_cast<std::size_t>(it - kinds.begin());
    if (k == 0) {
      sources.profiles.push_back(text.substr(eq + 1));
      continue;
    }
    if (sources.kind_profiles.size() < k) sources.kind_profiles.resize(k);
    sources.kind_profiles[k - 1].push_back(text.substr(eq + 1));
  }
  return Status::ok();
}

}  // namespace

Status costModel(LoadedModel& model, const PlaceOptions& options) {
  CostSources sources;
  if (Status s = assignProfiles(options.cost_profiles, model.devices, sources); !s) return s;
  sources.plugin = options.cost_plugin;
  if (options.plugins) sources.plugin_models = options.plugins->costModels();
  AnnotateOptions annotate;
  annotate.shared_weights = options.shared_weights;
  auto annotation = annotateModel(model.graph, model.devices, sources, annotate);
  if (!annotation) return annotation.status();
  model.annotation = std::move(*annotation);
  return Status::ok();
}

Expected<LoadedModel> loadModel(const ModelSource& source, const PlaceOptions& options, OptionNaming naming) {
  auto model = readModel(source, options, naming);
  if (!model) return model;
  if (Status s = costModel(*model, options); !s) return s;
  return model;
}

}  // namespace placer::api
