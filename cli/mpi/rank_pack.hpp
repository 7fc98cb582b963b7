// cli/mpi/rank_pack.hpp - the packed lists of a rank file: histograms and
// per-interval series as base64 of LEB128 varints (rank_file.hpp's format).
//
// They are most of a long run's rank file, and one JSON number per word made
// reading it slow; the packing is its own concept, apart from which fields a
// rank file holds (rank_file.cpp) and how the document is read (rank_json).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/results.h"

namespace cli {

// A series' samples, each word as its change from the sample before.
std::string samples_pack(const res_sample *items, uint32_t nr);
// The samples samples_pack wrote, into *items (malloc'ed; the caller frees it,
// whole or not) and *nr: "" or why the text is not such samples.
std::string samples_unpack(std::string_view text, res_sample **items, uint32_t *nr);

// A histogram of RES_HIST_NR buckets: its non-zero buckets only.
std::string hist_pack(const uint64_t *h);
// The buckets hist_pack wrote, into h (RES_HIST_NR zeroed buckets): "" or why
// the text is not such buckets.
std::string hist_unpack(std::string_view text, uint64_t *h);

} // namespace cli
