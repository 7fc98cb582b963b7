// tests/report/strict_json.hpp - a JSON checker stricter than the usual parsers.
//
// nlohmann's parser (like most) silently keeps one value of a repeated key;
// this SAX pass rejects any object with a key twice, any non-finite number,
// any null outside the places the schema allows one, and anything but exactly
// one document (plus a final newline) in the text.
#pragma once

#include <string>
#include <vector>

namespace t {

// True when text is one strictly valid JSON document; else false with the
// reason (and the key path where it was found) in *why.
bool strict_json(const std::string &text, std::string *why);

// Validates each document against the committed schema/result.schema.json with
// a real validator (python3 jsonschema, tests/report/check_json.py), parsing
// strictly (duplicate keys and NaN/Infinity are errors).  True when all pass;
// *report gets the checker's output either way.
bool schema_valid(const std::vector<std::string> &docs, std::string *report);

} // namespace t
