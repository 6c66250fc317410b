// Locating JSON parse errors for messages: every reader of our JSON formats (workloads, device
// specifications, cost profiles) reports malformed input as "file:line:column: malformed JSON: ...".
#pragma once

#include <cstddef>
#include <string>

namespace placer {

// "source:line:column" (1-based) for a 0-based byte offset into text.
std::string textPosition(const std::string& text, std::size_t byte, const std::string& source);

// nlohmann's parse-error message without its "[json.exception...] " tag and its own
// "parse error at line L, column C: " prefix, which textPosition() already says.
std::string jsonErrorDetail(const std::string& what);

}  // namespace placer
