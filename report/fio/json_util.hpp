// report/fio/json_util.hpp - small pieces shared by the JSON writers and the schema.
//
// Objects keep insertion order (nlohmann::ordered_json) so the layout reads
// like fio's; values are typed as fio types them.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/plan.h"
#include "engine/results.h"

namespace report {

using ojson = nlohmann::ordered_json;

// fio prints floats with "%f": six decimals.  Rounding to the same six keeps
// the values equal to fio's and the output stable; NaN and infinity (which JSON
// cannot hold) become 0.
inline double f6(double v)
{
	char buf[64];

	if (!std::isfinite(v))
		return 0.0;
	// fio prints "%f": the exact value rounded half to even (2 of 1024 depths,
	// 0.1953125%, is 0.195312), which rounding v * 1e6 away from zero is not.
	std::snprintf(buf, sizeof(buf), "%.6f", v);
	double r = std::strtod(buf, nullptr);
	return r == 0.0 ? 0.0 : r;	// no "-0.0"
}

// Key/value echo of options: duplicate keys collapse to one, the last value
// wins, the key keeps the place of its first appearance.
ojson options_object(const plan_kv *kv, uint32_t n);

// The document as fio prints it: `"key" : value`, two-space indentation,
// floats with six decimals (json_text.cpp).  No trailing newline.
std::string fio_json_text(const ojson &v);

// {min, max, mean, stddev, N[, percentile][, bins]} in ns, fio's latency object.
ojson lat_object(const res_lat &l, const double *pct, size_t nr_pct, bool percentiles, bool bins);

} // namespace report
