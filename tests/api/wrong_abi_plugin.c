/* A pass plugin built for another ABI version (ONNX_PLACER_ABI_VERSION + 1): onnx-placer must refuse
 * it, naming both versions, without calling its registration function. */
#include <onnx_placer/plugin.h>
#include <stdlib.h>

static int registerPlugin(const onnx_placer_plugin_host* host, onnx_placer_plugin_registry* registry) {
  (void)host, (void)registry;
  abort(); /* never called */
}

ONNX_PLACER_EXPORT onnx_placer_plugin onnx_placer_plugin_info(void) {
  onnx_placer_plugin plugin = {ONNX_PLACER_ABI_VERSION + 1, "wrong-abi", "0.0", registerPlugin};
  return plugin;
}
