#include "onnx_io/stage_directory.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <system_error>
#include <utility>

namespace placer {

namespace fs = std::filesystem;

namespace {

// The data files an earlier run's pipeline.json in `dir` lists (none when it has none or is not ours).
std::set<std::string> listedDataFiles(const fs::path& dir) {
  std::set<std::string> names;
  std::ifstream in(dir / "pipeline.json");
  if (!in) return names;
  const nlohmann::json manifest = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!manifest.is_object() || !manifest.contains("stages") || !manifest["stages"].is_array()) return names;
  for (const auto& stage : manifest["stages"]) {
    if (!stage.is_object() || !stage.contains("data_files") || !stage["data_files"].is_array()) continue;
    for (const auto& name : stage["data_files"]) {
      if (name.is_string()) names.insert(fs::path(name.get<std::string>()).lexically_normal().generic_string());
    }
  }
  return names;
}

}  // namespace

Status replaceableAsStageDirectory(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status::ok();
  if (!fs::is_directory(dir, ec)) return ioError(dir.string() + " exists and is not a directory");
  static const std::regex kStageFile(R"(stage[0-9]+\.onnx(\.data)?|pipeline\.json|genai_config\.json)");
  const std::set<std::string> listed = listedDataFiles(dir);
  // Directories that lead to a listed data file ("weights" for "weights/w.bin").
  std::set<std::string> leading;
  for (const std::string& name : listed) {
    for (fs::path p = fs::path(name).parent_path(); !p.empty(); p = p.parent_path()) leading.insert(p.generic_string());
  }
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().lexically_relative(dir).generic_string();
    const bool top = it.depth() == 0;
    bool ours = false;
    if (it->is_symlink(ec)) {
      ours = false;
    } else if (it->is_directory(ec)) {
      ours = leading.count(name) > 0;
    } else if (it->is_regular_file(ec)) {
      ours = listed.count(name) > 0 || (top && std::regex_match(name, kStageFile));
    }
    if (!ours) {
      return ioError("refusing to replace " + dir.string() + ": it holds '" + name +
                     "', which is not part of a stage directory");
    }
  }
  if (ec) return ioError("cannot read " + dir.string() + ": " + ec.message());
  return Status::ok();
}

Status stageStageDirectory(OutputTransaction& transaction, const fs::path& dir, const StageSet& stages,
                           bool replace_any, const std::vector<std::pair<std::string, std::string_view>>& extra) {
  std::vector<std::pair<std::string, std::string_view>> files;
  files.reserve(stages.models.size() + 1 + extra.size());
  // Stages that share a linked data file share its one link.
  std::map<std::string, const DataFile*> data;
  for (const StageModel& stage : stages.models) {
    files.emplace_back(stage.file_name, stage.bytes);
    for (const DataFile& file : stage.data) {
      auto [it, fresh] = data.emplace(file.name, &file);
      if (!fresh && (file.link_to.empty() || it->second->link_to != file.link_to)) {
        return internalError("two stages write the data file " + file.name + " differently");
      }
    }
  }
  files.emplace_back("pipeline.json", stages.manifest_json);
  files.insert(files.end(), extra.begin(), extra.end());
  std::vector<DataFile> unique;
  for (const auto& [name, file] : data) unique.push_back(*file);
  return transaction.stageDirectory(dir, files, unique, replace_any, replaceableAsStageDirectory);
}

Status writeStageDirectory(const fs::path& dir, const StageSet& stages, const std::vector<fs::path>& inputs,
                           bool replace_any) {
  OutputTransaction transaction(inputs);
  if (Status s = stageStageDirectory(transaction, dir, stages, replace_any); !s) return s;
  return transaction.commit();
}

}  // namespace placer
