// Places an ONNX model on two accelerators through onnx-placer's C++ API and writes its stages.
// Usage: place_cpp MODEL.onnx OUT_DIR
#include <onnx_placer/placer.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: place_cpp MODEL.onnx OUT_DIR\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string model = bytes.str();
  onnx_placer::Options options;
  options.accelerators = 2;
  auto result = onnx_placer::place(model.data(), model.size(), options);
  if (!result) {
    std::cerr << "place_cpp: " << result.status().message() << "\n";
    return static_cast<int>(result.status().code());
  }
  std::filesystem::create_directories(argv[2]);
  for (std::size_t i = 0; i < result->stageCount(); ++i) {
    auto stage = result->stageModel(i);
    if (!stage) return static_cast<int>(stage.status().code());
    std::ofstream(std::filesystem::path(argv[2]) / ("stage" + std::to_string(i) + ".onnx"), std::ios::binary)
        << *stage;
  }
  std::cout << result->stageCount() << " stage(s), " << result->certificate().summary << "\n";
  return 0;
}
