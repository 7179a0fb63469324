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

void panel_svg(std::string &out, PlotPanel const &p, double ox, double oy, double w, double h) {
  // Legend items first: a legend outside the axes takes its width from the right margin.
  std::vector<std::pair<std::string, PlotSeries const *>> items;
  for (auto const &s : p.series)
    items.emplace_back(s.name, &s);
  if (!p.vline_label.empty() && !p.vlines.empty())
    items.emplace_back(p.vline_label, nullptr);
  std::size_t longest = 0;
  for (auto const &it : items)
    longest = std::max(longest, it.first.size());
  const double lw = 34 + 6.2 * static_cast<double>(longest), lh = 16 * items.size() + 8;
  const double left = 62, right = p.legend_outside ? lw + 20 : 14, top = 30, bottom = 46;
  const double px = ox + left, py = oy + top, pw = w - left - right, ph = h - top - bottom;
  Range xr, yr;
  for (auto const &s : p.series)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.y[i])) {
        xr.add(s.x[i]);
        yr.add(s.y[i]);
      }
  xr.settle();
  if (p.fixed_y) {
    yr.lo = p.y_min;
    yr.hi = p.y_max;
  }
  yr.settle();
  const auto xt = nice_ticks(xr.lo, xr.hi, 6), yt = nice_ticks(yr.lo, yr.hi, 6);
  if (!p.fixed_y) { // extend the range to the outer ticks
    yr.lo = std::min(yr.lo, yt.front());
    yr.hi = std::max(yr.hi, yt.back());
  }
  auto X = [&](double x) { return px + (x - xr.lo) / (xr.hi - xr.lo) * pw; };
  auto Y = [&](double y) { return py + ph - (y - yr.lo) / (yr.hi - yr.lo) * ph; };
  out += "<g font-family=\"sans-serif\" font-size=\"11\">\n";
  out += "<text x=\"" + fmt(px + pw / 2) + "\" y=\"" + fmt(oy + 18) +
         "\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">" + svg_escape(p.title) +
         "</text>\n";
  out += "<rect x=\"" + fmt(px) + "\" y=\"" + fmt(py) + "\" width=\"" + fmt(pw) + "\" height=\"" +
         fmt(ph) + "\" fill=\"white\" stroke=\"#333\"/>\n";
  const double xstep = xt.size() > 1 ? xt[1] - xt[0] : 1, ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
  for (double t : xt) {
    if (t < xr.lo - 1e-9 * xstep || t > xr.hi + 1e-9 * xstep)
      continue;
    out += "<line x1=\"" + fmt(X(t)) + "\" y1=\"" + fmt(py + ph) + "\" x2=\"" + fmt(X(t)) +
           "\" y2=\"" + fmt(py + ph + 5) + "\" stroke=\"#333\"/>\n";
    out += "<line x1=\"" + fmt(X(t)) + "\" y1=\"" + fmt(py) + "\" x2=\"" + fmt(X(t)) + "\" y2=\"" +
           fmt(py + ph) + "\" stroke=\"#ddd\" stroke-width=\"0.5\"/>\n";
    out += "<text x=\"" + fmt(X(t)) + "\" y=\"" + fmt(py + ph + 17) + "\" text-anchor=\"middle\">" +
           tick_label(t, xstep) + "</text>\n";
  }
  for (double t : yt) {
    if (t < yr.lo - 1e-9 * ystep || t > yr.hi + 1e-9 * ystep)
      continue;
    out += "<line x1=\"" + fmt(px - 5) + "\" y1=\"" + fmt(Y(t)) + "\" x2=\"" + fmt(px) +
           "\" y2=\"" + fmt(Y(t)) + "\" stroke=\"#333\"/>\n";
    out += "<line x1=\"" + fmt(px) + "\" y1=\"" + fmt(Y(t)) + "\" x2=\"" + fmt(px + pw) +
           "\" y2=\"" + fmt(Y(t)) + "\" stroke=\"#ddd\" stroke-width=\"0.5\"/>\n";
    out += "<text x=\"" + fmt(px - 8) + "\" y=\"" + fmt(Y(t) + 4) + "\" text-anchor=\"end\">" +
           tick_label(t, ystep) + "</text>\n";
  }
  out += "<text x=\"" + fmt(px + pw / 2) + "\" y=\"" + fmt(oy + h - 8) +
         "\" text-anchor=\"middle\">" + svg_escape(p.x_label) + "</text>\n";
  out += "<text transform=\"translate(" + fmt(ox + 14) + "," + fmt(py + ph / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + svg_escape(p.y_label) + "</text>\n";
  for (double v : p.vlines)
    if (v >= xr.lo && v <= xr.hi)
      out += "<line x1=\"" + fmt(X(v)) + "\" y1=\"" + fmt(py) + "\" x2=\"" + fmt(X(v)) +
             "\" y2=\"" + fmt(py + ph) + "\" stroke=\"#888\" stroke-dasharray=\"4,3\"/>\n";
  // Clip the lines to the plot area.
  static int clip_id = 0;
  const std::string clip = "clip" + std::to_string(++clip_id);
  out += "<clipPath id=\"" + clip + "\"><rect x=\"" + fmt(px) + "\" y=\"" + fmt(py) +
         "\" width=\"" + fmt(pw) + "\" height=\"" + fmt(ph) + "\"/></clipPath>\n";
  for (auto const &s : p.series) {
    std::string d;
    bool pen = false;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i]) || !std::isfinite(s.x[i])) {
        pen = false;
        continue;
      }
      d += (pen ? "L" : "M") + fmt(X(s.x[i])) + "," + fmt(Y(s.y[i])) + " ";
      pen = true;
    }
    out += "<path clip-path=\"url(#" + clip + ")\" d=\"" + d + "\" fill=\"none\" stroke=\"" +
           s.color + "\" stroke-width=\"1.6\"" + (s.dashed ? " stroke-dasharray=\"6,3\"" : "") +
           "/>\n";
    if (s.markers)
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
        if (std::isfinite(s.y[i]))
          out += "<circle cx=\"" + fmt(X(s.x[i])) + "\" cy=\"" + fmt(Y(s.y[i])) +
                 "\" r=\"2.5\" fill=\"" + s.color + "\"/>\n";
  }
  const double lx = p.legend_outside ? px + pw + 10 : px + pw - lw - 6;
  const double ly = p.legend_bottom ? py + ph - lh - 6 : py + 6;
  out += "<rect x=\"" + fmt(lx) + "\" y=\"" + fmt(ly) + "\" width=\"" + fmt(lw) + "\" height=\"" +
         fmt(lh) + "\" fill=\"white\" fill-opacity=\"0.85\" stroke=\"#999\"/>\n";
  for (std::size_t i = 0; i < items.size(); ++i) {
    const double y = ly + 14 + 16 * static_cast<double>(i);
    const std::string color = items[i].second ? items[i].second->color : "#888";
    const bool dashed = items[i].second ? items[i].second->dashed : true;
    out += "<line x1=\"" + fmt(lx + 6) + "\" y1=\"" + fmt(y - 4) + "\" x2=\"" + fmt(lx + 26) +
           "\" y2=\"" + fmt(y - 4) + "\" stroke=\"" + color + "\" stroke-width=\"2\"" +
           (dashed ? " stroke-dasharray=\"4,3\"" : "") + "/>\n";
    out += "<text x=\"" + fmt(lx + 30) + "\" y=\"" + fmt(y) + "\">" + svg_escape(items[i].first) +
           "</text>\n";
  }
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
