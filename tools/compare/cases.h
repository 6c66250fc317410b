// The cases of `onnx-placer compare`: which inputs a command line names, and which algorithm runs on
// which of them.
//
// An input is an ONNX model (run by `place`) or a workload of Tarnawski et al. (run by `partition`).
// The command line names files, directories (searched recursively) or list files (a zoo: one path per
// line, relative to the list file, `#` starts a comment). Each input gets a stable name, the key a
// later run is matched by: a directory's files are named by their path inside it, so a zoo compares
// with itself wherever it is checked out; a file named on the command line or in a list keeps the
// path as written. A case is one input and one algorithm; cases are sorted by (input, algorithm), and
// `--shard I/N` takes every N-th of them, so N shards together hold each case once.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace placer::compare {

enum class InputKind { Model, Workload };

struct Input {
  std::string name;  // the key cases are matched by (see above)
  std::filesystem::path path;
  InputKind kind = InputKind::Model;
  // A human expert's split of this workload (the workloads' human-experts/ folder), or empty.
  std::filesystem::path expert;
};

// The inputs the command line names, sorted by name; an error names the argument or file at fault.
// Inside directories, files that are neither models nor workloads are passed over, as are expert
// splits (found for their workloads instead).
Expected<std::vector<Input>> findInputs(const std::vector<std::string>& arguments);

struct Case {
  Input input;
  std::string algorithm;  // a solver's name, or "expert" (the input's expert split, evaluated)
  int index = 0;          // position among all cases before sharding
};

// Every input with every algorithm in `algorithms` (in the given order), and "expert" where the input
// has an expert split and `experts` is set. Model inputs get no "expert" case.
std::vector<Case> makeCases(const std::vector<Input>& inputs, const std::vector<std::string>& algorithms,
                            bool experts);

// "I/N" with 1 <= I <= N.
Expected<std::pair<int, int>> parseShard(const std::string& text);

// The cases of shard `index` (1-based) of `count`: every count-th case, from index - 1.
std::vector<Case> shardCases(const std::vector<Case>& cases, int index, int count);

}  // namespace placer::compare
