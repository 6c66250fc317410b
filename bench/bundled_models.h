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

}  // namespace placer::bench
