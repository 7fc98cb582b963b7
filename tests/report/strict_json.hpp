// tests/report/strict_json.hpp - a JSON checker stricter than the usual parsers.
//
// nlohmann's parser (like most) silently keeps one value of a repeated key;
// this SAX pass rejects any object with a key twice, any non-finite number,
// any null outside the places the schema allows one, and anything but exactly
// one document (plus a final newline) in the text.
#pragma once

#include <string>

namespace t {

// True when text is one strictly valid JSON document; else false with the
// reason (and the key path where it was found) in *why.
bool strict_json(const std::string &text, std::string *why);

} // namespace t
