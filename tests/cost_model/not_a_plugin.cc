// A shared library without the cost-plugin entry points, for plugin_cost_model_test.
extern "C" int onnx_placer_something_else(void) {
  return 0;
}
