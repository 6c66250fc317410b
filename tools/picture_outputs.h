// --svg, --dot and --timeline of `place` and `partition` (issue 32): which pictures to draw, drawing
// them from the run's result (api/picture/), and writing them in the same all-or-nothing output
// transaction as the command's other outputs.
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "api/picture/placement_view.h"
#include "api/place.h"
#include "api/workload.h"
#include "tools/cli_common.h"

namespace placer::cli {

// The options' help, as place and partition print it: a string literal, so that it joins their help
// texts where they are defined.
#define PLACER_PICTURE_OPTIONS_HELP                                                                          \
  "  --svg FILE.svg          draw the placed operator graph (as Tarnawski et al.'s Fig. 9): each operator\n" \
  "                          filled with its device's colour, each pipeline stage framed and titled with\n"  \
  "                          its device and load (the bottleneck's frame red), the tensors that cross a\n"   \
  "                          stage boundary red and labelled with their size (bytes; for a workload its\n"   \
  "                          transfer cost), and a legend. Graphs of more than 300 operators are\n"          \
  "                          collapsed into at most 90 boxes, by stage and by the model's name scopes\n"     \
  "                          (\"/encoder/layer.0/...\"), else runs of consecutive operators. Laid out by\n"  \
  "                          graphviz's dot, found on PATH when the run ends; where it is missing, the\n"    \
  "                          DOT text is written to FILE.dot instead (the extension replaced) and a\n"       \
  "                          warning says so (exit status 0)\n"                                              \
  "  --dot FILE.dot          the same graph as DOT text (graphviz not needed)\n"                             \
  "  --timeline FILE.svg     the pipeline's schedule over 4 micro-batches as a Gantt chart: per device "     \
  "its\n"                                                                                                    \
  "                          compute and its transfers, the bottleneck highlighted, the steady-state\n"      \
  "                          period (= the max-load) marked, a time axis with units (throughput only)\n"

struct PictureRequest {
  std::optional<std::filesystem::path> svg, dot, timeline;
  bool any() const { return svg || dot || timeline; }
};

using PictureFile = api::ExtraFile;  // the option, the path and the bytes

std::vector<OptionSpec> pictureOptionSpecs();

// The request from `args`; a usage error's text when the paths clash or --timeline is asked of a
// latency objective.
std::optional<std::string> parsePictureOptions(const Args& args, Goal goal, PictureRequest& out);

// What the pictures of a run draw from: `place`'s result on its model, `partition`'s on its workload
// (`time_unit`: the seconds of one unit of the workload's times, when given). The view refers to the
// result's problem.
picture::PlacementView placedView(const api::LoadedModel& model, const api::Placed& placed);
picture::PlacementView partitionedView(const std::filesystem::path& workload,
                                       const api::Partitioned& partitioned);

// The requested pictures' files, with empty bytes: for checking their paths before any work.
std::vector<PictureFile> plannedPictureFiles(const PictureRequest& request);

// Draws the requested pictures of `view`. --svg needs graphviz's dot on PATH: where it is missing,
// the DOT text is written as FILE.dot instead (FILE with its extension replaced) and a warning says
// so on standard error (unless `quiet`, or --dot already writes that file).
Expected<std::vector<PictureFile>> drawPictures(const PictureRequest& request,
                                                const picture::PlacementView& view,
                                                const std::atomic<bool>* stop, bool quiet);

// `text` to --output (or standard output) and the pictures, all written or none (never over one of
// `inputs`): emit() with files beside.
Status emitWithPictures(const Args& args, const std::string& text,
                        const std::vector<std::filesystem::path>& inputs,
                        const std::vector<PictureFile>& pictures);

}  // namespace placer::cli
