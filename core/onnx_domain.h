// ONNX operator domains: the default one is spelled "" or "ai.onnx".
#pragma once

#include <string_view>

namespace placer {

inline bool isDefaultDomain(std::string_view domain) { return domain.empty() || domain == "ai.onnx"; }

}  // namespace placer
