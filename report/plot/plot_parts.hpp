// report/plot/plot_parts.hpp - the pieces every `ioplan plot` chart is made of,
// shared by the charts of a JSON result (plot.cpp) and of fio's log files
// (plot_logs.cpp): data blocks, curves, panels, the script around them and
// running gnuplot on it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/plot/plot.hpp"

namespace report::plotting {

// One line (or point set) of a panel: its data block and how to draw it.
struct curve {
	std::string block;	// "$d3"
	std::string title;
	std::string style;	// "with lines", "with points pt 7 ps 0.5 axes x1y2", ...
};

struct panel {
	std::string setup;	// title, labels, axes
	std::vector<curve> curves;
};

// The script's named data blocks, numbered as they are added.
class builder {
public:
	std::string blocks;
	int next = 0;

	std::string add(const std::vector<std::pair<double, double>> &pts);
};

// A gnuplot single-quoted string: a quote is written twice.
std::string quoted(const std::string &s);

// The setup of a panel of values over time in seconds.
std::string time_setup(const std::string &title, const std::string &xlabel, const std::string &ylabel);

// The whole script: terminal, data, the panels that have curves one under
// the other.  False with *err when no panel has one (err_nothing) or the
// chart's extension is neither .svg nor .png.
bool assemble(const builder &b, const std::vector<panel> &panels, const plot_options &o,
	      const char *err_nothing, std::string *script, std::string *err);

// Writes the script next to the chart and runs gnuplot on it (plot.hpp's plot()).
bool render(const std::string &script, const plot_options &o, std::string *err);

} // namespace report::plotting
