// cli/log_inflate.hpp - --inflate-log: fio's compressed log files (.log.fz) as text.
//
// fio's log_store_compressed writes its binary samples deflated; fio
// --inflate-log=FILE prints them as the log's text lines.  ioplan writes the
// same files (engine/logs/log_writer.c), so it reads both its own and fio's.
#pragma once

#include <cstdio>
#include <string>

namespace cli {

// The text lines of the compressed log at path, at most max_bytes of them;
// false with why in err.
bool inflate_log_text(const std::string &path, size_t max_bytes, std::string *text, std::string *err);

// Prints the text lines of the compressed log at path to out: 0, or 1 with a
// message naming the file on stderr (as fio's exit status).
int inflate_log(const std::string &path, FILE *out);

} // namespace cli
