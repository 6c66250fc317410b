// Laying out DOT text with graphviz's `dot`, found on PATH when the picture is drawn (a run-time tool
// from Debian's graphviz package, not a library we link): spawned without a shell, the DOT written
// to its standard input and the SVG read from its standard output, with its standard error kept for
// the error message; killed when it runs past the timeout or the stop flag is set.
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace placer::picture {

// The first executable `dot` in the directories of PATH, or nullopt.
std::optional<std::filesystem::path> findGraphvizDot();

// `dot -Tsvg` of `dot_text`. Unsupported when dot is not on PATH (the message says so), Internal
// with dot's exit status and standard error when it fails, TimeLimit after `timeout_seconds`,
// Interrupted once `stop` (may be null) is set.
Expected<std::string> renderDotSvg(std::string_view dot_text, double timeout_seconds = 120,
                                   const std::atomic<bool>* stop = nullptr);

}  // namespace placer::picture
