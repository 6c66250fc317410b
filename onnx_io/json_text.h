// Locating JSON parse errors for messages: every reader of our JSON formats (workloads, device
// specifications, cost profiles) reports malformed input as "file:line:column: malformed JSON: ...".
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"

namespace placer {

// "source:line:column" (1-based) for a 0-based byte offset into text.
std::string textPosition(const std::string& text, std::size_t byte, const std::string& source);

// nlohmann's parse-error message without its "[json.exception...] " tag and its own
// "parse error at line L, column C: " prefix, which textPosition() already says.
std::string jsonErrorDetail(const std::string& what);

// JSON text for output: a string that is not valid UTF-8 (a name from a model) gets U+FFFD in place
// of its bad bytes instead of failing the whole document.
template <typename Json>
std::string jsonText(const Json& json, int indent) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Where the number an nlohmann out_of_range message quotes ("number overflow parsing '1e400'") first
// appears in `text`, as textPosition(); just `source` when it cannot be found.
std::string numberErrorPosition(const std::string& text, const std::string& what, const std::string& source);

// Keys joined by dots ("links.between"), the path parseJsonRejectingDuplicates names a duplicate by
// in the formats whose keys have no dots.
std::string dottedPath(const std::vector<std::string>& keys);

// Parses JSON text for a strict reader: malformed text is reported at file:line:column, and a key
// given twice in one object outside any array is an error (nlohmann would silently keep the last,
// hiding one of two entries), named by format_path(keys from the root to the duplicate).
template <typename Json>
Expected<Json> parseJsonRejectingDuplicates(
    const std::string& text, const std::string& source,
    const std::function<std::string(const std::vector<std::string>&)>& format_path) {
  struct Frame {
    bool is_object = false;
    std::set<std::string> keys;
  };
  std::vector<Frame> frames;
  std::vector<std::string> path;  // keys of the open containers below the root
  std::string current_key;
  int arrays_open = 0;
  std::optional<std::string> duplicate;
  auto callback = [&](int /*depth*/, typename Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start: {
        const bool object = event == Json::parse_event_t::object_start;
        if (!frames.empty() && frames.back().is_object) path.push_back(current_key);
        frames.push_back({object, {}});
        if (!object) ++arrays_open;
        break;
      }
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!frames.back().is_object) --arrays_open;
        frames.pop_back();
        if (!frames.empty() && frames.back().is_object && !path.empty()) path.pop_back();
        break;
      case Json::parse_event_t::key:
        current_key = parsed.template get<std::string>();
        if (arrays_open == 0 && !frames.back().keys.insert(current_key).second && !duplicate) {
          std::vector<std::string> full = path;
          full.push_back(current_key);
          duplicate = format_path(full);
        }
        break;
      default:
        break;
    }
    return true;
  };
  Json root;
  try {
    root = Json::parse(text, callback);
  } catch (const typename Json::parse_error& e) {
    return invalidInput(textPosition(text, e.byte == 0 ? 0 : e.byte - 1, source) +
                        ": malformed JSON: " + jsonErrorDetail(e.what()));
  } catch (const typename Json::exception& e) {  // e.g. a number too large for a double
    return invalidInput(numberErrorPosition(text, e.what(), source) +
                        ": malformed JSON: " + jsonErrorDetail(e.what()));
  }
  if (duplicate) return invalidInput(source + ": " + *duplicate + ": duplicate field");
  return root;
}

}  // namespace placer
