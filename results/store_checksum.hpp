// results/store_checksum.hpp - the checksum of the rows `results summary`
// reads (runs.summary_checksum, schema 5), as store_checksum.cpp keeps it at
// a save and store_summary.cpp checks it while it reads the same rows for the
// summary: each row hashed as it is taken, so the check costs no second read
// of any row.  Both files use these queries and this hash, so the sum a save
// keeps and the sum summary adds up are of the same rows and columns.
#pragma once

#include <cstdint>
#include <string>

#include <sqlite3.h>

namespace resdb {
namespace summed {

// The tables of the sum, in their order there (a row's hash is seeded with it).
enum table { facts = 0, figures = 1, buckets = 2 };

// The figures columns hashed, in this order after the run that comes first in
// each query: the places a reader takes their values from.
enum figure_column {
	fig_id = 1,
	fig_job = 4,
	fig_ddir = 5,
	fig_io_bytes = 7,
	fig_ios = 8,
	fig_runtime_s = 9,
	fig_bw_bytes = 10,
	fig_iops = 11,
	fig_p99_ns = 14,
};
// facts: run, then run_id, name, value
enum fact_column { fact_name = 2, fact_value = 3 };
// buckets: figure, then figure_id, lat_ns, count
enum bucket_column { bucket_lat_ns = 2, bucket_count = 3 };

// The query of a table's rows, each starting with its run (or, for buckets,
// its figure): facts and figures of every run (one_run false) or of the run
// ?1; buckets always of one figure, ?1 (summary reads only its clones').
std::string rows_sql(table t, bool one_run);

// A row's hash (every column after the first), as the sum adds it.
uint64_t row_hash(sqlite3_stmt *q, table t, std::string &buf);

// A sum as runs.checksum and runs.summary_checksum keep it ("xxh3:" and 16 hex digits).
std::string checksum_text(uint64_t sum);

} // namespace summed
} // namespace resdb
