#include "api/picture/placement_graph.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "api/picture/graph_boxes.h"

namespace placer::picture {
namespace {

std::string lastComponents(const std::string& scope, int count) {
  std::size_t at = scope.size();
  for (int i = 0; i < count && at != std::string::npos && at > 0; ++i)
    at = scope.rfind('/', at - 1);
  return at == std::string::npos || at == 0 ? scope : "\xE2\x80\xA6" + scope.substr(at);
}

// "MatMul×12 Add×8 Softmax×2" for the three most frequent op types.
std::string opTypeSummary(const OpGraph& graph, const GraphBox& box) {
  std::map<std::string, int> count;
  for (Vertex v : box.members)
    ++count[graph[v].op_type.empty() ? "op" : graph[v].op_type];
  std::vector<std::pair<int, std::string>> sorted;
  for (const auto& [type, n] : count)
    sorted.push_back({-n, type});
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, sorted.size()); ++i)
    out += (i ? " " : "") + fitText(sorted[i].second, 90, 10) + "\xC3\x97" + std::to_string(-sorted[i].first);
  return out;
}

std::string boxLabel(const PlacementView& view, const GraphBox& box, double time, const TimeUnit& unit) {
  const OpGraph& graph = view.problem->graph;
  if (box.members.size() == 1) {
    const OpNode& node = graph[box.members.front()];
    const std::string type = node.op_type.empty() ? "op" : node.op_type;
    std::string name = node.name;
    if (const std::size_t slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
    std::string label = fitText(type, 140, 10);
    if (!name.empty() && name != type) label += "\n" + fitText(name, 140, 10);
    return label;
  }
  std::string title = box.scope.empty() ? "operators" : fitText(lastComponents(box.scope, 2), 170, 10);
  if (box.run) title += " (from " + fitText(graph[box.members.front()].name, 90, 10) + ")";
  return title + "\n" + std::to_string(box.members.size()) + " ops, " + formatTime(time, unit) + "\n" +
         opTypeSummary(graph, box);
}

// What the tensors of one box-to-box edge add up to.
struct BoxEdge {
  bool crossing = false;
  int tensors = 0;
  double bytes = 0, cost = 0;
};

std::map<std::pair<int, int>, BoxEdge> boxEdges(const PlacementView& view, const GraphBoxes& boxes) {
  const Problem& problem = *view.problem;
  std::map<std::pair<int, int>, BoxEdge> edges;
  for (auto [e, end] = boost::edges(problem.graph); e != end; ++e) {
    if (problem.graph[*e].artificial) continue;
    const Vertex u = boost::source(*e, problem.graph), w = boost::target(*e, problem.graph);
    const int a = boxes.box_of[u], b = boxes.box_of[w];
    if (a != b) edges[{a, b}];
  }
  // A tensor is paid once per device it goes to: its size is written on one of its edges into each
  // device (to the first box there), its other edges into that device are red without a label.
  const std::vector<Net> built = problem.nets.empty() ? buildNets(problem.graph) : std::vector<Net>{};
  const std::vector<Net>& nets = problem.nets.empty() ? built : problem.nets;
  for (const Net& net : nets) {
    std::map<int, std::set<int>> destinations;  // device -> boxes
    for (Vertex s : net.sinks) {
      if (view.device_of[s] != view.device_of[net.source])
        destinations[view.device_of[s]].insert(boxes.box_of[s]);
    }
    for (const auto& [device, into] : destinations) {
      for (int b : into) {
        BoxEdge& edge = edges[{boxes.box_of[net.source], b}];
        edge.crossing = true;
        if (b != *into.begin()) continue;
        ++edge.tensors;
        edge.bytes += net.bytes;
        edge.cost += net.cost;
      }
    }
  }
  return edges;
}

// Too many edges between boxes (a random graph's boxes are nearly all connected) make a picture no one
// can read and a layout graphviz takes minutes over: past this, only the crossings are drawn, summed
// per pair of stages, and each stage's boxes are stacked in their order by invisible edges.
std::size_t maxDrawnEdges(std::size_t boxes) {
  return 4 * boxes + 40;
}

std::map<std::pair<int, int>, BoxEdge> stagePairEdges(const std::map<std::pair<int, int>, BoxEdge>& edges,
                                                      const GraphBoxes& boxes) {
  std::map<int, std::pair<int, int>> span;  // group -> its first and last box
  for (std::size_t b = 0; b < boxes.boxes.size(); ++b) {
    auto [it, inserted] = span.try_emplace(boxes.boxes[b].group, static_cast<int>(b), static_cast<int>(b));
    if (!inserted) it->second.second = static_cast<int>(b);
  }
  std::map<std::pair<int, int>, BoxEdge> out;
  for (const auto& [key, edge] : edges) {
    if (!edge.crossing) continue;
    const int from = span[boxes.boxes[key.first].group].second,
              to = span[boxes.boxes[key.second].group].first;
    BoxEdge& sum = out[{from, to}];
    sum.crossing = true;
    sum.tensors += edge.tensors;
    sum.bytes += edge.bytes;
    sum.cost += edge.cost;
  }
  return out;
}

std::string edgeLabel(const PlacementView& view, const BoxEdge& edge) {
  std::string size;
  if (view.seconds) {
    size = edge.bytes > 0 ? formatBytes(edge.bytes) : "size unknown";
  } else {
    size = "cost " + formatNumber(edge.cost, 3);
    if (edge.bytes > 0) size += ", " + formatBytes(edge.bytes);
  }
  return edge.tensors > 1 ? std::to_string(edge.tensors) + " tensors, " + size : size;
}

std::string deviceSummary(const PlacementView& view, int device, const TimeUnit& unit) {
  const DeviceLoad& load = view.eval.devices[device];
  std::string text = std::to_string(load.nodes) + " ops, load " + formatTime(load.load, unit) + " (compute " +
                     formatTime(load.compute, unit) + ", in " + formatTime(load.comm_in, unit) + ", out " +
                     formatTime(load.comm_out, unit) + ")";
  if (view.problem->devices.isAccelerator(device) && load.memory > 0) {
    text += ", " + (view.seconds ? formatBytes(load.memory) : "memory " + formatNumber(load.memory, 3));
  }
  return text;
}

// The title and the legend: an HTML-like label (graphviz's) on the whole graph, at the top.
std::string legendLabel(const PlacementView& view, const TimeUnit& unit, bool collapsed, bool bundled) {
  const int bottleneck = bottleneckDevice(view);
  std::string html = "<<table border=\"0\" cellspacing=\"2\" cellpadding=\"2\">";
  html += "<tr><td colspan=\"2\" align=\"left\"><font point-size=\"20\"><b>" + xmlEscape(view.title) +
          "</b></font></td></tr>";
  html += "<tr><td colspan=\"2\" align=\"left\">max-load " + xmlEscape(formatTime(view.eval.max_load, unit)) +
          " per sample" +
          (bottleneck >= 0 ? ", bottleneck: " + xmlEscape(viewDeviceName(view, bottleneck)) : std::string()) +
          "</td></tr>";
  for (std::size_t d = 0; d < view.eval.devices.size(); ++d) {
    if (view.eval.devices[d].nodes == 0) continue;
    const int device = static_cast<int>(d);
    const bool is_bottleneck = device == bottleneck;
    html += "<tr><td bgcolor=\"" + lightColor(deviceColor(view, device), 0.45) + "\" width=\"28\"" +
            (is_bottleneck ? " border=\"2\" color=\"" + std::string(kBoundaryColor) + "\"" : "") +
            "> </td><td align=\"left\">" + (is_bottleneck ? "<b>" : "") +
            xmlEscape(viewDeviceName(view, device) + ": " + deviceSummary(view, device, unit)) +
            (is_bottleneck ? " \xE2\x80\x94 BOTTLENECK</b>" : "") + "</td></tr>";
  }
  html += std::string("<tr><td><font color=\"") + kBoundaryColor +
          "\">\xE2\x86\x92</font></td><td align=\"left\">red edge: tensors crossing a stage boundary, "
          "labelled with their " +
          (view.seconds ? "size" : "transfer cost (the workload's unit)") + "</td></tr>";
  if (collapsed) {
    html +=
        "<tr><td border=\"1\"> </td><td align=\"left\">double-bordered box: operators collapsed by name "
        "scope (or a run of consecutive operators), with their count, time and op types</td></tr>";
  }
  if (bundled) {
    html +=
        "<tr><td> </td><td align=\"left\">too many edges to draw: only the crossings, summed per pair of "
        "stages; a stage's boxes are in pipeline order</td></tr>";
  }
  return html + "</table>>";
}

}  // namespace

std::string dotQuoted(std::string_view text) {
  const std::string clean = xmlEscape(text);  // valid UTF-8, no control characters but \t and \n
  std::string out;
  for (std::size_t i = 0; i < clean.size(); ++i) {
    if (clean[i] == '&') {  // xmlEscape's entities back to characters graphviz shows as they are
      const std::size_t end = clean.find(';', i);
      const std::string entity = clean.substr(i, end - i + 1);
      out += entity == "&amp;"    ? "&amp;"
             : entity == "&lt;"   ? "<"
             : entity == "&gt;"   ? ">"
             : entity == "&quot;" ? "\\\""
                                  : "'";
      i = end;
    } else if (clean[i] == '\\') {
      out += "\\\\";
    } else if (clean[i] == '\n') {
      out += "\\n";
    } else {
      out += clean[i];
    }
  }
  return out;
}

std::string placementDot(const PlacementView& view, const DotOptions& options) {
  const Problem& problem = *view.problem;
  const std::size_t n = boost::num_vertices(problem.graph);
  const bool by_stage = view.stage_of.size() == n;
  const std::vector<int>& group_of = by_stage ? view.stage_of : view.device_of;
  const GraphBoxes boxes = graphBoxes(problem.graph, group_of, options.collapse_above, options.max_boxes);
  const TimeUnit unit = viewTimeUnit(view);
  const int bottleneck = bottleneckDevice(view);

  std::map<std::pair<int, int>, BoxEdge> edges = boxEdges(view, boxes);
  const bool bundled = edges.size() > maxDrawnEdges(boxes.boxes.size());
  std::string dot = "digraph placement {\n";
  dot +=
      "  graph [fontname=\"DejaVu Sans\", labelloc=t, labeljust=l, newrank=true, nodesep=0.2, ranksep=0.22, "
      "label=" +
      legendLabel(view, unit, boxes.collapsed, bundled) + "];\n";
  dot +=
      "  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\", fontsize=10, penwidth=0.8, "
      "height=0.3, "
      "margin=\"0.08,0.03\"];\n";
  dot += "  edge [color=\"#8a8a8a\", arrowsize=0.6, fontname=\"DejaVu Sans\", fontsize=9];\n";
  // One cluster per group, in pipeline order (of the groups' first boxes).
  std::vector<int> groups;
  for (const GraphBox& box : boxes.boxes) {
    if (std::find(groups.begin(), groups.end(), box.group) == groups.end()) groups.push_back(box.group);
  }
  for (int group : groups) {
    const GraphBox* first = nullptr;
    for (const GraphBox& box : boxes.boxes) {
      if (box.group == group && !first) first = &box;
    }
    const int device = view.device_of[first->members.front()];
    const bool is_bottleneck = device == bottleneck;
    const std::string color = deviceColor(view, device);
    std::string title = (by_stage ? "stage " + std::to_string(group) + " \xC2\xB7 " : std::string()) +
                        viewDeviceName(view, device) + " \xC2\xB7 load " +
                        formatTime(view.eval.devices[device].load, unit) +
                        (is_bottleneck ? " \xC2\xB7 BOTTLENECK" : "");
    dot +=
        "  subgraph cluster_" + std::to_string(group < 0 ? 0 : group) + "_" + std::to_string(device) + " {\n";
    dot += "    label=\"" + dotQuoted(title) + "\"; fontsize=13; style=\"rounded,filled\"; fillcolor=\"" +
           lightColor(color, 0.88) + "\"; color=\"" + (is_bottleneck ? kBoundaryColor : color) +
           "\"; penwidth=" + (is_bottleneck ? "4" : "2") + ";\n";
    for (std::size_t b = 0; b < boxes.boxes.size(); ++b) {
      const GraphBox& box = boxes.boxes[b];
      if (box.group != group) continue;
      double time = 0;
      for (Vertex v : box.members)
        time += deviceTime(problem.graph[v], problem.devices, view.device_of[v]);
      dot += "    b" + std::to_string(b) + " [label=\"" + dotQuoted(boxLabel(view, box, time, unit)) +
             "\", fillcolor=\"" + lightColor(color, 0.45) + "\"" +
             (box.members.size() > 1 ? ", peripheries=2" : "") + "];\n";
    }
    dot += "  }\n";
  }
  if (bundled) {
    std::map<int, std::size_t> previous;  // group -> its last box so far
    for (std::size_t b = 0; b < boxes.boxes.size(); ++b) {
      auto [it, first] = previous.try_emplace(boxes.boxes[b].group, b);
      if (!first)
        dot += "  b" + std::to_string(it->second) + " -> b" + std::to_string(b) + " [style=invis];\n";
      it->second = b;
    }
    edges = stagePairEdges(edges, boxes);
  }
  for (const auto& [key, edge] : edges) {
    dot += "  b" + std::to_string(key.first) + " -> b" + std::to_string(key.second);
    if (edge.crossing) {
      dot += std::string(" [color=\"") + kBoundaryColor + "\", penwidth=2";
      if (edge.tensors > 0) {
        dot += std::string(", fontcolor=\"") + kBoundaryColor + "\", label=\"" +
               dotQuoted(edgeLabel(view, edge)) + "\"";
      }
      dot += "]";
    }
    dot += ";\n";
  }
  return dot + "}\n";
}

}  // namespace placer::picture
