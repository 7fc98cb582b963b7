// cli/fio_said.cpp - where the lines fio 3.33 prints as it reads the jobs go.
//
// fio's log_info writes to its output as it stands: stdout until it reaches
// --output in argv (it opens the file there, before it reads the job files),
// the file after.  And it adds a command-line job, printing its banner line if
// the output format then includes normal, when it reaches the next --name: a
// later --output-format=json does not take that line back.
#include "cli/fio_said.hpp"

#include <algorithm>
#include <string>

#include "cli/output.hpp"
#include "report/report.hpp"

namespace cli {

namespace {

// Whether normal output is on at argv index `at` (fio's default until a format flag).
bool normal_at(const args &a, int at)
{
    bool normal = true;
    for (const auto &f : a.format_at)
        if (f.first < at)
            normal = f.second;
    return normal;
}

// The argv index where fio adds command-line job k (the next --name after its
// own), or 0 for the last one, added after every argument.
int added_at(const args &a, uint32_t k)
{
    int own = a.req.cli_jobs[k].header_loc.col;
    auto next = std::upper_bound(a.name_at.begin(), a.name_at.end(), own);
    return next == a.name_at.end() ? 0 : *next;
}

// Command-line job k's banner line where fio prints it, if fio adds the job
// before the last argument (otherwise the opening prints it, as any job's).
void say_banner(const plan &p, uint32_t k, args &a, std::string *now)
{
    int at = added_at(a, k);
    const plan_job *j = plan_job_at(&p, k);
    if (!at || !j || !a.preset.empty())
        return;
    a.fio_said.no_banner[k] = true;
    if (!normal_at(a, at))
        return;
    bool to_stdout = !a.output_path.empty() && a.output_at > at;
    (to_stdout ? *now : a.fio_said.before[k]) += report::job_banner(*j);
}

} // namespace

bool say_as_fio(const std::vector<parser::fio_line> &said, const plan &p, args &a)
{
    std::string now;
    uint32_t nr_jobs = p.nr_jobs, banners = std::min<uint32_t>((uint32_t)a.req.cli_jobs.size(), nr_jobs), k = 0;
    a.fio_said.before.assign(nr_jobs + 1, "");
    a.fio_said.no_banner.assign(nr_jobs, false);
    for (const parser::fio_line &l : said) {
        for (; k < banners && k < l.before_job; k++)
            say_banner(p, k, a, &now);
        bool before_output = l.where.path == "<command line>" && l.where.col < a.output_at;
        (a.output_path.empty() || !before_output ? a.fio_said.before[std::min(l.before_job, nr_jobs)] : now) +=
            "fio: " + l.text + "\n";
    }
    for (; k < banners; k++)
        say_banner(p, k, a, &now);
    return now.empty() || write_stdout(now, "fio's lines to stdout");
}

} // namespace cli
