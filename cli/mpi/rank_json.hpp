// cli/mpi/rank_json.hpp - a small strict JSON reader for rank files.
//
// `ioplan merge` of a thousand ranks reads a thousand documents of a few
// hundred KiB each: a generic DOM (one allocation per value, a map per
// object) cost ~80 ms a file, most of it in malloc and free.  This reader
// builds one flat array of nodes in one pass over the text (values are
// slices of it; strings are unescaped only when asked for), so a document
// costs one allocation and a few ms.  It reads what RFC 8259 allows and
// refuses the rest with the byte offset; the API is the part of
// nlohmann::json the rank-file visitors use, so they read either alike.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cli::rank_json {

// Text that is not JSON: what() is "at byte N: why"; byte (0-based) and why
// apart, so that a reader can name the file's line and column.
struct syntax_error : std::runtime_error {
    syntax_error(size_t at, const std::string &reason, const std::string &what)
        : std::runtime_error(what), byte(at), why(reason) {}
    syntax_error(size_t at, const std::string &reason)
        : syntax_error(at, reason, "at byte " + std::to_string(at) + ": " + reason) {}
    size_t byte;
    std::string why;
};

enum class kind : uint8_t { null, boolean, uinteger, integer, real, string, array, object };

struct node {
    kind k = kind::null;
    bool flag = false;  // a boolean's value; a string's "has escapes"
    uint32_t end = 0;   // index one past this value's last node (its subtree)
    uint32_t count = 0; // elements of an array, members of an object
    uint32_t pos = 0;   // the value's text: a string's without its quotes
    uint32_t len = 0;
    union {
        uint64_t u;
        int64_t i;
        double d;
    };
    node() : u(0) {}
};

class document;

// One value of a document (an object's members are its key and value nodes
// in turn).  A default value is an empty object: what a missing key reads as.
class value {
public:
    value() = default;
    value(const document *d, uint32_t i) : doc_(d), i_(i) {}

    bool is_object() const { return !doc_ || n().k == kind::object; }
    bool is_array() const { return doc_ && n().k == kind::array; }
    bool is_boolean() const { return doc_ && n().k == kind::boolean; }
    bool is_string() const { return doc_ && n().k == kind::string; }
    bool is_number_unsigned() const { return doc_ && n().k == kind::uinteger; }
    bool is_number_integer() const { return doc_ && (n().k == kind::uinteger || n().k == kind::integer); }
    bool is_number() const { return is_number_integer() || (doc_ && n().k == kind::real); }

    bool get_bool() const { return n().flag; }
    uint64_t get_u64() const { return n().u; }
    int64_t get_i64() const { return n().i; }
    double get_double() const;
    std::string get_string() const;
    // A string's text between its quotes, escapes as written.
    std::string_view raw() const;

    size_t size() const { return doc_ ? n().count : 0; }
    bool empty() const { return size() == 0; }
    // The member named k, or a value whose exists() is false.
    value find(const char *k) const;
    bool contains(const char *k) const { return find(k).exists(); }
    // The member named k; throws std::runtime_error when there is none.
    value at(const char *k) const;
    bool exists() const { return doc_ && i_ != 0; }
    // The text of the value as written (for messages).
    std::string dump() const;

    // Elements of an array in order (for an object: its member values).
    class iterator {
    public:
        iterator(const document *d, uint32_t i, bool obj) : doc_(d), i_(i), obj_(obj) {}
        value operator*() const { return value(doc_, obj_ ? i_ + 1 : i_); }
        iterator &operator++();
        bool operator!=(const iterator &o) const { return i_ != o.i_; }

    private:
        const document *doc_;
        uint32_t i_;
        bool obj_;
    };
    iterator begin() const;
    iterator end() const;

private:
    const node &n() const;
    const document *doc_ = nullptr;
    uint32_t i_ = 0;
};

// A parsed document.  Node 0 is a placeholder (a missing value); the root is
// node 1.  The text must outlive the document.
class document {
public:
    // Throws syntax_error ("at byte N: what") on text that is not JSON.
    explicit document(const std::string &text);
    ~document();
    document(const document &) = delete;
    document &operator=(const document &) = delete;
    value root() const { return value(this, 1); }
    const std::string &text() const { return text_; }
    const node &at(uint32_t i) const { return nodes_[i]; }

private:
    const std::string &text_;
    std::vector<node> nodes_;
    friend class parser;
};

} // namespace cli::rank_json
