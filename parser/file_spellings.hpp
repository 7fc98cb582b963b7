// parser/file_spellings.hpp - one file named two ways is one file of the plan.
//
// A job file may name the same file differently in two jobs: directory=dir with
// filename=m in one, filename=dir/m, ./dir/m or an absolute path in another.
// fio opens the one file either way: the second job finds what the first one's
// setup left.  The plan, the layout and the preflight know a file by its path,
// so two spellings made two files, and the second one's layout found the first
// one's file "appeared after the preflight" and refused it.  Each path is
// spelled in the plan as the file was first named; what a report shows as fio's
// name (plan_file.fio_name) keeps the job's own spelling.
#pragma once

#include <string>
#include <unordered_map>

namespace parser {

class file_spellings {
public:
    // The spelling of path the plan uses: the first one given for its file.
    const std::string &of(const std::string &path);

private:
    // The file's directory, symbolic links resolved where it exists, then its name:
    // the last component stays as written (a link to a file is another name).
    std::string key(const std::string &path);
    std::unordered_map<std::string, std::string> first_;  // key -> first spelling
    std::unordered_map<std::string, std::string> dirs_;   // directory as written -> resolved
};

} // namespace parser
