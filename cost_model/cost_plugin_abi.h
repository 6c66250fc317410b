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
 * unknown rank has rank -1. Plain C, so plugins can be written in any language with a C FFI.
 */
#ifndef ONNX_PLACER_COST_PLUGIN_ABI_H
#define ONNX_PLACER_COST_PLUGIN_ABI_H

#include <stdint.h>

#define ONNX_PLACER_COST_PLUGIN_ABI 1

#ifdef __cplusplus
extern "C" {
#endif

typedef struct onnx_placer_tensor {
  const char* name;
  int32_t element_type; /* ONNX TensorProto.DataType */
  int32_t rank;         /* -1 when unknown */
  const int64_t* dims;  /* rank entries */
  int32_t is_weight;    /* an initializer or constant */
} onnx_placer_tensor;

typedef struct onnx_placer_op {
  const char* name;
  const char* op_type;
  const char* domain;
  int32_t num_inputs;
  const onnx_placer_tensor* inputs; /* an omitted optional input has name "" and rank -1 */
  int32_t num_outputs;
  const onnx_placer_tensor* outputs;
} onnx_placer_op;

typedef struct onnx_placer_devices {
  int32_t accelerators;
  double accelerator_memory;           /* bytes */
  double accelerator_peak_flops;       /* FLOP/s */
  double accelerator_memory_bandwidth; /* bytes/s */
  int32_t cpus;
  double cpu_peak_flops;       /* FLOP/s per core */
  double cpu_memory_bandwidth; /* bytes/s per core */
  double link_bandwidth;       /* bytes/s, accelerator <-> host */
} onnx_placer_devices;

typedef int (*onnx_placer_cost_plugin_abi_fn)(void);
typedef int (*onnx_placer_estimate_fn)(const onnx_placer_op*, const onnx_placer_devices*, double*, double*);

#ifdef __cplusplus
}
#endif

#endif /* ONNX_PLACER_COST_PLUGIN_ABI_H */
