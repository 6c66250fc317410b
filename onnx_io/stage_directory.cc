#include "onnx_io/stage_directory.h"

#include <string>
#include <utility>

namespace placer {

Status stageStageDirectory(OutputTransaction& transaction, const std::filesystem::path& dir,
                           const StageSet& stages, bool replace_any) {
  std::vector<std::pair<std::string, std::string_view>> files;
  files.reserve(stages.models.size() + 1);
  for (const StageModel& stage : stages.models)
    files.emplace_back(stage.file_name, stage.bytes);
  files.emplace_back("pipeline.json", stages.manifest_json);
  return transaction.stageDirectory(dir, files, replace_any);
}

Status writeStageDirectory(const std::filesystem::path& dir, const StageSet& stages,
                           const std::vector<std::filesystem::path>& inputs, bool replace_any) {
  OutputTransaction transaction(inputs);
  if (Status s = stageStageDirectory(transaction, dir, stages, replace_any); !s) return s;
  return transaction.commit();
}

}  // namespace placer
