/* A pass plugin whose pass scales every node's accelerator time: scale-accelerator=F. On a machine of
 * several accelerator kinds the host scales every kind's time (onnx_placer/plugin.h). */
#include <onnx_placer/plugin.h>
#include <stdlib.h>

static const onnx_placer_plugin_host* host;

static int scale(void* user_data, onnx_placer_pass_graph* graph, const char* argument) {
  (void)user_data;
  char* end = NULL;
  const double factor = strtod(argument, &end);
  if (!argument[0] || *end || !(factor > 0)) {
    host->fail(graph, "scale-accelerator takes a positive factor");
    return 1;
  }
  for (size_t v = 0; v < host->node_count(graph); ++v) {
    host->set_node_seconds(graph, v, ONNX_PLACER_ACCELERATOR,
                           factor * host->node_seconds(graph, v, ONNX_PLACER_ACCELERATOR));
  }
  return 0;
}

static int registerPlugin(const onnx_placer_plugin_host* h, onnx_placer_plugin_registry* registry) {
  host = h;
  return host->register_pass(registry, "scale-accelerator", "scales every node's accelerator time", scale, NULL);
}

ONNX_PLACER_EXPORT onnx_placer_plugin onnx_placer_plugin_info(void) {
  onnx_placer_plugin plugin = {ONNX_PLACER_ABI_VERSION, "scale-accelerator", "0.0", registerPlugin};
  return plugin;
}
