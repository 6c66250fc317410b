// A cost plugin for plugin_cost_model_test, built as a shared library: Conv nodes cost 1 µs per input
// channel on an accelerator and 100 µs on a CPU (so the test can see shapes arrive), Relu nodes get no
// answer (the next model answers), and with ONNX_PLACER_TEST_PLUGIN_FAIL set, Flatten fails.
#include <cstdlib>
#include <cstring>

#include "cost_model/cost_plugin_abi.h"

extern "C" int onnx_placer_cost_plugin_abi(void) {
  return ONNX_PLACER_COST_PLUGIN_ABI;
}

extern "C" int onnx_placer_estimate(const onnx_placer_op* op, const onnx_placer_devices* devices,
                                    double* accelerator_seconds, double* cpu_seconds) {
  if (std::strcmp(op->op_type, "Flatten") == 0 && std::getenv("ONNX_PLACER_TEST_PLUGIN_FAIL")) return -3;
  if (std::strcmp(op->op_type, "Conv") != 0) return 1;
  if (op->num_inputs < 1 || op->inputs[0].rank < 2 || devices->accelerators < 1) return -1;
  *accelerator_seconds = 1e-6 * static_cast<double>(op->inputs[0].dims[1]);
  *cpu_seconds = 1e-4;
  return 0;
}
