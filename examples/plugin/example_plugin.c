/* An onnx-placer pass plugin (onnx_placer/plugin.h), in C: a pass and a cost model.
 *
 *   scale-cpu=F   multiplies every node's CPU time by F (say, a slower host than the device set's)
 *   constant      a cost model giving every operator 1 ms on an accelerator and 10 ms on a CPU core
 *
 * Build: cc -shared -fPIC example_plugin.c -o libexample_plugin.so $(pkg-config --cflags onnx_placer)
 * Use:   onnx-placer place model.onnx --pass-plugin ./libexample_plugin.so \
 *            --pipeline subdivide,scale-cpu=4,colocate,orphans,scc,fold-leaves,partition,expand */
#include <onnx_placer/plugin.h>
#include <stdio.h>
#include <stdlib.h>

static const onnx_placer_plugin_host* host;

static int scaleCpu(void* user_data, onnx_placer_pass_graph* graph, const char* argument) {
  (void)user_data;
  char* end = NULL;
  double factor = argument[0] ? strtod(argument, &end) : 2.0;
  if ((argument[0] && *end) || !(factor > 0)) {
    host->fail(graph, "scale-cpu takes a positive factor, as in scale-cpu=4");
    return 1;
  }
  size_t n = host->node_count(graph);
  for (size_t v = 0; v < n; ++v)
    host->set_node_seconds(graph, v, ONNX_PLACER_CPU, factor * host->node_seconds(graph, v, ONNX_PLACER_CPU));
  char note[128];
  snprintf(note, sizeof note, "CPU times of %zu node(s) scaled by %g", n, factor);
  host->note(graph, note);
  return 0;
}

static int constantCost(void* user_data, const onnx_placer_op* op, const onnx_placer_devices* devices,
                        double* accelerator_seconds, double* cpu_seconds) {
  (void)user_data, (void)op, (void)devices;
  *accelerator_seconds = 1e-3;
  *cpu_seconds = 1e-2;
  return 0;
}

static int registerPlugin(const onnx_placer_plugin_host* h, onnx_placer_plugin_registry* registry) {
  host = h;
  if (h->register_pass(registry, "scale-cpu", "multiply CPU times by the argument (default 2)", scaleCpu, NULL))
    return 1;
  return h->register_cost_model(registry, "constant", constantCost, NULL);
}

ONNX_PLACER_EXPORT onnx_placer_plugin onnx_placer_plugin_info(void) {
  onnx_placer_plugin plugin = {ONNX_PLACER_ABI_VERSION, "example", "1.0", registerPlugin};
  return plugin;
}
