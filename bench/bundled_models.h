// The benchmarks' default inputs: every bundled model (tests/data/models), in name order.
#pragma once

#include <algorithm>
#include <filesystem>
#include <vector>

namespace placer::bench {

// The .onnx files of `dir`, sorted.
inline std::vector<std::filesystem::path> bundledModels(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> models;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".onnx") models.push_back(entry.path());
  }
  std::sort(models.begin(), models.end());
  return models;
}

// The models a benchmark's command line names (argv[1..]), or with none every bundled one in `dir`.
inline std::vector<std::filesystem::path> modelsFromArguments(int argc, char** argv,
                                                              const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> models(argv + 1, argv + argc);
  return models.empty() ? bundledModels(dir) : models;
}

}  // namespace placer::bench
