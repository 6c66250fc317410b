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
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace placer {

// A file an output refers to by name (a model's external data) whose bytes come from files on disk
// rather than from memory: a hard link to an existing file, which costs no space and never changes
// that file, or ranges of existing files copied into a new one.
struct DataFile {
  struct Piece {
    std::filesystem::path file;  // read from here
    std::uint64_t offset = 0;    // where in `file`
    std::uint64_t length = 0;
    std::uint64_t at = 0;  // where in the new file (zeros fill the gaps between pieces)
  };
  std::string name;               // the path relative to the directory it is written into
  std::filesystem::path link_to;  // non-empty: a hard link to this file; `pieces` are unused
  std::vector<Piece> pieces;      // otherwise the new file's contents, in order of `at`
  std::uint64_t size = 0;         // the new file's length
};

// Refuses `target` as an output when it is one of `inputs` or, for a directory to be replaced,
// holds one of them: what staging an output refuses, for callers that check before any work.
Status refuseInputAsOutput(const std::filesystem::path& target, bool directory,
                           const std::vector<std::filesystem::path>& inputs);

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

  // Links or copies `data` into a temporary file beside `path`, as stageFile() writes bytes. A hard
  // link that the file system refuses (another device) is an error that says so. The files it links
  // to or copies from become inputs (protect()).
  Status stageDataFile(const std::filesystem::path& path, const DataFile& data);

  // Writes `files` (name, bytes) and `data` into a temporary directory beside `dir`, which replaces
  // `dir` whole on commit. A name may hold subdirectories ("m/1/model.onnx"); one ending in '/' is an
  // empty directory. An existing `dir` must be a directory; unless `replace_any`, `replaceable` (when
  // not null) must accept it: say, it holds nothing but what an earlier run wrote there
  // (replaceableAsStageDirectory in stage_directory.h, replaceableAsTritonRepository below). The
  // files `data` links to or copies from become inputs.
  Status stageDirectory(const std::filesystem::path& dir,
                        const std::vector<std::pair<std::string, std::string_view>>& files,
                        const std::vector<DataFile>& data, bool replace_any,
                        Status (*replaceable)(const std::filesystem::path&));

  // Adds a file never to be written over (the data files the outputs link to or copy from).
  void protect(const std::filesystem::path& input) { inputs_.push_back(input); }
  // protect() for every file `data` links to or copies from.
  void protectSources(const DataFile& data);

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
  // Checks `path` and creates the temporary file `name` beside it, open as `fd`, as a staged item.
  Status beginFile(const std::filesystem::path& path, std::string& name, int& fd);
  bool stopped() const;
  void rollBack();
  void discardStaged();

  std::vector<std::filesystem::path> inputs_;
  const std::atomic<bool>* stop_;
  std::vector<Item> items_;
  bool committed_ = false;
};

// Ok when `dir` does not exist, or is a Triton model repository as `--emit triton` writes one: only
// directories, each holding config.pbtxt and numbered version directories of regular files.
Status replaceableAsTritonRepository(const std::filesystem::path& dir);

// One file written atomically (a transaction of one): never over one of `inputs`; nothing is left
// once `stop` (may be null) is set before the rename.
Status writeFileAtomically(const std::filesystem::path& path, const std::string& text,
                           const std::vector<std::filesystem::path>& inputs,
                           const std::atomic<bool>* stop = nullptr);

}  // namespace placer
