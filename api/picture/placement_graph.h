// The placement's operator graph as DOT text for graphviz (issue 32; Tarnawski et al. 2020, Fig. 9):
// every operator (or collapsed box of them, graph_boxes.h) filled with its device's colour, each
// pipeline stage a cluster framed in that colour and titled with its device and load (the
// bottleneck's frame thick and red), the tensors that cross a stage boundary drawn red and labelled
// with their size (bytes for a model, the transfer cost for a workload, summed over the tensors an
// edge between two boxes stands for), and a title and legend at the top: device → colour, each
// device's load, memory and operators, what a red edge and a double-bordered box mean.
//
// The text is ours; graphviz only lays it out (graphviz.h). Names from the model are escaped, so any
// name gives valid DOT.
#pragma once

#include <cstddef>
#include <string>

#include "api/picture/placement_view.h"

namespace placer::picture {

struct DotOptions {
  std::size_t collapse_above = 300;  // graphs with more operators are collapsed
  std::size_t max_boxes = 90;        // into at most this many boxes
};

std::string placementDot(const PlacementView& view, const DotOptions& options = {});

// Text for a DOT double-quoted string: quotes and backslashes escaped, newlines as \n, control
// characters and invalid UTF-8 replaced.
std::string dotQuoted(std::string_view text);

}  // namespace placer::picture
