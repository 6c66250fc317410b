#include "onnx_io/stage_directory.h"

#include <unistd.h>

#include <string>
#include <system_error>

#include "onnx_io/workload_json.h"

namespace placer {

Status writeStageDirectory(const std::filesystem::path& dir, const StageSet& stages,
                           const std::vector<std::filesystem::path>& inputs) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(dir, ec);
  if (existed && !std::filesystem::is_directory(dir, ec)) {
    return ioError("stage directory " + dir.string() + " exists and is not a directory");
  }
  std::filesystem::path target = dir;
  if (!existed) {
    target = dir.string() + ".tmp-" + std::to_string(::getpid());
    std::filesystem::remove_all(target, ec);
    if (!std::filesystem::create_directories(target, ec)) {
      return ioError("cannot create " + dir.string() + ": " + ec.message());
    }
  }
  auto write_all = [&]() -> Status {
    for (const StageModel& stage : stages.models) {
      if (Status s = writeFileAtomically(target / stage.file_name, stage.bytes, inputs); !s) return s;
    }
    return writeFileAtomically(target / "pipeline.json", stages.manifest_json, inputs);
  };
  Status written = write_all();
  if (!existed) {
    if (written) {
      std::filesystem::rename(target, dir, ec);
      if (ec) written = ioError("cannot create " + dir.string() + ": " + ec.message());
    }
    if (!written) std::filesystem::remove_all(target, ec);
  }
  return written;
}

}  // namespace placer
