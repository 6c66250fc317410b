#include "api/picture/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace placer::picture {
namespace {

// The length of the valid UTF-8 sequence at text[i], or 0 when it is not one.
std::size_t svgUtf8Length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (length == 0 || i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  if (length == 2 && c < 0xC2) return 0;  // overlong
  if (length == 3 && c == 0xE0 && byte(i + 1) < 0xA0) return 0;
  if (length == 3 && c == 0xED && byte(i + 1) >= 0xA0) return 0;  // surrogates
  if (length == 4 && (c > 0xF4 || (c == 0xF0 && byte(i + 1) < 0x90) || (c == 0xF4 && byte(i + 1) >= 0x90))) {
    return 0;
  }
  return length;
}

// Advance widths of DejaVu Sans in em, printable ASCII from ' ' (rounded up).
constexpr double kAsciiWidth[95] = {0.32, 0.40, 0.46, 0.84, 0.64, 0.95, 0.78, 0.28,
                                    0.39, 0.39, 0.50, 0.84, 0.32, 0.36, 0.32, 0.34,  // ' '-'/'
                                    0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64, 0.64,
                                    0.64, 0.64, 0.34, 0.34, 0.84, 0.84, 0.84, 0.54,  // '0'-'?'
                                    1.00, 0.69, 0.69, 0.70, 0.77, 0.64, 0.58, 0.78,
                                    0.76, 0.30, 0.30, 0.66, 0.56, 0.87, 0.75, 0.79,  // '@'-'O'
                                    0.61, 0.79, 0.70, 0.64, 0.62, 0.74, 0.69, 0.99,
                                    0.69, 0.62, 0.69, 0.39, 0.34, 0.39, 0.84, 0.50,  // 'P'-'_'
                                    0.50, 0.62, 0.64, 0.55, 0.64, 0.62, 0.36, 0.64,
                                    0.64, 0.28, 0.28, 0.58, 0.28, 0.98, 0.64, 0.62,  // '`'-'o'
                                    0.64, 0.64, 0.42, 0.53, 0.40, 0.64, 0.60, 0.82,
                                    0.60, 0.60, 0.53, 0.64, 0.34, 0.64, 0.84};  // 'p'-'~'

double charWidth(std::string_view text, std::size_t i, std::size_t length) {
  if (length == 1) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    return c >= 32 && c < 127 ? kAsciiWidth[c - 32] : 0.64;
  }
  return 1.0;  // wide enough for "…", "×", "µ", "→" and most letters of other scripts
}

void appendAttribute(std::string& out, const char* name, double value) {
  char text[48];
  std::snprintf(text, sizeof text, " %s=\"%.2f\"", name, value);
  out += text;
}

void appendAttribute(std::string& out, const char* name, std::string_view value) {
  out += ' ';
  out += name;
  out += "=\"";
  out += xmlEscape(value);
  out += '"';
}

void appendTooltip(std::string& out, std::string_view tooltip) {
  if (tooltip.empty()) {
    out += "/>\n";
    return;
  }
  out += "><title>" + xmlEscape(tooltip) + "</title></";
}

}  // namespace

std::string xmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = svgUtf8Length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
      continue;
    }
    if (length > 1) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    const char c = text[i++];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if ((static_cast<unsigned char>(c) < 32 && c != '\t' && c != '\n') || c == 127) {
          out += "\xEF\xBF\xBD";
        } else {
          out += c;
        }
    }
  }
  return out;
}

double textWidth(std::string_view text, double font_size, bool bold) {
  double em = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = std::max<std::size_t>(1, svgUtf8Length(text, i));
    em += charWidth(text, i, length);
    i += length;
  }
  return em * font_size * (bold ? 1.2 : 1.0);
}

std::string fitText(std::string_view text, double max_width, double font_size) {
  if (textWidth(text, font_size) <= max_width) return std::string(text);
  const std::string ellipsis = "\xE2\x80\xA6";
  const double budget = max_width - textWidth(ellipsis, font_size);
  if (budget < 0) return {};
  std::size_t end = 0;
  double used = 0;
  while (end < text.size()) {
    const std::size_t length = std::max<std::size_t>(1, svgUtf8Length(text, end));
    const double w = charWidth(text, end, length) * font_size;
    if (used + w > budget) break;
    used += w;
    end += length;
  }
  return std::string(text.substr(0, end)) + ellipsis;
}

std::vector<double> niceTicks(double low, double high, int count) {
  if (!(high > low) || count < 1) return {low};
  const double raw = (high - low) / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power * 10;
  for (double m : {1.0, 2.0, 2.5, 5.0}) {
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  }
  std::vector<double> ticks;
  for (double t = std::ceil(low / step - 1e-9) * step; t <= high + step * 1e-9; t += step)
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return ticks;
}

std::string formatNumber(double value, int digits) {
  if (std::isnan(value)) return "n/a";
  if (std::isinf(value)) return value > 0 ? "\xE2\x88\x9E" : "-\xE2\x88\x9E";
  char text[48];
  if (std::abs(value) >= 1000 && std::abs(value) < 1e9) {
    std::snprintf(text, sizeof text, "%.0f", value);  // "2110", not "2.11e+03"
  } else {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
  }
  return text;
}

std::string lightColor(const std::string& hex, double white) {
  if (hex.size() != 7 || hex[0] != '#') return hex;
  const auto channel = [&](std::size_t at) {
    const int value = std::stoi(hex.substr(at, 2), nullptr, 16);
    return static_cast<int>(value + (255 - value) * white + 0.5);
  };
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", channel(1), channel(3), channel(5));
  return text;
}

std::string formatBytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (std::abs(bytes) >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  return formatNumber(bytes, 3) + " " + units[u];
}

TimeUnit secondsUnit(double largest) {
  if (largest >= 1) return {"s", 1};
  if (largest >= 1e-3) return {"ms", 1e3};
  return {"\xC2\xB5s", 1e6};
}

std::string formatTime(double value, const TimeUnit& unit) {
  return formatNumber(value * unit.scale, 3) + " " + unit.name;
}

Svg::Svg(double width, double height, std::string_view title)
    : width_(width), height_(height), title_(title) {}

void Svg::rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke,
               double stroke_width, std::string_view tooltip, double corner) {
  body_ += "<rect";
  appendAttribute(body_, "x", x);
  appendAttribute(body_, "y", y);
  appendAttribute(body_, "width", std::max(0.0, w));
  appendAttribute(body_, "height", std::max(0.0, h));
  if (corner > 0) appendAttribute(body_, "rx", corner);
  appendAttribute(body_, "fill", fill);
  appendAttribute(body_, "stroke", stroke);
  if (stroke_width > 0) appendAttribute(body_, "stroke-width", stroke_width);
  appendTooltip(body_, tooltip);
  if (!tooltip.empty()) body_ += "rect>\n";
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width,
               std::string_view dash) {
  body_ += "<line";
  appendAttribute(body_, "x1", x1);
  appendAttribute(body_, "y1", y1);
  appendAttribute(body_, "x2", x2);
  appendAttribute(body_, "y2", y2);
  appendAttribute(body_, "stroke", stroke);
  appendAttribute(body_, "stroke-width", stroke_width);
  if (!dash.empty()) appendAttribute(body_, "stroke-dasharray", dash);
  body_ += "/>\n";
}

void Svg::polygon(const std::vector<double>& points, std::string_view fill, std::string_view stroke,
                  double stroke_width) {
  std::string list;
  char text[48];
  for (std::size_t i = 0; i + 1 < points.size(); i += 2) {
    std::snprintf(text, sizeof text, "%s%.2f,%.2f", i ? " " : "", points[i], points[i + 1]);
    list += text;
  }
  body_ += "<polygon";
  appendAttribute(body_, "points", list);
  appendAttribute(body_, "fill", fill);
  appendAttribute(body_, "stroke", stroke);
  if (stroke_width > 0) appendAttribute(body_, "stroke-width", stroke_width);
  body_ += "/>\n";
}

void Svg::text(double x, double y, std::string_view content, const TextStyle& style) {
  body_ += "<text";
  appendAttribute(body_, "x", x);
  appendAttribute(body_, "y", y);
  appendAttribute(body_, "font-size", style.size);
  appendAttribute(body_, "text-anchor", style.anchor);
  appendAttribute(body_, "fill", style.fill);
  if (style.bold) appendAttribute(body_, "font-weight", "bold");
  if (style.rotate != 0) {
    char transform[96];
    std::snprintf(transform, sizeof transform, "rotate(%.2f %.2f %.2f)", style.rotate, x, y);
    appendAttribute(body_, "transform", std::string_view(transform));
  }
  body_ += ">" + xmlEscape(content) + "</text>\n";
}

void Svg::hatchPattern(std::string_view id, std::string_view color, std::string_view background) {
  defs_ += "<pattern";
  appendAttribute(defs_, "id", id);
  defs_ += " patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" patternTransform=\"rotate(45)\">";
  defs_ += "<rect width=\"6\" height=\"6\"";
  appendAttribute(defs_, "fill", background);
  defs_ += "/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke-width=\"3\"";
  appendAttribute(defs_, "stroke", color);
  defs_ += "/></pattern>\n";
}

std::string Svg::str() const {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"";
  appendAttribute(out, "width", width_);
  appendAttribute(out, "height", height_);
  char box[96];
  std::snprintf(box, sizeof box, "0 0 %.2f %.2f", width_, height_);
  appendAttribute(out, "viewBox", std::string_view(box));
  out += " font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">\n";
  out += "<title>" + xmlEscape(title_) + "</title>\n";
  if (!defs_.empty()) out += "<defs>\n" + defs_ + "</defs>\n";
  out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  out += body_;
  out += "</svg>\n";
  return out;
}

}  // namespace placer::picture
