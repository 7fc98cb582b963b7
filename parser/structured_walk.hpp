// parser/structured_walk.hpp - the top level of a TOML or YAML job file, walked
// once for both syntaxes: an include's flat table of options, or `global` and
// the `jobs` list.
//
// The readers differ only in how a node is asked what it is, so each supplies a
// small adapter (Syntax below) and the order, the sections made and the
// messages that do not name a syntax's own notation live here.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "parser/diag.hpp"
#include "parser/structured.hpp"

namespace parser {

// A top-level key of a job file, and an entry of its `jobs` list, in either syntax.
template <typename Node>
struct walk_member {
    std::string key;
    loc at;
    Node value;
};

template <typename Node>
struct walk_item {
    loc at;
    Node value;
};

// Syntax provides:
//   node                                  a handle to a value of the file
//   members(node, src)                    the top-level keys: {key, loc, node}
//   is_map(node), is_job_list(node)
//   items(node, src)                      the entries of `jobs`: {loc, node}
//   job_section(node, loc, src), read_section(section &, node, src, job, depth)
//   GLOBAL_NOT_MAP, JOBS_NOT_LIST, TOP_KEYS   the messages in its notation
template <typename Syntax>
void walk_job_file(Syntax &syn, document &doc, const typename Syntax::node &root, const source_text &src, int depth)
{
    if (depth > 0) { // an include: a flat table of options
        section s{"", false, src.at(1, 1), {}, {}};
        syn.read_section(s, root, src, false, depth);
        doc.sections.push_back(std::move(s));
        return;
    }
    for (const auto &m : syn.members(root, src)) {
        if (m.key == "global") {
            if (!syn.is_map(m.value))
                fail(m.at, Syntax::GLOBAL_NOT_MAP);
            section s{"global", true, m.at, {}, {}};
            syn.read_section(s, m.value, src, false, depth);
            doc.sections.insert(doc.sections.begin(), std::move(s));
        } else if (m.key == "jobs") {
            if (!syn.is_job_list(m.value))
                fail(m.at, Syntax::JOBS_NOT_LIST);
            for (const auto &item : syn.items(m.value, src)) {
                if (!syn.is_map(item.value))
                    fail(item.at, "each entry of 'jobs' must be a map of options");
                section s = syn.job_section(item.value, item.at, src);
                syn.read_section(s, item.value, src, true, depth);
                doc.sections.push_back(std::move(s));
            }
        } else {
            fail(m.at, "unknown top-level key '" + m.key + "' " + Syntax::TOP_KEYS);
        }
    }
}

} // namespace parser
