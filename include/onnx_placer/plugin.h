/* onnx-placer's plugin ABI: a shared library that adds passes and cost models, loaded with
 * `--pass-plugin LIB.so` (or the "pass_plugins" option of the C, C++ and Python APIs), as LLVM loads
 * a pass plugin through llvmGetPassPluginInfo.
 *
 * The library exports one C function, ONNX_PLACER_PLUGIN_ENTRY:
 *
 *   onnx_placer_plugin onnx_placer_plugin_info(void);
 *
 * returning the ABI version it was built against (ONNX_PLACER_ABI_VERSION: another version is
 * refused, both versions named), its name and version, and a registration function. onnx-placer calls
 * the registration function once, with a table of host functions through which it registers passes
 * (by the name a --pipeline uses) and cost models (asked before profiles and the roofline model).
 * The plugin links nothing of onnx-placer: every call into the host goes through that table, so the
 * same plugin works in the command-line tool, the shared library and the Python module.
 *
 * A pass sees the placement problem as the pipeline has it at that point: nodes (an operator, or a
 * group of operators an earlier pass contracted) with their time on an accelerator and on a CPU core
 * and their memory, and the edges between them. It says what it did in a one-line note and does not
 * change the set of nodes (its vertex mapping is the identity). It may change times and memory when
 * it runs before every pass that changes the graph (first in the pipeline): the costs it sets are then
 * the run's costs, which the placement is evaluated and reported on.
 * A pass or cost model that fails returns non-zero after calling host->fail with the reason; the run
 * then stops with that message. Plain C, so plugins can be written in any language with a C FFI. */
#ifndef ONNX_PLACER_PLUGIN_H
#define ONNX_PLACER_PLUGIN_H

#include <stddef.h>

#include "onnx_placer/cost_plugin.h"
#include "onnx_placer/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ONNX_PLACER_PLUGIN_ENTRY onnx_placer_plugin_info

typedef struct onnx_placer_plugin_registry onnx_placer_plugin_registry; /* where registrations go */
typedef struct onnx_placer_pass_graph onnx_placer_pass_graph;           /* the problem a pass sees */

/* The devices a time is for. */
enum { ONNX_PLACER_ACCELERATOR = 0, ONNX_PLACER_CPU = 1 };

/* A pass: `argument` is the text after '=' in the pipeline ("name=argument"; "" without). 0 on
 * success. */
typedef int (*onnx_placer_pass_fn)(void* user_data, onnx_placer_pass_graph* graph, const char* argument);

/* A cost model: 0 with both times filled (seconds per sample; +inf: that device cannot run it), 1
 * when it has no estimate for the operator (the next model answers), anything else on error. */
typedef int (*onnx_placer_cost_fn)(void* user_data, const onnx_placer_op* op, const onnx_placer_devices* devices,
                                   double* accelerator_seconds, double* cpu_seconds);

/* What onnx-placer offers a plugin. `abi_version` is the host's; the functions stay valid as long as
 * the plugin is loaded. */
typedef struct onnx_placer_plugin_host {
  unsigned abi_version;
  /* Registration, from the registration function only. 0 on success; non-zero (a name registered
   * twice, an empty name) after host->fail-like reporting by the host itself. */
  int (*register_pass)(onnx_placer_plugin_registry* registry, const char* name, const char* help,
                       onnx_placer_pass_fn run, void* user_data);
  int (*register_cost_model)(onnx_placer_plugin_registry* registry, const char* name, onnx_placer_cost_fn estimate,
                             void* user_data);
  /* The problem, from a pass only. Node indices run from 0 to node_count - 1. */
  size_t (*node_count)(const onnx_placer_pass_graph* graph);
  const char* (*node_name)(const onnx_placer_pass_graph* graph, size_t node);
  const char* (*node_op_type)(const onnx_placer_pass_graph* graph, size_t node);
  /* On a machine of several accelerator kinds, ONNX_PLACER_ACCELERATOR's time is the first kind's;
   * setting it scales the other kinds' times by the same factor. */
  double (*node_seconds)(const onnx_placer_pass_graph* graph, size_t node, int device);
  void (*set_node_seconds)(onnx_placer_pass_graph* graph, size_t node, int device, double seconds);
  double (*node_memory)(const onnx_placer_pass_graph* graph, size_t node); /* bytes on an accelerator */
  void (*set_node_memory)(onnx_placer_pass_graph* graph, size_t node, double bytes);
  size_t (*edge_count)(const onnx_placer_pass_graph* graph);
  void (*edge)(const onnx_placer_pass_graph* graph, size_t index, size_t* from, size_t* to);
  /* The pass's one-line note for the log (the last one counts). */
  void (*note)(onnx_placer_pass_graph* graph, const char* text);
  /* Why a pass (graph) or a cost model (graph NULL) fails, before it returns non-zero. */
  void (*fail)(onnx_placer_pass_graph* graph, const char* message);
} onnx_placer_plugin_host;

typedef struct onnx_placer_plugin {
  unsigned abi_version; /* ONNX_PLACER_ABI_VERSION */
  const char* name;
  const char* version;
  /* Registers the plugin's passes and cost models; 0 on success. */
  int (*register_plugin)(const onnx_placer_plugin_host* host, onnx_placer_plugin_registry* registry);
} onnx_placer_plugin;

typedef onnx_placer_plugin (*onnx_placer_plugin_info_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
