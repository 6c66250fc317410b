/* What a cost model in a plugin sees of an operator and of the devices: plain C structs, shared by
 * the cost plugins of `--cost-plugin` (cost_model/cost_plugin_abi.h) and the cost models a pass
 * plugin registers (onnx_placer/plugin.h).
 *
 * All pointers are valid only during the call that receives them. Shapes use -1 for unknown
 * dimensions; a tensor of unknown rank has rank -1. */
#ifndef ONNX_PLACER_COST_PLUGIN_H
#define ONNX_PLACER_COST_PLUGIN_H

#include <stdint.h>

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

#ifdef __cplusplus
}
#endif

#endif
