// parser/compound_options.hpp - appliers of the options whose values are a
// small language of their own, more than a line of the option table
// (parser/options.cpp names them in its entries).
#pragma once

#include <string>
#include <vector>

#include "parser/convert.hpp"

namespace parser {

void set_rw(job_spec &j, const option &o, const std::string &v);
void set_random_distribution(job_spec &j, const option &o, const std::string &v);
void set_zones(job_spec &j, const std::vector<std::string> &parts);
void set_bssplit(job_spec &j, const option &o, const std::string &v);
void set_percentiles(job_spec &j, const option &o, const std::string &v);
void add_files(job_spec &j, const std::vector<std::string> &names);
void set_opendir(job_spec &j, const option &o, const std::string &v);
void set_latency_percentile(job_spec &j, const option &o, const std::string &v);
void set_ioengine(job_spec &j, const option &o, const std::string &v);
void set_ignore_error(job_spec &j, const option &o, const std::string &v);
void set_numa_mem_policy(job_spec &j, const option &o, const std::string &v);
void set_steadystate(job_spec &j, const option &o, const std::string &v);
void set_sync_file_range(job_spec &j, const option &o, const std::string &v);

} // namespace parser
