#include "markup.hpp"

#include <sstream>

namespace moeplan::report::testing {

namespace {

bool void_element(const std::string& name) {
  return name == "meta" || name == "br" || name == "hr" || name == "img" || name == "link";
}

std::map<std::string, std::string> parse_attributes(const std::string& text) {
  std::map<std::string, std::string> attributes;
  std::size_t position = 0;
  while (position < text.size()) {
    const std::size_t equals = text.find("=\"", position);
    if (equals == std::string::npos) break;
    std::size_t key_start = text.find_last_of(' ', equals);
    key_start = key_start == std::string::npos ? 0 : key_start + 1;
    const std::size_t value_end = text.find('"', equals + 2);
    attributes[text.substr(key_start, equals - key_start)] = text.substr(equals + 2, value_end - equals - 2);
    position = value_end + 1;
  }
  return attributes;
}

struct Open {
  std::size_t element;  // index into the element list
  std::string group_class;
};

}  // namespace

std::string Element::attribute(const std::string& key) const {
  const auto found = attributes.find(key);
  return found == attributes.end() ? "" : found->second;
}

bool Element::has_class(const std::string& css_class) const {
  std::istringstream classes(attribute("class"));
  for (std::string word; classes >> word;) {
    if (word == css_class) return true;
  }
  return false;
}

Markup read_markup(const std::string& document) {
  Markup markup;
  std::vector<Open> open;
  std::size_t position = 0;
  while (markup.error.empty()) {
    const std::size_t start = document.find('<', position);
    if (!open.empty()) markup.elements[open.back().element].text += document.substr(position, start - position);
    if (start == std::string::npos) break;
    const std::size_t end = document.find('>', start);
    if (end == std::string::npos) {
      markup.error = "a tag is never ended";
      break;
    }
    const std::string tag = document.substr(start + 1, end - start - 1);
    position = end + 1;
    if (tag.rfind("!", 0) == 0) continue;  // <!DOCTYPE html>
    if (tag.rfind("/", 0) == 0) {
      const std::string name = tag.substr(1);
      if (open.empty() || markup.elements[open.back().element].name != name) {
        markup.error = "</" + name + "> closes " +
                       (open.empty() ? "nothing" : "<" + markup.elements[open.back().element].name + ">");
      } else {
        open.pop_back();
      }
      continue;
    }
    const bool self_closing = tag.back() == '/';
    const std::string body = self_closing ? tag.substr(0, tag.size() - 1) : tag;
    const std::size_t name_end = body.find(' ');
    Element element{
        body.substr(0, name_end),
        name_end == std::string::npos ? std::map<std::string, std::string>{} : parse_attributes(body.substr(name_end)),
        open.empty() ? "" : open.back().group_class, ""};
    markup.elements.push_back(element);
    if (self_closing || void_element(element.name)) continue;
    const std::string group_class = element.name == "g" ? element.attribute("class") : element.group_class;
    open.push_back({markup.elements.size() - 1, group_class});
  }
  if (markup.error.empty() && !open.empty())
    markup.error = "<" + markup.elements[open.back().element].name + "> is never closed";
  return markup;
}

std::vector<Element> find(const Markup& markup, const std::string& name, const std::string& group_class) {
  std::vector<Element> found;
  for (const Element& element : markup.elements) {
    if (element.name == name && (group_class.empty() || element.group_class == group_class)) found.push_back(element);
  }
  return found;
}

std::string page_problems(const std::string& html) {
  if (html.rfind("<!DOCTYPE html>", 0) != 0) return "no doctype";
  const Markup markup = read_markup(html);
  if (!markup.error.empty()) return markup.error;
  for (const char* forbidden : {"http:", "https:", "//www", "<script", " src=", " href=", "url(", "@import"}) {
    if (html.find(forbidden) != std::string::npos) return std::string("contains ") + forbidden;
  }
  if (find(markup, "meta").size() < 2 || html.find("Content-Security-Policy") == std::string::npos)
    return "no content security policy";
  for (const Element& svg : find(markup, "svg")) {
    if (svg.attribute("viewBox").empty()) return "an <svg> without a viewBox";
  }
  return "";
}

}  // namespace moeplan::report::testing
