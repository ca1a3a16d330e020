#pragma once
// The one YAML writer of the exporter: every value of a generated YAML file (lws.yaml, TensorRT-LLM's
// options and router files) is written by these functions, which know YAML 1.1 readers as well as 1.2
// ones ([yaml-spec]): a 1.1 reader (PyYAML, the scanner kubectl uses) also breaks lines at U+0085,
// U+2028 and U+2029, so a value holding one never reaches a YAML file raw.
#include <string>

namespace moeplan::exporting {

// A double-quoted scalar that reads back as exactly `text` (well-formed UTF-8): JSON's escapes, which
// YAML reads the same, plus \uXXXX for DEL, the C1 controls, U+2028, U+2029, U+FFFE and U+FFFF.
std::string yaml_quoted(const std::string& text);

// A mapping key: plain when it is a lower-case name (a letter, then letters, digits, underscores) that
// no reader takes for a boolean or null, else yaml_quoted.
std::string yaml_key(const std::string& key);

// The value of a sequence entry or mapping key at `indent` spaces: a literal block ("|" and the lines
// indented by `indent`) when `text` is one that reads back exactly that way (printable lines, ending in
// one line break, the first not starting with a blank), else yaml_quoted on the same line.
std::string yaml_block(const std::string& text, int indent);

}  // namespace moeplan::exporting
