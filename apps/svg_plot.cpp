#include "apps/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ttgnn::cli {

namespace {

std::string fmt(double v, int precision = 2) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

/// Tick label with just enough decimals for the tick step.
std::string tick_label(double v, double step) {
  int decimals = 0;
  if (step > 0 && step < 1)
    decimals = std::min(6, static_cast<int>(std::ceil(-std::log10(step) - 1e-9)));
  if (std::fabs(v) < step * 1e-9)
    v = 0;
  char buf[32];
  if (std::fabs(v) >= 1e5 || (v != 0 && std::fabs(v) < 1e-4))
    std::snprintf(buf, sizeof buf, "%.1e", v);
  else
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  void settle() {
    if (!(lo <= hi)) {
      lo = 0;
      hi = 1;
    } else if (lo == hi) {
      const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
      lo -= pad;
      hi += pad;
    }
  }
};

// Layout of a panel, in SVG user units (pixels at 100%), sized for 11px sans-serif text.
constexpr double kMarginLeft = 62;       ///< room for y tick labels and the rotated y label
constexpr double kMarginRight = 14;      ///< keeps the last x tick label inside the panel
constexpr double kMarginTop = 30;        ///< room for the panel title
constexpr double kMarginBottom = 46;     ///< room for x tick labels and the x label
constexpr double kLegendGap = 20;        ///< right margin added around a legend outside the axes
constexpr double kLegendSwatch = 34;     ///< legend width besides the text: line sample and padding
constexpr double kLegendCharWidth = 6.2; ///< average width of an 11px sans-serif character
constexpr double kLegendRow = 16;        ///< height of one legend line
constexpr double kLegendPad = 8;         ///< vertical padding of the legend box
constexpr int kTickTarget = 6;           ///< about this many ticks per axis
constexpr double kTickSlack = 1e-9; ///< ticks this fraction of a step outside the range still count

/// The legend lines (a series, or the vertical markers when null) and the box they need.
struct Legend {
  std::vector<std::pair<std::string, PlotSeries const *>> items;
  double w = 0, h = 0;
};

Legend panel_legend(PlotPanel const &p) {
  Legend l;
  for (auto const &s : p.series)
    l.items.emplace_back(s.name, &s);
  if (!p.vline_label.empty() && !p.vlines.empty())
    l.items.emplace_back(p.vline_label, nullptr);
  std::size_t longest = 0;
  for (auto const &it : l.items)
    longest = std::max(longest, it.first.size());
  l.w = kLegendSwatch + kLegendCharWidth * static_cast<double>(longest);
  l.h = kLegendRow * static_cast<double>(l.items.size()) + kLegendPad;
  return l;
}

/// The plot area of a panel, its data ranges and ticks, and the data-to-SVG mapping.
struct Frame {
  double px = 0, py = 0, pw = 0, ph = 0;
  Range xr, yr;
  std::vector<double> xt, yt;
  double X(double x) const { return px + (x - xr.lo) / (xr.hi - xr.lo) * pw; }
  double Y(double y) const { return py + ph - (y - yr.lo) / (yr.hi - yr.lo) * ph; }
};

Frame panel_frame(PlotPanel const &p, Legend const &legend, double ox, double oy, double w,
                  double h) {
  Frame f;
  const double right = p.legend_outside ? legend.w + kLegendGap : kMarginRight;
  f.px = ox + kMarginLeft;
  f.py = oy + kMarginTop;
  f.pw = w - kMarginLeft - right;
  f.ph = h - kMarginTop - kMarginBottom;
  for (auto const &s : p.series)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.y[i])) {
        f.xr.add(s.x[i]);
        f.yr.add(s.y[i]);
      }
  f.xr.settle();
  if (p.fixed_y) {
    f.yr.lo = p.y_min;
    f.yr.hi = p.y_max;
  }
  f.yr.settle();
  f.xt = nice_ticks(f.xr.lo, f.xr.hi, kTickTarget);
  f.yt = nice_ticks(f.yr.lo, f.yr.hi, kTickTarget);
  if (!p.fixed_y) { // extend the range to the outer ticks
    f.yr.lo = std::min(f.yr.lo, f.yt.front());
    f.yr.hi = std::max(f.yr.hi, f.yt.back());
  }
  return f;
}

double tick_step(std::vector<double> const &ticks) {
  return ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
}

/// Tick marks, grid lines and tick labels of both axes.
void ticks_svg(std::string &out, Frame const &f) {
  const double xstep = tick_step(f.xt), ystep = tick_step(f.yt);
  for (double t : f.xt) {
    if (t < f.xr.lo - kTickSlack * xstep || t > f.xr.hi + kTickSlack * xstep)
      continue;
    const double x = f.X(t);
    out += "<line x1=\"" + fmt(x) + "\" y1=\"" + fmt(f.py + f.ph) + "\" x2=\"" + fmt(x) +
           "\" y2=\"" + fmt(f.py + f.ph + 5) + "\" stroke=\"#333\"/>\n";
    out += "<line x1=\"" + fmt(x) + "\" y1=\"" + fmt(f.py) + "\" x2=\"" + fmt(x) + "\" y2=\"" +
           fmt(f.py + f.ph) + "\" stroke=\"#ddd\" stroke-width=\"0.5\"/>\n";
    out += "<text x=\"" + fmt(x) + "\" y=\"" + fmt(f.py + f.ph + 17) +
           "\" text-anchor=\"middle\">" + tick_label(t, xstep) + "</text>\n";
  }
  for (double t : f.yt) {
    if (t < f.yr.lo - kTickSlack * ystep || t > f.yr.hi + kTickSlack * ystep)
      continue;
    const double y = f.Y(t);
    out += "<line x1=\"" + fmt(f.px - 5) + "\" y1=\"" + fmt(y) + "\" x2=\"" + fmt(f.px) +
           "\" y2=\"" + fmt(y) + "\" stroke=\"#333\"/>\n";
    out += "<line x1=\"" + fmt(f.px) + "\" y1=\"" + fmt(y) + "\" x2=\"" + fmt(f.px + f.pw) +
           "\" y2=\"" + fmt(y) + "\" stroke=\"#ddd\" stroke-width=\"0.5\"/>\n";
    out += "<text x=\"" + fmt(f.px - 8) + "\" y=\"" + fmt(y + 4) + "\" text-anchor=\"end\">" +
           tick_label(t, ystep) + "</text>\n";
  }
}

/// Axis labels and the dashed vertical markers inside the x range.
void labels_svg(std::string &out, PlotPanel const &p, Frame const &f, double ox, double oy,
                double h) {
  out += "<text x=\"" + fmt(f.px + f.pw / 2) + "\" y=\"" + fmt(oy + h - 8) +
         "\" text-anchor=\"middle\">" + svg_escape(p.x_label) + "</text>\n";
  out += "<text transform=\"translate(" + fmt(ox + 14) + "," + fmt(f.py + f.ph / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + svg_escape(p.y_label) + "</text>\n";
  for (double v : p.vlines)
    if (v >= f.xr.lo && v <= f.xr.hi)
      out += "<line x1=\"" + fmt(f.X(v)) + "\" y1=\"" + fmt(f.py) + "\" x2=\"" + fmt(f.X(v)) +
             "\" y2=\"" + fmt(f.py + f.ph) + "\" stroke=\"#888\" stroke-dasharray=\"4,3\"/>\n";
}

/// One series: its line (broken at non-finite points, clipped to \p clip) and its markers.
void series_svg(std::string &out, PlotSeries const &s, Frame const &f, std::string const &clip) {
  std::string d;
  bool pen = false;
  for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
    if (!std::isfinite(s.y[i]) || !std::isfinite(s.x[i])) {
      pen = false;
      continue;
    }
    d += (pen ? "L" : "M") + fmt(f.X(s.x[i])) + "," + fmt(f.Y(s.y[i])) + " ";
    pen = true;
  }
  out += "<path clip-path=\"url(#" + clip + ")\" d=\"" + d + "\" fill=\"none\" stroke=\"" +
         s.color + "\" stroke-width=\"1.6\"" + (s.dashed ? " stroke-dasharray=\"6,3\"" : "") +
         "/>\n";
  if (s.markers)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.y[i]))
        out += "<circle cx=\"" + fmt(f.X(s.x[i])) + "\" cy=\"" + fmt(f.Y(s.y[i])) +
               "\" r=\"2.5\" fill=\"" + s.color + "\"/>\n";
}

/// The lines of every series, clipped to the plot area (a clip path of its own per panel).
void all_series_svg(std::string &out, PlotPanel const &p, Frame const &f) {
  static int clip_id = 0;
  const std::string clip = "clip" + std::to_string(++clip_id);
  out += "<clipPath id=\"" + clip + "\"><rect x=\"" + fmt(f.px) + "\" y=\"" + fmt(f.py) +
         "\" width=\"" + fmt(f.pw) + "\" height=\"" + fmt(f.ph) + "\"/></clipPath>\n";
  for (auto const &s : p.series)
    series_svg(out, s, f, clip);
}

void legend_svg(std::string &out, PlotPanel const &p, Legend const &l, Frame const &f) {
  const double lx = p.legend_outside ? f.px + f.pw + 10 : f.px + f.pw - l.w - 6;
  const double ly = p.legend_bottom ? f.py + f.ph - l.h - 6 : f.py + 6;
  out += "<rect x=\"" + fmt(lx) + "\" y=\"" + fmt(ly) + "\" width=\"" + fmt(l.w) + "\" height=\"" +
         fmt(l.h) + "\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#999\"/>\n";
  for (std::size_t i = 0; i < l.items.size(); ++i) {
    const double y = ly + 14 + kLegendRow * static_cast<double>(i);
    PlotSeries const *s = l.items[i].second;
    const std::string color = s ? s->color : "#888";
    const bool dashed = s ? s->dashed : true;
    out += "<line x1=\"" + fmt(lx + 6) + "\" y1=\"" + fmt(y - 4) + "\" x2=\"" + fmt(lx + 26) +
           "\" y2=\"" + fmt(y - 4) + "\" stroke=\"" + color + "\" stroke-width=\"2\"" +
           (dashed ? " stroke-dasharray=\"4,3\"" : "") + "/>\n";
    out += "<text x=\"" + fmt(lx + 30) + "\" y=\"" + fmt(y) + "\">" + svg_escape(l.items[i].first) +
           "</text>\n";
  }
}

void panel_svg(std::string &out, PlotPanel const &p, double ox, double oy, double w, double h) {
  // Legend first: a legend outside the axes takes its width from the right margin.
  const Legend legend = panel_legend(p);
  const Frame f = panel_frame(p, legend, ox, oy, w, h);
  out += "<g font-family=\"sans-serif\" font-size=\"11\">\n";
  out += "<text x=\"" + fmt(f.px + f.pw / 2) + "\" y=\"" + fmt(oy + 18) +
         "\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">" + svg_escape(p.title) +
         "</text>\n";
  out += "<rect x=\"" + fmt(f.px) + "\" y=\"" + fmt(f.py) + "\" width=\"" + fmt(f.pw) +
         "\" height=\"" + fmt(f.ph) + "\" fill=\"white\" stroke=\"#333\"/>\n";
  ticks_svg(out, f);
  labels_svg(out, p, f, ox, oy, h);
  all_series_svg(out, p, f);
  legend_svg(out, p, legend, f);
  out += "</g>\n";
}

} // namespace

std::string svg_escape(std::string const &text) {
  std::string out;
  for (char c : text) {
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
    default:
      out += c;
    }
  }
  return out;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
    return {lo};
  const double raw = (hi - lo) / std::max(1, target - 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / mag;
  const double step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  std::vector<double> ticks;
  const double first = std::floor(lo / step + 1e-9) * step;
  for (double t = first; t <= hi + step * (1 - 1e-9) && ticks.size() < 100; t += step)
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  return ticks;
}

std::string render_svg(std::string const &title, std::vector<PlotPanel> const &panels,
                       int panel_width, int panel_height) {
  const double head = title.empty() ? 0 : 28;
  const double width = panel_width * static_cast<double>(std::max<std::size_t>(1, panels.size()));
  const double height = panel_height + head;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    fmt(width, 0) + "\" height=\"" + fmt(height, 0) + "\" viewBox=\"0 0 " +
                    fmt(width, 0) + " " + fmt(height, 0) + "\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (!title.empty())
    out += "<text x=\"" + fmt(width / 2) +
           "\" y=\"20\" text-anchor=\"middle\" font-family=\"sans-serif\" font-size=\"14\">" +
           svg_escape(title) + "</text>\n";
  for (std::size_t i = 0; i < panels.size(); ++i)
    panel_svg(out, panels[i], panel_width * static_cast<double>(i), head, panel_width,
              panel_height);
  return out + "</svg>\n";
}

} // namespace ttgnn::cli
