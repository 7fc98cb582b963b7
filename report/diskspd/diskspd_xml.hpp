// report/diskspd/diskspd_xml.hpp - the elements of DISKSPD's XML document that
// diskspd_xml.cpp assembles and that have a file of their own: <Profile>
// (diskspd_xml_profile.cpp), <Iops> (diskspd_xml_iops.cpp) and a target's
// <Distribution> (diskspd_distribution.cpp).  Internal to
// report/; the XML writing helpers are report/diskspd/xml_writer.hpp's.
#pragma once

#include <ostream>
#include <vector>

#include "report/diskspd/diskspd_model.hpp"
#include "report/diskspd/xml_writer.hpp"

namespace report::diskspd::xml {

// The helpers, unqualified, as in the rest of the DISKSPD XML writer.
using namespace report::xml;

// <Iops>: IOPS standard deviations and the per-interval buckets of rows merged.
void iops(std::ostream &out, int depth, const std::vector<const row *> &rows, const options &o);

// <Profile>: the parameters, read back from the plan.
void profile(std::ostream &out, const plan &p, const options &o);

// A <Target>'s <Distribution>: the ranges its offsets were drawn from (diskspd_distribution.cpp).
void effective_distribution(std::ostream &out, int depth, const res_zones &z);

} // namespace report::diskspd::xml
