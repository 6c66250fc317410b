// The phase a decoder with a KV cache is placed for (onnx_io/decoder.h): its prompt, or the
// generation of one token after a past.
#pragma once

#include <optional>
#include <string>

namespace placer {

enum class DecoderPhase { Prompt, Token };

inline const char* toString(DecoderPhase phase) {
  return phase == DecoderPhase::Prompt ? "prompt" : "token";
}

inline std::optional<DecoderPhase> parseDecoderPhase(const std::string& text) {
  if (text == "prompt") return DecoderPhase::Prompt;
  if (text == "token") return DecoderPhase::Token;
  return std::nullopt;
}

}  // namespace placer
