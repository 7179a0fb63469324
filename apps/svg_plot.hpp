#ifndef TTGNN_APPS_SVG_PLOT_HPP
#define TTGNN_APPS_SVG_PLOT_HPP
/// \file svg_plot.hpp
/// \brief Line plots as standalone SVG text, without dependencies: one or more panels side by
/// side, each with axes, "nice" ticks and tick labels, axis labels, a title, a legend and
/// optional dashed vertical markers. Used for training curves (`ttgnn train --curve-svg`) and
/// accuracy-vs-homophily plots.

#include <string>
#include <vector>

namespace ttgnn::cli {

/// \brief One line of a panel. Points with a non-finite y break the line.
struct PlotSeries {
  std::string name;
  std::vector<double> x, y;
  std::string color = "#1f77b4";
  bool dashed = false;
  bool markers = false; ///< draw a dot at every point
};

/// \brief One set of axes.
struct PlotPanel {
  std::string title, x_label, y_label;
  std::vector<PlotSeries> series;
  bool fixed_y = false; ///< use [y_min, y_max] instead of the data range
  double y_min = 0, y_max = 1;
  std::vector<double> vlines; ///< dashed vertical markers (e.g. the selected epoch)
  std::string vline_label;    ///< legend text of the markers ("" = none)
  bool legend_bottom = false; ///< legend in the bottom right corner instead of the top right
  /// Legend right of the axes (the panel's plot area narrows): it never covers data.
  bool legend_outside = false;
};

/// \brief Ticks at 1, 2 or 5 times a power of ten covering [lo, hi] (about \p target ticks).
std::vector<double> nice_ticks(double lo, double hi, int target = 6);

/// \brief The SVG document: the panels left to right under a common title.
std::string render_svg(std::string const &title, std::vector<PlotPanel> const &panels,
                       int panel_width = 480, int panel_height = 340);

/// Escapes &, <, >, " for SVG text.
std::string svg_escape(std::string const &text);

} // namespace ttgnn::cli

#endif
