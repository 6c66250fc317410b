// How the models we write reach a model's external data (`--stage-data`): by referring to the
// original data files (hard links beside each written model: no bytes copied, no space taken), or
// with data files of their own holding only the weights each model uses (onnx_io/external_data.h).
#pragma once

#include <optional>
#include <string>

namespace placer {

enum class StageData { Reference, Copy };

inline const char* toString(StageData mode) {
  return mode == StageData::Reference ? "reference" : "copy";
}

inline std::optional<StageData> parseStageData(const std::string& text) {
  if (text == "reference") return StageData::Reference;
  if (text == "copy") return StageData::Copy;
  return std::nullopt;
}

}  // namespace placer
