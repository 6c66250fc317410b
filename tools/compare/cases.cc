#include "tools/compare/cases.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace placer::compare {

namespace fs = std::filesystem;

namespace {

bool hasExtension(const fs::path& path, std::initializer_list<const char*> extensions) {
  const std::string ext = path.extension().string();
  return std::any_of(extensions.begin(), extensions.end(), [&](const char* e) { return ext == e; });
}

Expected<nlohmann::json> readJsonFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ioError(path.string() + ": cannot be read");
  nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return invalidInput(path.string() + ": not JSON");
  return json;
}

bool looksLikeWorkload(const nlohmann::json& json) {
  return json.is_object() && json.contains("nodes") && json["nodes"].is_array() && json.contains("edges") &&
         json["edges"].is_array();
}

// The ids of a split's nodes ({"fpgas": [{"nodes": [...]}], "cpus": [...]}), or nothing when it is not
// one.
std::optional<std::set<long long>> splitNodes(const nlohmann::json& split) {
  if (!split.is_object() || !split.contains("fpgas")) return std::nullopt;
  std::set<long long> ids;
  for (const char* key : {"fpgas", "cpus"}) {
    if (!split.contains(key)) continue;
    if (!split[key].is_array()) return std::nullopt;
    for (const auto& device : split[key]) {
      if (!device.is_object() || !device.contains("nodes") || !device["nodes"].is_array())
        return std::nullopt;
      for (const auto& id : device["nodes"]) {
        if (!id.is_number_integer()) return std::nullopt;
        ids.insert(id.get<long long>());
      }
    }
  }
  return ids;
}

// The expert split of a workload: human-experts/STEM_expert.json in the workload's folder or one of
// the two above it (the NeurIPS layout: throughput-inputs/LayerGraphs/X.json beside human-experts/).
// A split applies only when it names nodes of this workload and every forward node of it: the layer
// and operator graphs of one network share a stem, not their nodes.
fs::path expertSplitOf(const fs::path& workload, const nlohmann::json& json) {
  const std::string file = workload.stem().string() + "_expert.json";
  fs::path dir = workload.parent_path();
  for (int up = 0; up < 3 && !dir.empty(); ++up, dir = dir.parent_path()) {
    const fs::path candidate = dir / "human-experts" / file;
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) continue;
    auto split = readJsonFile(candidate);
    if (!split) return {};
    auto ids = splitNodes(*split);
    if (!ids) return {};
    std::set<long long> all, forward;
    for (const auto& node : json["nodes"]) {
      if (!node.is_object() || !node.contains("id") || !node["id"].is_number_integer()) return {};
      const long long id = node["id"].get<long long>();
      all.insert(id);
      if (!node.value("isBackwardNode", 0)) forward.insert(id);
    }
    const bool inside = std::includes(all.begin(), all.end(), ids->begin(), ids->end());
    const bool covers = std::includes(ids->begin(), ids->end(), forward.begin(), forward.end());
    return inside && covers ? candidate : fs::path{};
  }
  return {};
}

// The input at `path` named `name`; nothing for a file that is neither a model nor a workload when
// `quiet` (found in a directory), an error otherwise.
Expected<std::optional<Input>> inputAt(const fs::path& path, std::string name, bool quiet) {
  Input input;
  input.name = std::move(name);
  input.path = path;
  if (hasExtension(path, {".onnx"})) {
    input.kind = InputKind::Model;
    return std::optional<Input>(std::move(input));
  }
  if (hasExtension(path, {".json"})) {
    auto json = readJsonFile(path);
    if (!json) {
      if (quiet) return std::optional<Input>();
      return json.status();
    }
    if (!looksLikeWorkload(*json)) {
      if (quiet) return std::optional<Input>();
      return invalidInput(path.string() + ": not a workload (no \"nodes\" and \"edges\" arrays)");
    }
    input.kind = InputKind::Workload;
    input.expert = expertSplitOf(path, *json);
    return std::optional<Input>(std::move(input));
  }
  if (quiet) return std::optional<Input>();
  return invalidInput(path.string() +
                      ": neither a model (.onnx), a workload (.json) nor a list (.txt, .list)");
}

Status addDirectory(const fs::path& dir, std::vector<Input>& out) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory() && it->path().filename() == "human-experts") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && hasExtension(it->path(), {".onnx", ".json"})) files.push_back(it->path());
  }
  if (ec) return invalidInput(dir.string() + ": cannot be listed: " + ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    auto input = inputAt(file, file.lexically_relative(dir).generic_string(), /*quiet=*/true);
    if (!input) return input.status();
    if (*input) out.push_back(std::move(**input));
  }
  return Status::ok();
}

Status addArgument(const std::string& argument, std::vector<Input>& out, int depth);

Status addList(const fs::path& list, std::vector<Input>& out, int depth) {
  if (depth > 8)
    return invalidInput(list.string() + ": lists nest more than 8 deep (does a list name itself?)");
  std::ifstream in(list);
  if (!in) return invalidInput(list.string() + ": cannot be read");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    const fs::path entry = fs::path(line).is_absolute() ? fs::path(line) : list.parent_path() / line;
    std::error_code ec;
    if (!fs::exists(entry, ec)) {
      return invalidInput(list.string() + ":" + std::to_string(number) + ": " + entry.string() +
                          " does not exist");
    }
    if (fs::is_directory(entry, ec)) {
      if (Status s = addDirectory(entry, out); !s) return s;
      continue;
    }
    if (hasExtension(entry, {".txt", ".list"})) {
      if (Status s = addList(entry, out, depth + 1); !s) return s;
      continue;
    }
    auto input = inputAt(entry, fs::path(line).lexically_normal().generic_string(), false);
    if (!input) return input.status().withContext(list.string() + ":" + std::to_string(number));
    out.push_back(std::move(**input));
  }
  return Status::ok();
}

Status addArgument(const std::string& argument, std::vector<Input>& out, int depth) {
  const fs::path path(argument);
  std::error_code ec;
  if (!fs::exists(path, ec)) return invalidInput(argument + ": no such file or directory");
  if (fs::is_directory(path, ec)) return addDirectory(path, out);
  if (hasExtension(path, {".txt", ".list"})) return addList(path, out, depth);
  auto input = inputAt(path, path.lexically_normal().generic_string(), false);
  if (!input) return input.status();
  out.push_back(std::move(**input));
  return Status::ok();
}

}  // namespace

Expected<std::vector<Input>> findInputs(const std::vector<std::string>& arguments) {
  std::vector<Input> inputs;
  for (const std::string& argument : arguments) {
    if (Status s = addArgument(argument, inputs, 0); !s) return s;
  }
  std::stable_sort(inputs.begin(), inputs.end(),
                   [](const Input& a, const Input& b) { return a.name < b.name; });
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].name == inputs[i - 1].name) {
      if (fs::weakly_canonical(inputs[i].path) == fs::weakly_canonical(inputs[i - 1].path)) {
        inputs.erase(inputs.begin() + static_cast<std::ptrdiff_t>(i--));  // named twice: once is enough
        continue;
      }
      return invalidInput("two inputs are both named " + inputs[i].name + " (" + inputs[i - 1].path.string() +
                          " and " + inputs[i].path.string() +
                          "): cases are matched by name, so compare them apart");
    }
  }
  if (inputs.empty()) return invalidInput("no model (.onnx) or workload (.json) found in the inputs given");
  return inputs;
}

std::vector<Case> makeCases(const std::vector<Input>& inputs, const std::vector<std::string>& algorithms,
                            bool experts) {
  std::vector<Case> cases;
  for (const Input& input : inputs) {
    for (const std::string& algorithm : algorithms)
      cases.push_back({input, algorithm, 0});
    if (experts && !input.expert.empty()) cases.push_back({input, "expert", 0});
  }
  for (std::size_t i = 0; i < cases.size(); ++i)
    cases[i].index = static_cast<int>(i);
  return cases;
}

Expected<std::pair<int, int>> parseShard(const std::string& text) {
  const auto slash = text.find('/');
  int index = 0, count = 0;
  std::istringstream a(text.substr(0, slash)), b(slash == std::string::npos ? "" : text.substr(slash + 1));
  if (slash == std::string::npos || !(a >> index) || !a.eof() || !(b >> count) || !b.eof() || count < 1 ||
      index < 1 || index > count) {
    return invalidInput("--shard must be I/N with 1 <= I <= N (got '" + text + "')");
  }
  return std::make_pair(index, count);
}

std::vector<Case> shardCases(const std::vector<Case>& cases, int index, int count) {
  std::vector<Case> out;
  for (std::size_t i = static_cast<std::size_t>(index - 1); i < cases.size();
       i += static_cast<std::size_t>(count))
    out.push_back(cases[i]);
  return out;
}

}  // namespace placer::compare
