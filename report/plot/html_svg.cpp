// report/plot/html_svg.cpp - the page's charts as inline SVG (html.hpp).
//
// Hand-drawn rather than a vendored library: a bar chart and a line chart
// with axes are a few hundred lines of arithmetic, and a library would bring
// JavaScript into a page that must read with scripts off and in print.
#include "report/html.hpp"

#include <algorithm>
#include <cmath>

#include "report/units.hpp"

namespace report {

namespace {

constexpr double W = 760, LEFT = 230, RIGHT = 70, ROW = 22, TOP = 30;
// Characters of 11px text that fit left of the bars (LEFT - 6) and right of a
// legend's swatch (W - LEFT - 18), at a capital's 7.5px ("RND4K_Q32T16_READ
// read" is whole); the few wider glyphs (W, CJK) may lose a letter to the edge.
constexpr size_t BAR_LABEL = 28, LEGEND_LABEL = 64;
const char *const PALETTE[] = { "#1f6fb4", "#d9620b", "#2a9d3f", "#c0392b", "#7b52ab",
				"#8c564b", "#d6409f", "#5f6b6d", "#a7a81f", "#17a3b8" };

std::string num(double v)
{
	return chart_number(v);
}

// A label of at most n characters (UTF-8): a longer one keeps its start and
// its end ("... read") around an ellipsis.  Drawn whole, a job's long name ran
// off the chart's edge, the direction after it with it; the bar's tooltip and
// the tables keep the name whole.
std::string clip_label(const std::string &s, size_t n)
{
	std::vector<size_t> starts;	// byte offset of each character
	for (size_t i = 0; i < s.size(); i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			starts.push_back(i);
	if (starts.size() <= n)
		return s;
	size_t head = (n - 1) / 2, tail = n - 1 - head;
	return s.substr(0, starts[head]) + "\u2026" + s.substr(starts[starts.size() - tail]);
}

std::string open_svg(const std::string &id, const std::string &title, double h, const std::string &desc)
{
	return strf("<figure class=\"chart\" id=\"%s\">\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
		    "role=\"img\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		    "aria-labelledby=\"%s-t %s-d\">\n<title id=\"%s-t\">%s</title>\n<desc id=\"%s-d\">%s</desc>\n",
		    id.c_str(), W, h, W, h, id.c_str(), id.c_str(), id.c_str(), html_escape(title).c_str(),
		    id.c_str(), html_escape(desc).c_str()) +
	       strf("<text x=\"%.0f\" y=\"18\" class=\"ct\">%s</text>\n", W / 2, html_escape(title).c_str());
}

std::string close_svg(const std::string &title)
{
	return "</svg>\n<figcaption>" + html_escape(title) + "</figcaption>\n</figure>\n";
}

// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten.
double nice_max(double v)
{
	if (v <= 0)
		return 1;
	double p = std::pow(10, std::floor(std::log10(v)));
	for (double m : { 1.0, 2.0, 5.0, 10.0 })
		if (v <= m * p)
			return m * p;
	return 10 * p;
}

struct axis {
	double lo, hi;
	bool log;
	double map(double v, double a, double b) const
	{
		double t = log ? (std::log10(std::max(v, lo)) - std::log10(lo)) / (std::log10(hi) - std::log10(lo))
			       : (v - lo) / (hi - lo);
		return a + (b - a) * std::clamp(t, 0.0, 1.0);
	}
};

axis y_axis(const std::vector<svg_series> &series, bool log_y)
{
	double lo = INFINITY, hi = 0;
	for (const svg_series &s : series)
		for (auto &p : s.points) {
			hi = std::max(hi, p.second);
			if (p.second > 0)
				lo = std::min(lo, p.second);
		}
	if (!log_y)
		return { 0, nice_max(hi), false };
	if (!std::isfinite(lo))
		lo = 1;
	// Decades within +-300: a denormal (5e-324) rounds down to 10^-324 = 0 and
	// y_grid's ticks (v *= 10 from lo) never got past it, a page that never ended.
	double lo_exp = std::clamp(std::floor(std::log10(lo)), -300.0, 299.0);
	double hi_exp = std::clamp(std::ceil(std::log10(hi)), lo_exp + 1, 300.0);
	return { std::pow(10, lo_exp), std::pow(10, hi_exp), true };
}

axis x_axis(const std::vector<svg_series> &series)
{
	double lo = INFINITY, hi = -INFINITY;
	for (const svg_series &s : series)
		for (auto &p : s.points) {
			lo = std::min(lo, p.first);
			hi = std::max(hi, p.first);
		}
	if (!std::isfinite(lo) || hi <= lo)
		return { 0, std::isfinite(hi) && hi > 0 ? hi : 1, false };
	return { lo, hi, false };
}

std::string y_grid(const axis &y, double x0, double x1, double y0, double y1, std::string (*text)(double))
{
	std::string s;
	std::vector<double> ticks;
	if (y.log) {
		// A tick a decade, or every k-th decade where many would overlap.
		double decades = std::round(std::log10(y.hi) - std::log10(y.lo)), step = std::pow(10, std::ceil(decades / 10));
		for (double v = y.lo; v <= y.hi * 1.0001; v *= step)
			ticks.push_back(v);
	} else
		for (int i = 0; i <= 4; i++)
			ticks.push_back(y.lo + (y.hi - y.lo) * i / 4);
	for (double v : ticks) {
		double py = y.map(v, y0, y1);
		s += strf("<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			  "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			  x0, py, x1, py, x0 - 4, py + 4, (text ? text : num)(v).c_str());
	}
	return s;
}

std::string legend(const std::vector<svg_series> &series, double y)
{
	std::string s;
	for (size_t i = 0; i < series.size(); i++) {
		double ly = y + 16 * (double)i;
		s += strf("<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"4\" fill=\"%s\"/>"
			  "<text class=\"tick\" x=\"%.0f\" y=\"%.0f\">%s</text>\n",
			  LEFT, ly, PALETTE[i % 10], LEFT + 18, ly + 5,
			  html_escape(clip_label(series[i].label, LEGEND_LABEL)).c_str());
	}
	return s;
}

std::string polyline(const svg_series &s, size_t i, const axis &x, const axis &y, double x0, double x1,
		     double y0, double y1)
{
	std::string pts, marks;
	for (size_t k = 0; k < s.points.size(); k++) {
		double px = x.map(s.points[k].first, x0, x1), py = y.map(s.points[k].second, y0, y1);
		pts += strf("%.1f,%.1f ", px, py);
		marks += strf("<circle class=\"mark\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"", px, py,
			      PALETTE[i % 10]);
		marks += k < s.tips.size() ? "><title>" + html_escape(s.tips[k]) + "</title></circle>" : "/>";
	}
	return strf("<g><polyline class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>",
		    PALETTE[i % 10], pts.c_str()) +
	       marks + "</g>\n";
}

// U+202A..U+202E (embeddings, overrides, PDF) and U+2066..U+2069 (isolates):
// one in a job's name reversed the page's own words after it ("job 'a<RLO>'
// failed: error 5" read "job 'a5 rorre :deliaf'", the bar "a read" read "a daer").
bool bidi_control(const std::string &s, size_t i)
{
	if (i + 2 >= s.size() || s[i] != '\xe2')
		return false;
	unsigned char b = (unsigned char)s[i + 1], c = (unsigned char)s[i + 2];
	return (b == 0x80 && c >= 0xaa && c <= 0xae) || (b == 0x81 && c >= 0xa6 && c <= 0xa9);
}

} // namespace

std::string chart_number(double v)
{
	if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-2))
		return strf("%.3g", v);
	return strf(std::fabs(v) >= 100 ? "%.0f" : "%.2f", v);
}

std::string html_escape(const std::string &s)
{
	std::string o;
	for (size_t i = 0; i < s.size(); i++) {
		char c = s[i];
		if (bidi_control(s, i)) {	// shown as a control byte is
			o += '?';
			i += 2;
			continue;
		}
		switch (c) {
		case '&': o += "&amp;"; break;
		case '<': o += "&lt;"; break;
		case '>': o += "&gt;"; break;
		case '"': o += "&quot;"; break;
		case '\'': o += "&#39;"; break;
		default: o += (unsigned char)c < 0x20 && c != '\n' && c != '\t' ? '?' : c;
		}
	}
	return o;
}

std::string svg_bar_chart(const std::string &id, const std::string &title, const std::string &unit,
			  const std::vector<svg_bar> &bars)
{
	double h = TOP + ROW * (double)bars.size() + 30, top = 0;
	for (const svg_bar &b : bars)
		top = std::max(top, b.value);
	axis x{ 0, nice_max(top), false };
	std::string s = open_svg(id, title, h, title + ", one bar per job and direction, in " + unit);
	double x0 = LEFT, x1 = W - RIGHT;
	for (size_t i = 0; i < bars.size(); i++) {
		double y = TOP + ROW * (double)i, len = x.map(bars[i].value, x0, x1) - x0;
		s += strf("<text class=\"tick\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%s</text>"
			  "<rect class=\"bar\" data-key=\"%s\" data-value=\"%.17g\" x=\"%.0f\" y=\"%.0f\" width=\"%.1f\" "
			  "height=\"%.0f\" fill=\"%s\"><title>%s: %s %s</title></rect>"
			  "<text class=\"tick\" x=\"%.1f\" y=\"%.0f\">%s</text>\n",
			  x0 - 6, y + 14, html_escape(clip_label(bars[i].label, BAR_LABEL)).c_str(),
			  html_escape(bars[i].key).c_str(),
			  bars[i].raw, x0, y + 3, std::max(len, 0.5), ROW - 6, PALETTE[i % 10],
			  html_escape(bars[i].label).c_str(), num(bars[i].value).c_str(), unit.c_str(), x0 + len + 4,
			  y + 14, num(bars[i].value).c_str());
	}
	s += strf("<line class=\"axis\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>"
		  "<text class=\"tick\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%s %s</text>\n",
		  x0, TOP - 4, x0, h - 26, x1, h - 8, num(x.hi).c_str(), unit.c_str());
	return s + close_svg(title);
}

std::string svg_line_chart(const std::string &id, const std::string &title, const std::string &x_name,
			   const std::string &y_name, const std::vector<svg_series> &series, bool log_y,
			   const std::vector<std::pair<double, std::string>> &x_ticks,
			   std::pair<double, double> shade, std::string (*y_text)(double))
{
	const double plot_h = 240, h = TOP + plot_h + 40 + 16 * (double)series.size();
	const double x0 = LEFT - 150, x1 = W - RIGHT, y0 = TOP + plot_h, y1 = TOP;
	axis x = x_axis(series), y = y_axis(series, log_y);
	std::string s = open_svg(id, title, h, title + ": " + y_name + " against " + x_name);
	if (shade.second > shade.first)
		s += strf("<rect class=\"shade\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%.0f\"/>\n",
			  x.map(shade.first, x0, x1), y1, x.map(shade.second, x0, x1) - x.map(shade.first, x0, x1),
			  plot_h);
	s += y_grid(y, x0, x1, y0, y1, y_text);
	for (auto &t : x_ticks) {
		// A tick past the data (p99.99 of a percentile_list=50:90 job) was
		// clamped onto the axis's end, every such label drawn over the last.
		double slack = 1e-9 * std::max(1.0, x.hi - x.lo);
		if (t.first < x.lo - slack || t.first > x.hi + slack)
			continue;
		s += strf("<text class=\"tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
			  x.map(t.first, x0, x1), y0 + 16, html_escape(t.second).c_str());
	}
	s += strf("<line class=\"axis\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>"
		  "<line class=\"axis\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>\n"
		  "<text class=\"tick\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%s</text>"
		  "<text class=\"tick\" x=\"%.0f\" y=\"%.0f\">%s</text>\n",
		  x0, y0, x1, y0, x0, y0, x0, y1, x1, y0 + 30, html_escape(x_name).c_str(), x0, y1 - 8,
		  html_escape(y_name).c_str());
	for (size_t i = 0; i < series.size(); i++)
		s += polyline(series[i], i, x, y, x0, x1, y0, y1);
	s += legend(series, y0 + 44);
	return s + close_svg(title);
}

} // namespace report
