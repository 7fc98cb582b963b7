// cli/mpi/rank_json.cpp - the flat-array JSON reader of rank files (rank_json.hpp).
//
// Recursive descent over the text with a depth bound (a file of a million
// '[' is refused, not a stack overflow); numbers are read as fio's own JSON
// library reads them: an integer that fits is an exact uint64/int64, any
// other number a double, correctly rounded (std::from_chars), so a value
// written round-trip exact reads back bit for bit.
#include "cli/mpi/rank_json.hpp"

#include <charconv>
#include <cstring>
#include <stdexcept>

namespace cli::rank_json {

class parser {
public:
    parser(const std::string &t, std::vector<node> &out) : s_(t.data()), p_(t.data()), end_(t.data() + t.size()), out_(out) {}

    void parse()
    {
        if (end_ - s_ > static_cast<std::ptrdiff_t>(UINT32_MAX))
            fail("the text is too long");
        out_.reserve(static_cast<size_t>(end_ - s_) / 4 + 16);
        out_.emplace_back(); // node 0: a missing value
        ws();
        parse_value(0);
        ws();
        if (p_ != end_)
            fail("text after the document");
    }

private:
    static constexpr int max_depth = 64;
    const char *s_, *p_, *end_;
    std::vector<node> &out_;

    [[noreturn]] void fail(const char *what) const
    {
        throw syntax_error(static_cast<size_t>(p_ - s_), what);
    }
    void ws()
    {
        while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
            p_++;
    }
    bool eat(char c)
    {
        ws();
        if (p_ < end_ && *p_ == c) {
            p_++;
            return true;
        }
        return false;
    }
    void literal(const char *word, size_t n)
    {
        if (static_cast<size_t>(end_ - p_) < n || memcmp(p_, word, n) != 0)
            fail("not a JSON value");
        p_ += n;
    }
    uint32_t add(kind k)
    {
        out_.emplace_back();
        node &n = out_.back();
        n.k = k;
        n.pos = static_cast<uint32_t>(p_ - s_);
        return static_cast<uint32_t>(out_.size() - 1);
    }
    void close(uint32_t i)
    {
        out_[i].end = static_cast<uint32_t>(out_.size());
        out_[i].len = static_cast<uint32_t>(p_ - s_) - out_[i].pos;
    }

    void parse_value(int depth)
    {
        if (p_ >= end_)
            fail("the text ends where a value should be");
        switch (*p_) {
        case '{':
            return parse_container(depth, kind::object, '}');
        case '[':
            return parse_container(depth, kind::array, ']');
        case '"':
            return parse_string();
        case 't':
        case 'f': {
            uint32_t i = add(kind::boolean);
            out_[i].flag = *p_ == 't';
            out_[i].flag ? literal("true", 4) : literal("false", 5);
            return close(i);
        }
        case 'n': {
            uint32_t i = add(kind::null);
            literal("null", 4);
            return close(i);
        }
        default:
            return parse_number();
        }
    }

    void parse_container(int depth, kind k, char closer)
    {
        if (depth >= max_depth)
            fail("nested too deep");
        uint32_t i = add(k);
        p_++;
        uint32_t count = 0;
        if (!eat(closer)) {
            do {
                ws();
                if (k == kind::object) {
                    if (p_ >= end_ || *p_ != '"')
                        fail("an object's key is not a string");
                    parse_string();
                    if (!eat(':'))
                        fail("no ':' after an object's key");
                    ws();
                }
                parse_value(depth + 1);
                count++;
            } while (eat(','));
            if (!eat(closer))
                fail(k == kind::object ? "no ',' or '}' in an object" : "no ',' or ']' in a list");
        }
        out_[i].count = count;
        close(i);
    }

    // The closing quote by memchr, then the run before it checked for
    // escapes and control characters 8 bytes at a time: a rank file's long
    // strings (base64) have neither.
    void parse_string()
    {
        p_++;
        uint32_t i = add(kind::string);
        for (;;) {
            const char *q = static_cast<const char *>(memchr(p_, '"', static_cast<size_t>(end_ - p_)));
            if (!q)
                fail("a string does not end");
            const char *odd = plain_run(p_, q);
            if (odd == q) {
                p_ = q;
                break;
            }
            p_ = odd;
            if (*p_ != '\\')
                fail("a control character in a string");
            out_[i].flag = true;
            p_++;
            if (p_ >= end_ || !*p_ || !strchr("\"\\/bfnrtu", *p_))
                fail("a bad escape in a string");
            p_++;
        }
        close(i);
        p_++;
    }

    // The first '\\' or control character in [p, q), or q.
    static const char *plain_run(const char *p, const char *q)
    {
        constexpr uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
        for (; q - p >= 8; p += 8) {
            uint64_t x;
            memcpy(&x, p, 8);
            uint64_t bs = x ^ (ones * '\\');
            // a zero byte of bs, or a byte below 0x20 in x (the classic has-less-than test)
            if (((bs - ones) & ~bs & highs) | ((x - ones * 0x20) & ~x & highs))
                break;
        }
        for (; p < q; p++)
            if (*p == '\\' || static_cast<unsigned char>(*p) < 0x20)
                return p;
        return q;
    }

    static bool digit(char c) { return c >= '0' && c <= '9'; }
    void digits()
    {
        if (p_ >= end_ || !digit(*p_))
            fail("not a JSON value");
        while (p_ < end_ && digit(*p_))
            p_++;
    }

    // One pass: the digits of an integer of up to 19 of them cannot overflow
    // a uint64; a longer one is read again with checks, or as a double.
    void parse_number()
    {
        uint32_t i = add(kind::uinteger);
        const char *start = p_;
        bool neg = *p_ == '-';
        p_ += neg;
        const char *first = p_;
        uint64_t v = 0;
        while (p_ < end_ && digit(*p_))
            v = v * 10 + static_cast<uint64_t>(*p_++ - '0');
        if (p_ == first || (*first == '0' && p_ - first > 1)) {
            p_ = start;
            fail("not a JSON number");
        }
        bool real = false;
        if (p_ < end_ && *p_ == '.') {
            p_++;
            digits();
            real = true;
        }
        if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
            p_++;
            p_ += p_ < end_ && (*p_ == '+' || *p_ == '-');
            digits();
            real = true;
        }
        node &n = out_[i];
        if (!real && (p_ - first <= 19 || checked(first, &v)) && integer(v, neg, n))
            return close(i);
        n.k = kind::real;
        auto [q, ec] = std::from_chars(start, p_, n.d);
        if (ec != std::errc() || q != p_)
            fail("a number out of range");
        close(i);
    }

    // The value of the digits [d, p_), false when it is beyond a uint64.
    bool checked(const char *d, uint64_t *v) const
    {
        *v = 0;
        for (; d < p_; d++)
            if (__builtin_mul_overflow(*v, 10u, v) || __builtin_add_overflow(*v, static_cast<uint64_t>(*d - '0'), v))
                return false;
        return true;
    }

    // An integer into n when it fits its type (else it is a double).
    static bool integer(uint64_t v, bool neg, node &n)
    {
        if (!neg) {
            n.u = v;
            return true;
        }
        if (v > uint64_t(INT64_MAX) + 1)
            return false;
        n.k = kind::integer;
        n.i = static_cast<int64_t>(0 - v);
        return true;
    }
};

namespace {
// The node array of the last document freed on this thread: the next one
// reuses its memory instead of growing a new one a page fault at a time.
thread_local std::vector<node> spare;
} // namespace

document::document(const std::string &text) : text_(text), nodes_(std::move(spare))
{
    nodes_.clear();
    parser(text, nodes_).parse();
}

document::~document()
{
    if (nodes_.capacity() > spare.capacity())
        spare = std::move(nodes_);
}

const node &value::n() const
{
    return doc_->at(i_);
}

double value::get_double() const
{
    const node &x = n();
    return x.k == kind::real ? x.d : x.k == kind::integer ? static_cast<double>(x.i) : static_cast<double>(x.u);
}

value value::find(const char *k) const
{
    if (!doc_ || n().k != kind::object)
        return value();
    size_t klen = strlen(k);
    const std::string &t = doc_->text();
    for (uint32_t j = i_ + 1; j < n().end; j = doc_->at(j + 1).end) {
        const node &key = doc_->at(j);
        if (key.len == klen && (!klen || t[key.pos] == k[0]) && !key.flag && memcmp(t.data() + key.pos, k, klen) == 0)
            return value(doc_, j + 1);
    }
    return value();
}

std::string_view value::raw() const
{
    return std::string_view(doc_->text()).substr(n().pos, n().len);
}

value value::at(const char *k) const
{
    value v = find(k);
    if (!v.exists())
        throw std::runtime_error(std::string("no \"") + k + "\"");
    return v;
}

std::string value::dump() const
{
    if (!doc_)
        return "{}";
    const node &x = n();
    return x.k == kind::string ? '"' + doc_->text().substr(x.pos, x.len) + '"' : doc_->text().substr(x.pos, x.len);
}

namespace {

void put_utf8(std::string &out, uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// Four hex digits at s (a \u escape), or -1.
int hex4(const char *s, const char *end)
{
    if (end - s < 4)
        return -1;
    int v = 0;
    for (int k = 0; k < 4; k++) {
        char c = s[k];
        int h = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

} // namespace

std::string value::get_string() const
{
    const node &x = n();
    const char *s = doc_->text().data() + x.pos, *end = s + x.len;
    if (!x.flag)
        return std::string(s, end);
    std::string out;
    out.reserve(x.len);
    while (s < end) {
        if (*s != '\\') {
            out += *s++;
            continue;
        }
        char e = s[1];
        s += 2;
        const char *plain = strchr("\"\\/bfnrt", e);
        if (plain && e != 'u') {
            out += "\"\\/\b\f\n\r\t"[plain - "\"\\/bfnrt"];
            continue;
        }
        int cp = hex4(s, end);
        if (cp < 0)
            throw std::runtime_error("a bad \\u escape in a string");
        s += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
            int lo = hex4(s + 2, end);
            if (lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                s += 6;
            }
        }
        put_utf8(out, static_cast<uint32_t>(cp));
    }
    return out;
}

value::iterator &value::iterator::operator++()
{
    i_ = doc_->at(obj_ ? i_ + 1 : i_).end;
    return *this;
}

value::iterator value::begin() const
{
    return iterator(doc_, doc_ ? i_ + 1 : 0, is_object());
}

value::iterator value::end() const
{
    return iterator(doc_, doc_ ? n().end : 0, is_object());
}

} // namespace cli::rank_json
