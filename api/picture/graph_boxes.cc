#include "api/picture/graph_boxes.h"

#include <algorithm>
#include <limits>
#include <queue>

namespace placer::picture {
namespace {

// Kahn's order, smallest vertex first among the ready ones; vertices on a cycle (backward edges of a
// training graph may close some) follow in index order.
std::vector<std::size_t> boxOrderPositions(const OpGraph& graph) {
  const std::size_t n = boost::num_vertices(graph);
  std::vector<std::size_t> indegree(n, 0), position(n, n);
  for (auto [e, end] = boost::edges(graph); e != end; ++e)
    ++indegree[boost::target(*e, graph)];
  std::priority_queue<Vertex, std::vector<Vertex>, std::greater<>> ready;
  for (Vertex v = 0; v < n; ++v) {
    if (indegree[v] == 0) ready.push(v);
  }
  std::size_t next = 0;
  while (!ready.empty()) {
    const Vertex v = ready.top();
    ready.pop();
    position[v] = next++;
    for (auto [e, end] = boost::out_edges(v, graph); e != end; ++e) {
      if (--indegree[boost::target(*e, graph)] == 0) ready.push(boost::target(*e, graph));
    }
  }
  for (Vertex v = 0; v < n; ++v) {
    if (position[v] == n) position[v] = next++;
  }
  return position;
}

struct PendingBox {
  GraphBox box;
  std::size_t depth = 0;  // scope components its members' names have consumed
  bool final = false;
};

// The box split by the next level of its members' scopes (descending while they all share it), or
// into two halves of its run when the names have no more levels. Empty: it cannot be split.
std::vector<PendingBox> splitPending(PendingBox pending,
                                     const std::vector<std::vector<std::string>>& scopes) {
  GraphBox& box = pending.box;
  for (;;) {
    std::vector<std::string> keys;
    std::vector<std::vector<Vertex>> members;
    for (Vertex v : box.members) {
      const std::string key = pending.depth < scopes[v].size() ? scopes[v][pending.depth] : std::string();
      auto it = std::find(keys.begin(), keys.end(), key);
      if (it == keys.end()) {
        keys.push_back(key);
        members.emplace_back();
        it = keys.end() - 1;
      }
      members[static_cast<std::size_t>(it - keys.begin())].push_back(v);
    }
    if (keys.size() > 1) {
      std::vector<PendingBox> children;
      for (std::size_t k = 0; k < keys.size(); ++k) {
        GraphBox child{box.group, box.scope, std::move(members[k]), false};
        if (!keys[k].empty()) child.scope += (child.scope.empty() ? "" : "/") + keys[k];
        children.push_back({std::move(child), pending.depth + 1, false});
      }
      return children;
    }
    if (keys.empty() || keys.front().empty()) break;
    box.scope += (box.scope.empty() ? "" : "/") + keys.front();
    ++pending.depth;
  }
  if (box.members.size() < 2) return {};
  const auto middle = box.members.begin() + static_cast<std::ptrdiff_t>(box.members.size() / 2);
  GraphBox first{box.group, box.scope, {box.members.begin(), middle}, true};
  GraphBox second{box.group, box.scope, {middle, box.members.end()}, true};
  return {{std::move(first), pending.depth, false}, {std::move(second), pending.depth, false}};
}

}  // namespace

std::vector<std::string> nameScope(const std::string& name) {
  const char separator = name.find('/') != std::string::npos ? '/' : '.';
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = name.find(separator, start);
    if (end == std::string::npos) break;  // the last component is the operator's own name
    if (end > start) parts.push_back(name.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

GraphBoxes graphBoxes(const OpGraph& graph, const std::vector<int>& group_of, std::size_t collapse_above,
                      std::size_t max_boxes) {
  const std::size_t n = boost::num_vertices(graph);
  GraphBoxes out;
  out.box_of.assign(n, 0);
  const std::vector<std::size_t> position = boxOrderPositions(graph);
  std::vector<Vertex> order(n);
  for (Vertex v = 0; v < n; ++v)
    order[position[v]] = v;
  if (n <= collapse_above) {
    for (Vertex v : order) {
      out.box_of[v] = static_cast<int>(out.boxes.size());
      out.boxes.push_back({group_of[v], {}, {v}, false});
    }
    return out;
  }
  std::vector<std::vector<std::string>> scopes(n);
  for (Vertex v = 0; v < n; ++v)
    scopes[v] = nameScope(graph[v].name);
  std::vector<PendingBox> pending;
  for (Vertex v : order) {
    auto it = std::find_if(pending.begin(), pending.end(),
                           [&](const PendingBox& p) { return p.box.group == group_of[v]; });
    if (it == pending.end()) {
      pending.push_back({{group_of[v], {}, {}, false}, 0, false});
      it = pending.end() - 1;
    }
    it->box.members.push_back(v);
  }
  for (;;) {
    auto largest = pending.end();
    for (auto it = pending.begin(); it != pending.end(); ++it) {
      if (!it->final && (largest == pending.end() || it->box.members.size() > largest->box.members.size()))
        largest = it;
    }
    if (largest == pending.end()) break;
    std::vector<PendingBox> children = splitPending(*largest, scopes);
    if (children.size() > 2 && pending.size() - 1 + children.size() > max_boxes) {
      // Too many scopes for the boxes left: halve the run instead, which always fits when two do.
      PendingBox unscoped = *largest;
      unscoped.depth = std::numeric_limits<std::size_t>::max();
      children = splitPending(unscoped, scopes);
      for (PendingBox& c : children) {
        c.box.scope = largest->box.scope;
        c.depth = largest->depth;
      }
    }
    if (children.size() < 2 || pending.size() - 1 + children.size() > max_boxes) {
      largest->final = true;
      continue;
    }
    *largest = std::move(children.front());
    pending.insert(pending.end(), std::make_move_iterator(children.begin() + 1),
                   std::make_move_iterator(children.end()));
  }
  // Boxes in the order of their first operator, so the picture reads in pipeline order.
  std::sort(pending.begin(), pending.end(), [&](const PendingBox& a, const PendingBox& b) {
    return position[a.box.members.front()] < position[b.box.members.front()];
  });
  for (PendingBox& p : pending) {
    for (Vertex v : p.box.members)
      out.box_of[v] = static_cast<int>(out.boxes.size());
    out.collapsed = out.collapsed || p.box.members.size() > 1;
    out.boxes.push_back(std::move(p.box));
  }
  return out;
}

}  // namespace placer::picture
