// parser/file_spellings.cpp - one file named two ways is one file of the plan
// (file_spellings.hpp says why).
#include "parser/file_spellings.hpp"

#include <filesystem>
#include <system_error>

namespace parser {

std::string file_spellings::key(const std::string &path)
{
    namespace fs = std::filesystem;
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name.empty() || name == "." || name == "..")
        return path;
    auto it = dirs_.find(dir);
    if (it == dirs_.end()) {
        // One resolution per directory as written: a job's files share theirs.
        std::error_code ec;
        fs::path abs = fs::absolute(dir, ec);
        fs::path real = ec ? fs::path(dir) : fs::weakly_canonical(abs, ec);
        if (ec)
            real = abs.lexically_normal();
        it = dirs_.emplace(dir, real.string()).first;
    }
    return it->second + (it->second.empty() || it->second.back() != '/' ? "/" : "") + name;
}

const std::string &file_spellings::of(const std::string &path)
{
    return first_.emplace(key(path), path).first->second;
}

} // namespace parser
