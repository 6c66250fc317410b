/* The C ABI of an onnx-placer cost plugin: a shared library loaded with `--cost-plugin lib.so` that
 * gives per-operator times, in front of the profile and roofline models.
 *
 * A plugin exports two functions:
 *
 *   int onnx_placer_cost_plugin_abi(void);
 *       returns ONNX_PLACER_COST_PLUGIN_ABI (the version it was built against);
 *
 *   int onnx_placer_estimate(const onnx_placer_op* op, const onnx_placer_devices* devices,
 *                            double* accelerator_seconds, double* cpu_seconds);
 *       returns 0 and fills both times (seconds per sample; +inf = that device cannot run it),
 *       1 when it has no estimate for this operator (the next model answers), or a negative value
 *       on error (placement stops and the error is reported).
 *
 * All pointers are valid only during the call. Shapes use -1 for unknown dimensions; a tensor with an
 * unknown rank has rank -1. Plain C, so plugins can be written in any language with a C FFI. A pass
 * plugin (onnx_placer/plugin.h) can register cost models of the same shape, with the same structs.
 */
#ifndef ONNX_PLACER_COST_PLUGIN_ABI_H
#define ONNX_PLACER_COST_PLUGIN_ABI_H

#include <stdint.h>

#include "onnx_placer/cost_plugin.h" /* onnx_placer_op, onnx_placer_tensor, onnx_placer_devices */

#define ONNX_PLACER_COST_PLUGIN_ABI 1

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*onnx_placer_cost_plugin_abi_fn)(void);
typedef int (*onnx_placer_estimate_fn)(const onnx_placer_op*, const onnx_placer_devices*, double*, double*);

#ifdef __cplusplus
}
#endif

#endif /* ONNX_PLACER_COST_PLUGIN_ABI_H */
