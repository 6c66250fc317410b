#include "cost_model/cost_sources.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "cost_model/plugin_cost_model.h"
#include "cost_model/profile_cost_model.h"

namespace placer {

namespace {

// "cost profile[ (kind)]: N of M operators matched (...)" and what matched nothing.
std::string profileNote(const std::string& kind, const OnnxGraph& graph, const ProfileCostModel& resolved,
                        const ProfileCostModel::Match& match) {
  const int matched = static_cast<int>(resolved.matchedNodes(graph));
  const int by_signature = std::max(0, matched - match.exact - match.renamed - match.fused - match.ordered);
  std::string note = "cost profile" + (kind.empty() ? std::string() : " (" + kind + ")") + ": " +
                     std::to_string(matched) + " of " + std::to_string(graph.nodes.size()) +
                     " operators matched (" + std::to_string(match.exact) + " by name, " +
                     std::to_string(match.renamed) + " through renamed kernels, " +
                     std::to_string(match.fused) + " fused into those, " + std::to_string(match.ordered) +
                     " from " + std::to_string(match.by_order) + " kernels placed by execution order, " +
                     std::to_string(by_signature) + " by op signature)";
  if (match.unmatched_entries > 0) {
    char time[64];
    std::snprintf(time, sizeof time, "%.3g ms cpu, %.3g ms accelerator", match.unmatched_cpu_seconds * 1e3,
                  match.unmatched_accelerator_seconds * 1e3);
    note += "; " + std::to_string(match.unmatched_entries) + " entries match no operator (" + time +
            " per sample, not counted), e.g. \"" + match.unmatched_names.front() + "\"";
  }
  return note;
}

}  // namespace

Expected<Annotation> annotateModel(const OnnxGraph& graph, const DeviceSpec& devices,
                                   const CostSources& sources, AnnotateOptions options) {
  auto profile = loadProfile(sources.profiles);
  if (!profile) return profile.status();
  std::shared_ptr<PluginCostModel> plugin;
  if (sources.plugin) {
    auto loaded = PluginCostModel::load(*sources.plugin);
    if (!loaded) return loaded.status();
    plugin = *loaded;
  }
  // Kernels of an optimised graph (fused, renamed) moved onto the operators they stand for.
  ProfileCostModel::Match match;
  const ProfileCostModel resolved = profile->resolvedFor(graph, devices, match);
  RooflineCostModel roofline;
  std::vector<const CostModel*> models;
  for (const auto& model : sources.plugin_models)
    models.push_back(model.get());
  if (plugin) models.push_back(plugin.get());
  if (!sources.profiles.empty()) models.push_back(&resolved);
  models.push_back(&roofline);
  options.memory_overrides = profile->weightMemory();  // ONNX Runtime memory statistics
  // Each further kind's own profiles, resolved against the graph with that kind's figures.
  const DeviceSet device_set = devices.deviceSet();
  if (sources.kind_profiles.size() >= static_cast<std::size_t>(device_set.kindCount()) &&
      !sources.kind_profiles.empty()) {
    return invalidInput("profiles for " + std::to_string(sources.kind_profiles.size() + 1) +
                        " accelerator kinds, but the machine has " + std::to_string(device_set.kindCount()));
  }
  std::vector<ProfileCostModel> kind_resolved;
  std::vector<ProfileCostModel::Match> kind_match;
  kind_resolved.reserve(sources.kind_profiles.size());
  for (std::size_t k = 0; k < sources.kind_profiles.size(); ++k) {
    const std::vector<std::filesystem::path>& files = sources.kind_profiles[k];
    kind_match.emplace_back();
    if (files.empty()) {
      kind_resolved.emplace_back();
      continue;
    }
    auto kind_profile = loadProfile(files);
    if (!kind_profile) return kind_profile.status();
    DeviceSpec kind_spec = devices;
    kind_spec.accelerators = devices.kindFigures(static_cast<int>(k) + 1);
    kind_resolved.push_back(kind_profile->resolvedFor(graph, kind_spec, kind_match.back()));
  }
  for (std::size_t k = 0; k < kind_resolved.size(); ++k)
    options.kind_models.push_back(sources.kind_profiles[k].empty() ? nullptr : &kind_resolved[k]);
  auto annotation = annotate(graph, devices, models, options);
  for (const auto& model : sources.plugin_models) {
    if (!model->error().empty()) return invalidInput(model->error());
  }
  if (plugin && !plugin->error().empty()) return invalidInput(plugin->error());
  if (!annotation) return annotation.status();
  for (std::size_t k = kind_resolved.size(); k-- > 0;) {
    if (sources.kind_profiles[k].empty()) continue;
    const std::string& kind = device_set.kinds[k + 1].name;
    annotation->notes.insert(annotation->notes.begin(),
                             profileNote(kind, graph, kind_resolved[k], kind_match[k]));
  }
  if (!sources.profiles.empty())
    annotation->notes.insert(annotation->notes.begin(), profileNote("", graph, resolved, match));
  return annotation;
}

}  // namespace placer
