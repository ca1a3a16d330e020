#pragma once
// A small reader of the HTML and SVG the reports write: it checks that every tag is closed in order
// and lists the elements with their attributes, the class of the <g> around them and their text.
#include <map>
#include <string>
#include <vector>

namespace moeplan::report::testing {

struct Element {
  std::string name;
  std::map<std::string, std::string> attributes;
  std::string group_class;  // the class of the innermost enclosing <g>, empty outside any
  std::string text;         // character data directly inside, entities left as written

  std::string attribute(const std::string& key) const;
  bool has_class(const std::string& css_class) const;
};

struct Markup {
  std::vector<Element> elements;
  std::string error;  // empty when every tag closes in order
};

Markup read_markup(const std::string& document);

// The elements named `name` (all of them when `group_class` is empty, else those directly in such a group).
std::vector<Element> find(const Markup& markup, const std::string& name, const std::string& group_class = "");

// What keeps a report from being one self-contained, well-formed page: a tag out of order, a URL, a
// script or a fetched resource, a missing content security policy. Empty when there is none.
std::string page_problems(const std::string& html);

}  // namespace moeplan::report::testing
