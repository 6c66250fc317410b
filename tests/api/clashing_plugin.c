/* A pass plugin that registers a pass under a built-in pass's name ("scc"): refused, naming it. */
#include <onnx_placer/plugin.h>

static int run(void* user_data, onnx_placer_pass_graph* graph, const char* argument) {
  (void)user_data, (void)graph, (void)argument;
  return 0;
}

static int registerPlugin(const onnx_placer_plugin_host* host, onnx_placer_plugin_registry* registry) {
  return host->register_pass(registry, "scc", "clashes with the built-in scc", run, NULL);
}

ONNX_PLACER_EXPORT onnx_placer_plugin onnx_placer_plugin_info(void) {
  onnx_placer_plugin plugin = {ONNX_PLACER_ABI_VERSION, "clashing", "0.0", registerPlugin};
  return plugin;
}
