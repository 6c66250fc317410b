// Cost plugins through the C ABI: loading, answering, declining, failing, and stacking in front of
// the roofline model.
#include "cost_model/plugin_cost_model.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/test_util.h"

namespace placer::testing {
namespace plugin_cost_model_test {

TEST(PluginCostModel, AnswersConvsAndLeavesTheRestToTheRoofline) {
  auto plugin = PluginCostModel::load(ONNX_PLACER_TEST_PLUGIN);
  ASSERT_TRUE(plugin.hasValue()) << plugin.status().message();
  auto graph = loadOnnx(dataPath("models/resnet50_light.onnx"));
  ASSERT_TRUE(graph.hasValue());
  const DeviceSpec spec = *devicePreset(kDefaultDevicePreset);
  RooflineCostModel roofline;
  auto annotated = annotate(*graph, spec, {plugin->get(), &roofline});
  ASSERT_TRUE(annotated.hasValue()) << annotated.status().message();
  EXPECT_TRUE((*plugin)->error().empty());
  int convs = 0;
  for (int v = 0; v < static_cast<int>(graph->nodes.size()); ++v) {
    const OpNode& node = annotated->problem.graph[v];
    const TimeEstimate roof = roofline.estimate(*graph, v, spec);
    ASSERT_TRUE(roof.accelerator && roof.cpu);
    if (graph->nodes[v].op_type == "Conv") {
      ++convs;
      const auto& input = graph->tensors[graph->nodes[v].inputs[0]];
      // The plugin's estimates, and the runtime's dispatch on top (op_overhead; cost_model/README.md).
      EXPECT_DOUBLE_EQ(node.p_acc,
                       1e-6 * static_cast<double>((*input.shape)[1]) + spec.accelerators.op_overhead)
          << graph->nodes[v].name;
      EXPECT_DOUBLE_EQ(node.p_cpu, 1e-4 + spec.cpus.op_overhead);
    } else {
      EXPECT_DOUBLE_EQ(node.p_acc, *roof.accelerator + spec.accelerators.op_overhead) << graph->nodes[v].name;
      EXPECT_DOUBLE_EQ(node.p_cpu, *roof.cpu + spec.cpus.op_overhead);
    }
  }
  EXPECT_EQ(convs, 53);
}

TEST(PluginCostModel, FailuresAreReportedWithTheNode) {
  auto plugin = PluginCostModel::load(ONNX_PLACER_TEST_PLUGIN);
  ASSERT_TRUE(plugin.hasValue());
  auto graph = loadOnnx(dataPath("models/resnet50_light.onnx"));
  ASSERT_TRUE(graph.hasValue());
  ::setenv("ONNX_PLACER_TEST_PLUGIN_FAIL", "1", 1);
  RooflineCostModel roofline;
  auto annotated = annotate(*graph, *devicePreset(kDefaultDevicePreset), {plugin->get(), &roofline});
  ::unsetenv("ONNX_PLACER_TEST_PLUGIN_FAIL");
  EXPECT_NE((*plugin)->error().find("Flatten"), std::string::npos) << (*plugin)->error();
  EXPECT_NE((*plugin)->error().find("-3"), std::string::npos) << (*plugin)->error();
}

TEST(PluginCostModel, LoadErrorsNameTheFile) {
  auto missing = PluginCostModel::load("/nonexistent/libnothing.so");
  ASSERT_FALSE(missing.hasValue());
  EXPECT_NE(missing.status().message().find("libnothing.so"), std::string::npos);
  // A real shared library that is not a plugin.
  auto not_plugin = PluginCostModel::load(ONNX_PLACER_NOT_A_PLUGIN);
  ASSERT_FALSE(not_plugin.hasValue());
  EXPECT_NE(not_plugin.status().message().find("not an onnx-placer cost plugin"), std::string::npos)
      << not_plugin.status().message();
}

}  // namespace plugin_cost_model_test
}  // namespace placer::testing
