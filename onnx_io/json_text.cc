#include "onnx_io/json_text.h"

namespace placer {

std::string textPosition(const std::string& text, std::size_t byte, const std::string& source) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return source + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string numberErrorPosition(const std::string& text, const std::string& what, const std::string& source) {
  const std::size_t open = what.find('\''),
                    close = open == std::string::npos ? open : what.find('\'', open + 1);
  if (close == std::string::npos || close == open + 1) return source;
  const std::size_t at = text.find(what.substr(open + 1, close - open - 1));
  return at == std::string::npos ? source : textPosition(text, at, source);
}

std::string jsonErrorDetail(const std::string& what) {
  std::string detail = what;
  if (auto tag = detail.find("] "); detail.starts_with("[json.exception") && tag != std::string::npos) {
    detail = detail.substr(tag + 2);
  }
  if (detail.starts_with("parse error")) {
    if (auto colon = detail.find(": "); colon != std::string::npos) detail = detail.substr(colon + 2);
  }
  return detail;
}

std::string dottedPath(const std::vector<std::string>& keys) {
  std::string dotted;
  for (const std::string& key : keys) dotted += (dotted.empty() ? "" : ".") + key;
  return dotted;
}

}  // namespace placer
