// Writing a run's outputs all or nothing.
//
// The outputs of one run (an annotated model, a stage directory, a report, a workload) are staged
// first: each is written in full, and synced, under a hidden temporary name beside its destination
// (".NAME.tmp-XXXXXX"). Only once every output is staged does commit() move them into place, one
// rename each. Whatever a destination held before is renamed aside (".NAME.old-XXXXXX") until the last
// rename has succeeded, so a failure half-way through commit(), or the stop flag set during it, puts
// every destination back as it was. A transaction destroyed without a successful commit() removes
// everything it staged; after a successful one, nothing but the outputs remains.
//
// Invariants: no input file is ever written over or removed (an output naming an input, or a
// directory to replace that holds an input, is refused when staged); a stage directory is replaced
// whole, so it never keeps files of an earlier run; two outputs of one transaction never name the
// same path.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace placer {

class OutputTransaction {
 public:
  // `inputs` are never written over; `stop` (may be null) is checked between steps: once set,
  // staging and commit() fail with Interrupted and the transaction leaves nothing behind.
  explicit OutputTransaction(std::vector<std::filesystem::path> inputs,
                             const std::atomic<bool>* stop = nullptr);
  ~OutputTransaction();
  OutputTransaction(const OutputTransaction&) = delete;
  OutputTransaction& operator=(const OutputTransaction&) = delete;

  // Writes `bytes` to a temporary file beside `path`. `path` must not be an input, nor a directory.
  Status stageFile(const std::filesystem::path& path, std::string_view bytes);

  // Writes `files` (name, bytes) into a temporary directory beside `dir`, which replaces `dir` whole
  // on commit. A name may hold subdirectories ("m/1/model.onnx"); one ending in '/' is an empty
  // directory. An existing `dir` must be a directory; unless `replace_any`, `replaceable` must accept
  // it (by default: it holds nothing but what a stage directory holds).
  Status stageDirectory(const std::filesystem::path& dir,
                        const std::vector<std::pair<std::string, std::string_view>>& files, bool replace_any,
                        Status (*replaceable)(const std::filesystem::path&) = nullptr);

  // Moves every staged output into place; all of them or, on failure or interruption, none (the
  // destinations keep what they held before).
  Status commit();

 private:
  struct Item {
    std::filesystem::path target;
    std::filesystem::path staged;  // temporary file or directory
    std::filesystem::path backup;  // where the target's old contents wait during commit()
    bool directory = false;
    bool moved = false;  // staged is now at target
  };

  Status checkTarget(const std::filesystem::path& target, bool directory) const;
  bool stopped() const;
  void rollBack();
  void discardStaged();

  std::vector<std::filesystem::path> inputs_;
  const std::atomic<bool>* stop_;
  std::vector<Item> items_;
  bool committed_ = false;
};

// Ok when `dir` does not exist, or is a directory holding only regular files named stageN.onnx,
// pipeline.json and genai_config.json (an earlier run's stage or GenAI directory); otherwise a message naming what else it holds.
Status replaceableAsStageDirectory(const std::filesystem::path& dir);

// Ok when `dir` does not exist, or is a Triton model repository as `--emit triton` writes one: only
// directories, each holding config.pbtxt and numbered version directories of regular files.
Status replaceableAsTritonRepository(const std::filesystem::path& dir);

// One file written atomically (a transaction of one): never over one of `inputs`; nothing is left
// once `stop` (may be null) is set before the rename.
Status writeFileAtomically(const std::filesystem::path& path, const std::string& text,
                           const std::vector<std::filesystem::path>& inputs,
                           const std::atomic<bool>* stop = nullptr);

}  // namespace placer
