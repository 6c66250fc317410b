// A small SVG writer for the pictures onnx-placer draws itself (the timeline, compare's charts): a
// document of rectangles, lines, polygons and text, with every string escaped for XML, and the
// helpers a layout needs to keep labels apart: an estimate of a text's width in a sans-serif font,
// text cut to a width, "nice" axis ticks and numbers with units.
//
// Invariants: str() is always well-formed XML (every attribute and text escaped; bytes that are not
// valid UTF-8 and control characters are replaced), and it carries a <title> for the document.
// Width estimates are upper bounds for DejaVu Sans, the font rsvg-convert and browsers on Debian fall
// back to, so that labels laid out with them do not overlap.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace placer::picture {

// Text made safe inside an XML attribute value or element: & < > " ' escaped, control characters
// (except tab and newline) and bytes that are not valid UTF-8 replaced by U+FFFD.
std::string xmlEscape(std::string_view text);

// The width in pixels that `text` takes at `font_size` pixels in a sans-serif font (an upper bound
// for DejaVu Sans; `bold` adds 20%).
double textWidth(std::string_view text, double font_size, bool bold = false);

// `text` cut to at most `max_width` pixels at `font_size`, ending in "…" when cut (whole UTF-8
// characters only). Empty when not even "…" fits.
std::string fitText(std::string_view text, double max_width, double font_size);

// Up to about `count` round tick values (1, 2, 2.5 or 5 times a power of ten) covering [low, high].
std::vector<double> niceTicks(double low, double high, int count);

// A number with `digits` significant digits, without trailing zeros ("12.5", "0.003", "2110", "1.2e+09";
// from 1000 to 1e9 every integer digit is kept).
std::string formatNumber(double value, int digits = 3);

// `hex` ("#4e79a7") mixed with white in the proportion `white` (0: the colour, 1: white).
std::string lightColor(const std::string& hex, double white);

// Bytes as "512 B", "1.5 KB", "12 MB", "3.1 GB" (powers of 1000).
std::string formatBytes(double bytes);

// A time axis's unit: seconds shown in s, ms or µs (whichever keeps `largest` between 1 and 1000), or
// the workload's own unit (`scale` 1, `name` as given).
struct TimeUnit {
  std::string name;  // "ms", "µs", "s", or e.g. "units"
  double scale = 1;  // value in this unit = seconds (or the workload's unit) * scale
};
TimeUnit secondsUnit(double largest);
// A time in `unit`: "12.5 ms".
std::string formatTime(double value, const TimeUnit& unit);

struct TextStyle {
  double size = 12;
  std::string anchor = "start";  // start, middle, end
  std::string fill = "#222222";
  bool bold = false;
  double rotate = 0;  // degrees, about the text's anchor point
};

// An SVG document of a fixed size. Elements are drawn in the order they are added.
class Svg {
 public:
  Svg(double width, double height, std::string_view title);

  double width() const { return width_; }
  double height() const { return height_; }

  // `tooltip` (optional) becomes the element's <title>, shown on hover by browsers.
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view stroke = "none",
            double stroke_width = 0, std::string_view tooltip = {}, double corner = 0);
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double stroke_width = 1,
            std::string_view dash = {});
  // A closed polygon through `points` (x0, y0, x1, y1, ...).
  void polygon(const std::vector<double>& points, std::string_view fill, std::string_view stroke = "none",
               double stroke_width = 0);
  void text(double x, double y, std::string_view content, const TextStyle& style = {});
  // A hatched pattern `id` (diagonal lines of `color` on `background`) that a fill can name as
  // "url(#id)".
  void hatchPattern(std::string_view id, std::string_view color, std::string_view background);

  // The document: XML declaration, <svg> with viewBox, <title>, the white background, the elements.
  std::string str() const;

 private:
  double width_, height_;
  std::string title_;
  std::string defs_;
  std::string body_;
};

}  // namespace placer::picture
