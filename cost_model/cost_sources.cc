#include "cost_model/cost_sources.h"

#include <memory>
#include <string>

#include "cost_model/plugin_cost_model.h"
#include "cost_model/profile_cost_model.h"

namespace placer {

Expected<Annotation> annotateModel(const OnnxGraph& graph, const DeviceSpec& devices, const CostSources& sources,
                                   AnnotateOptions options) {
  auto profile = loadProfile(sources.profiles);
  if (!profile) return profile.status();
  std::shared_ptr<PluginCostModel> plugin;
  if (sources.plugin) {
    auto loaded = PluginCostModel::load(*sources.plugin);
    if (!loaded) return loaded.status();
    plugin = *loaded;
  }
  RooflineCostModel roofline;
  std::vector<const CostModel*> models;
  if (plugin) models.push_back(plugin.get());
  models.push_back(&*profile);
  models.push_back(&roofline);
  options.memory_overrides = profile->weightMemory();  // ONNX Runtime memory statistics
  auto annotation = annotate(graph, devices, models, options);
  if (plugin && !plugin->error().empty()) return invalidInput(plugin->error());
  if (!annotation) return annotation.status();
  if (!sources.profiles.empty()) {
    annotation->notes.push_back("cost profile gives times for " + std::to_string(profile->matchedNodes(graph)) +
                                " of " + std::to_string(graph.nodes.size()) + " operators");
  }
  return annotation;
}

}  // namespace placer
