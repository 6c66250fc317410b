#include "api/picture/timeline.h"

#include <algorithm>
#include <limits>

namespace placer::picture {
namespace {

constexpr double kComputeRow = 26, kTransferRow = 16, kRowGap = 8, kPlotWidth = 860;

std::vector<int> devicesInPipelineOrder(const PlacementView& view) {
  const int count = static_cast<int>(view.eval.devices.size());
  std::vector<int> first_stage(count, std::numeric_limits<int>::max());
  for (std::size_t v = 0; v < view.device_of.size(); ++v) {
    const int d = view.device_of[v];
    const int stage = v < view.stage_of.size() ? view.stage_of[v] : d;
    if (d >= 0 && d < count) first_stage[d] = std::min(first_stage[d], stage);
  }
  std::vector<int> devices;
  for (int d = 0; d < count; ++d) {
    if (view.eval.devices[d].nodes > 0) devices.push_back(d);
  }
  std::stable_sort(devices.begin(), devices.end(),
                   [&](int a, int b) { return first_stage[a] < first_stage[b]; });
  return devices;
}

void addSlotSegments(Timeline& t, const DeviceLoad& load, Overlap overlap, int device, int m, double s) {
  const double in = load.comm_in, c = load.compute, out = load.comm_out;
  auto add = [&](SegmentKind kind, double start, double length) {
    if (length > 0) t.segments.push_back({device, m, kind, start, start + length});
  };
  if (overlap == Overlap::None) {
    add(SegmentKind::Receive, s, in);
    add(SegmentKind::Compute, s + in, c);
    add(SegmentKind::Send, s + in + c, out);
  } else if (overlap == Overlap::Max) {
    add(SegmentKind::Compute, s, c);
    add(SegmentKind::Receive, s, in);
    add(SegmentKind::Send, s + in, out);
  } else {
    add(SegmentKind::Compute, s, c);
    add(SegmentKind::Receive, s, in);
    add(SegmentKind::Send, s, out);
  }
}

struct TimelineLayout {
  double left = 0, top = 0, width = 0, height = 0, scale = 1;
  std::vector<double> row_top;  // per devices[k]
};

double segmentTop(const TimelineLayout& l, std::size_t k, SegmentKind kind, Overlap overlap) {
  if (kind == SegmentKind::Compute) return l.row_top[k];
  const double transfers = l.row_top[k] + kComputeRow + 2;
  return overlap == Overlap::Duplex && kind == SegmentKind::Send ? transfers + kTransferRow / 2 : transfers;
}

void drawRows(Svg& svg, const PlacementView& view, const Timeline& t, const TimelineLayout& l) {
  for (std::size_t k = 0; k < t.devices.size(); ++k) {
    const int d = t.devices[k];
    const bool bottleneck = d == t.bottleneck;
    const double y = l.row_top[k], h = kComputeRow + 2 + kTransferRow;
    if (bottleneck) svg.rect(4, y - 3, l.left + kPlotWidth + 4, h + 6, "#fde3e3", kBoundaryColor, 1.5);
    TextStyle name{
        .size = 12, .anchor = "end", .fill = bottleneck ? kBoundaryColor : "#222222", .bold = bottleneck};
    svg.text(l.left - 8, y + 12, fitText(viewDeviceName(view, d), l.left - 20, 12), name);
    svg.text(
        l.left - 8, y + 25, bottleneck ? "bottleneck" : "compute",
        {.size = 10, .anchor = "end", .fill = bottleneck ? kBoundaryColor : "#555555", .bold = bottleneck});
    svg.text(l.left - 8, y + kComputeRow + 14, "transfers", {.size = 10, .anchor = "end", .fill = "#555555"});
    svg.line(l.left, y + h + kRowGap / 2, l.left + kPlotWidth, y + h + kRowGap / 2, "#eeeeee", 1);
  }
}

void drawSegments(Svg& svg, const PlacementView& view, const Timeline& t, const TimelineLayout& l,
                  const TimeUnit& unit) {
  const Overlap overlap = view.problem->objective.overlap;
  for (const TimelineSegment& s : t.segments) {
    const std::size_t k =
        static_cast<std::size_t>(std::find(t.devices.begin(), t.devices.end(), s.device) - t.devices.begin());
    const double x = l.left + s.start * l.scale, w = std::max(0.8, (s.end - s.start) * l.scale);
    const double y = segmentTop(l, k, s.kind, overlap);
    const double h = s.kind == SegmentKind::Compute ? kComputeRow
                     : overlap == Overlap::Duplex   ? kTransferRow / 2
                                                    : kTransferRow;
    const std::string color = deviceColor(view, s.device);
    const char* what = s.kind == SegmentKind::Compute   ? "compute"
                       : s.kind == SegmentKind::Receive ? "receive"
                                                        : "send";
    const std::string tooltip = viewDeviceName(view, s.device) + ", micro-batch " +
                                std::to_string(s.micro_batch + 1) + ": " + what + " " +
                                formatTime(s.end - s.start, unit);
    const std::string fill = s.kind == SegmentKind::Compute   ? color
                             : s.kind == SegmentKind::Receive ? "url(#receive)"
                                                              : "url(#send)";
    svg.rect(x, y, w, h, fill, "#ffffff", 0.6, tooltip);
    const std::string label = std::to_string(s.micro_batch + 1);
    if (s.kind == SegmentKind::Compute && textWidth(label, 11) + 4 < w) {
      svg.text(x + w / 2, y + 17, label, {.size = 11, .anchor = "middle", .fill = "#ffffff", .bold = true});
    }
  }
}

void drawAxisAndPeriod(Svg& svg, const Timeline& t, const TimelineLayout& l, const TimeUnit& unit,
                       double bottom) {
  for (double tick : niceTicks(0, t.end, 8)) {
    const double x = l.left + tick * l.scale;
    svg.line(x, bottom, x, bottom + 5, "#444444", 1);
    svg.text(x, bottom + 18, formatNumber(tick * unit.scale, 4), {.size = 11, .anchor = "middle"});
  }
  svg.line(l.left, bottom, l.left + kPlotWidth, bottom, "#444444", 1);
  svg.text(l.left + kPlotWidth / 2, bottom + 36, "time (" + unit.name + ")",
           {.size = 12, .anchor = "middle"});
  // The steady state: the bottleneck starts a micro-batch every period.
  const auto k = static_cast<std::size_t>(std::find(t.devices.begin(), t.devices.end(), t.bottleneck) -
                                          t.devices.begin());
  if (k >= t.slot_start.size() || !(t.period > 0)) return;
  const std::vector<double>& starts = t.slot_start[k];
  for (double s : starts) {
    const double x = l.left + s * l.scale;
    svg.line(x, l.top - 18, x, bottom, kBoundaryColor, 1, "4,3");
  }
  const std::size_t first = starts.size() > 2 ? 1 : 0;
  const double x1 = l.left + starts[first] * l.scale, x2 = x1 + t.period * l.scale;
  svg.line(x1, l.top - 12, x2, l.top - 12, kBoundaryColor, 1.5);
  svg.polygon({x1, l.top - 12, x1 + 6, l.top - 15, x1 + 6, l.top - 9}, kBoundaryColor);
  svg.polygon({x2, l.top - 12, x2 - 6, l.top - 15, x2 - 6, l.top - 9}, kBoundaryColor);
  const std::string label = "period = max-load = " + formatTime(t.period, unit);
  const double width = textWidth(label, 11);
  const double x = std::clamp((x1 + x2) / 2, l.left + width / 2, l.left + kPlotWidth - width / 2);
  svg.text(x, l.top - 18, label, {.size = 11, .anchor = "middle", .fill = kBoundaryColor, .bold = true});
}

void drawTimelineLegend(Svg& svg, const TimelineLayout& l, double y) {
  double x = l.left;
  auto entry = [&](const std::string& fill, const std::string& text) {
    svg.rect(x, y - 10, 18, 12, fill, "#888888", 0.6);
    svg.text(x + 24, y, text, {.size = 11});
    x += 24 + textWidth(text, 11) + 20;
  };
  entry("#4e79a7", "compute (the device's colour; number = micro-batch)");
  entry("url(#receive)", "receive");
  entry("url(#send)", "send");
  svg.line(x, y - 12, x, y + 2, kBoundaryColor, 1, "4,3");
  svg.text(x + 6, y, "a micro-batch starts on the bottleneck", {.size = 11, .fill = kBoundaryColor});
}

}  // namespace

Timeline pipelineTimeline(const PlacementView& view, int micro_batches) {
  Timeline t;
  t.devices = devicesInPipelineOrder(view);
  t.bottleneck = bottleneckDevice(view);
  t.period = t.bottleneck >= 0 ? view.eval.devices[t.bottleneck].load : 0;
  const Overlap overlap = view.problem->objective.overlap;
  for (std::size_t k = 0; k < t.devices.size(); ++k) {
    const DeviceLoad& load = view.eval.devices[t.devices[k]];
    std::vector<double> starts;
    for (int m = 0; m < micro_batches; ++m) {
      double s = m > 0 ? starts.back() + load.load : 0;
      if (k > 0) s = std::max(s, t.slot_start[k - 1][m] + view.eval.devices[t.devices[k - 1]].load);
      starts.push_back(s);
      addSlotSegments(t, load, overlap, t.devices[k], m, s);
      t.end = std::max(t.end, s + load.load);
    }
    t.slot_start.push_back(std::move(starts));
  }
  return t;
}

std::string timelineSvg(const PlacementView& view, int micro_batches) {
  const Timeline t = pipelineTimeline(view, micro_batches);
  const TimeUnit unit = viewTimeUnit(view);
  TimelineLayout l;
  double widest = textWidth("transfers", 10);
  for (int d : t.devices)
    widest = std::max(widest, textWidth(viewDeviceName(view, d), 12, true));
  l.left = std::min(widest, 220.0) + 24;
  l.top = 98;
  double y = l.top;
  for (std::size_t k = 0; k < t.devices.size(); ++k) {
    l.row_top.push_back(y);
    y += kComputeRow + 2 + kTransferRow + kRowGap;
  }
  const double bottom = y;
  l.scale = t.end > 0 ? kPlotWidth / t.end : 1;
  l.width = l.left + kPlotWidth + 30;
  l.height = bottom + 76;
  const std::string title = "Pipeline schedule: " + view.title;
  Svg svg(std::max(l.width, textWidth(title, 17, true) + 40), l.height, title);
  svg.hatchPattern("receive", "#7f7f7f", "#e8e8e8");
  svg.hatchPattern("send", "#303030", "#c8c8c8");
  svg.text(16, 26, title, {.size = 17, .bold = true});
  svg.text(16, 46,
           std::to_string(micro_batches) +
               " micro-batches; each device spends its load on each micro-batch, "
               "in pipeline order",
           {.size = 12, .fill = "#444444"});
  if (t.bottleneck >= 0) {
    svg.text(16, 63,
             fitText("bottleneck: " + viewDeviceName(view, t.bottleneck) +
                         ", which sets the period: max-load " + formatTime(t.period, unit) + " per sample",
                     svg.width() - 32, 12),
             {.size = 12, .fill = kBoundaryColor, .bold = true});
  }
  drawRows(svg, view, t, l);
  drawSegments(svg, view, t, l, unit);
  drawAxisAndPeriod(svg, t, l, unit, bottom);
  drawTimelineLegend(svg, l, bottom + 62);
  if (t.devices.empty()) svg.text(l.left, l.top + 20, "no device has work", {.size = 12});
  return svg.str();
}

}  // namespace placer::picture
