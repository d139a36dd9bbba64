// JSON forms of NVTX expressions, kernel windows and range selectors (see
// range_json.h).
#include "core/range/range_json.h"

#include <string>
#include <utility>
#include <vector>

#include "core/base/enum_names.h"
#include "core/base/json_field.h"

namespace rangereplay::range {
namespace {

using json_field::element;
using json_field::field_error;
using json_field::member;
using nlohmann::json;

constexpr EnumNames<NvtxRangeKind, 2> kRangeKindNames{{
    {NvtxRangeKind::kPushPop, "push_pop"},
    {NvtxRangeKind::kStartEnd, "start_end"},
}};
constexpr EnumNames<NvtxElement::Kind, 3> kElementKindNames{{
    {NvtxElement::Kind::kName, "name"},
    {NvtxElement::Kind::kAnyOne, "any_one"},
    {NvtxElement::Kind::kAnyMany, "any_many"},
}};

// Reads the required member "kind" of `j` (at `path`) by `table`.
template <class Enum, std::size_t N>
Status read_kind(const json& j, std::string_view path, const EnumNames<Enum, N>& table, Enum& out) {
  if (!j.contains("kind") || j["kind"].is_null()) return field_error(member(path, "kind"), "missing");
  return json_field::read_enum(j, "kind", path, table, out);
}

// {"name": ..., "regex": ...} members of `j`.
void put_matcher(json& j, const NameMatcher& m) {
  j["name"] = m.text();
  j["regex"] = m.is_regex();
}

StatusOr<NameMatcher> matcher_from_json(const json& j, std::string_view path) {
  RR_RETURN_IF_ERROR(json_field::require_object(j, path));
  std::string name;
  bool regex = false;
  RR_RETURN_IF_ERROR(json_field::read_required(j, "name", path, name));
  RR_RETURN_IF_ERROR(json_field::read(j, "regex", path, regex));
  if (!regex) return NameMatcher::exact(std::move(name));
  StatusOr<NameMatcher> matcher = NameMatcher::compile(std::move(name));
  if (!matcher.ok()) {
    return field_error(member(path, "name"), "the regex does not compile: " + matcher.status().message());
  }
  return matcher;
}

StatusOr<NvtxElement> element_from_json(const json& j, std::string_view path) {
  RR_RETURN_IF_ERROR(json_field::require_object(j, path));
  NvtxElement e;
  RR_RETURN_IF_ERROR(read_kind(j, path, kElementKindNames, e.kind));
  if (e.kind == NvtxElement::Kind::kName) {
    RR_ASSIGN_OR_RETURN(NameMatcher name, matcher_from_json(j, path));
    e.name = std::move(name);
  }
  return e;
}

}  // namespace

json nvtx_expression_json(const NvtxExpression& expression) {
  json j = json::object();
  j["text"] = expression.text;
  j["kind"] = name_of(kRangeKindNames, expression.kind);
  if (expression.domain) {
    put_matcher(j["domain"], *expression.domain);
  } else {
    j["domain"] = nullptr;
  }
  j["bottom_anchored"] = expression.bottom_anchored;
  j["top_anchored"] = expression.top_anchored;
  json elements = json::array();
  for (const NvtxElement& e : expression.elements) {
    json item = json::object();
    item["kind"] = name_of(kElementKindNames, e.kind);
    if (e.name) put_matcher(item, *e.name);
    elements.push_back(std::move(item));
  }
  j["elements"] = std::move(elements);
  return j;
}

StatusOr<NvtxExpression> nvtx_expression_from_json(const json& j, std::string_view field) {
  RR_RETURN_IF_ERROR(json_field::require_object(j, field));
  NvtxExpression e;
  RR_RETURN_IF_ERROR(json_field::read(j, "text", field, e.text));
  RR_RETURN_IF_ERROR(read_kind(j, field, kRangeKindNames, e.kind));
  if (const auto domain = j.find("domain"); domain != j.end() && !domain->is_null()) {
    RR_ASSIGN_OR_RETURN(NameMatcher d, matcher_from_json(*domain, member(field, "domain")));
    e.domain = std::move(d);
  }
  RR_RETURN_IF_ERROR(json_field::read(j, "bottom_anchored", field, e.bottom_anchored));
  RR_RETURN_IF_ERROR(json_field::read(j, "top_anchored", field, e.top_anchored));
  const std::string elements_path = member(field, "elements");
  const auto elements = j.find("elements");
  if (elements == j.end()) return field_error(elements_path, "missing");
  RR_RETURN_IF_ERROR(json_field::require_array(*elements, elements_path));
  for (std::size_t i = 0; i < elements->size(); ++i) {
    RR_ASSIGN_OR_RETURN(NvtxElement element_value, element_from_json((*elements)[i], element(elements_path, i)));
    e.elements.push_back(std::move(element_value));
  }
  // What the parser guarantees, so that matching never sees a pattern it
  // could not have built.
  if (e.elements.empty()) return field_error(elements_path, "no element; an expression names at least one range");
  const auto is_name = [](const NvtxElement& x) { return x.kind == NvtxElement::Kind::kName; };
  if (e.kind == NvtxRangeKind::kPushPop && (!is_name(e.elements.front()) || !is_name(e.elements.back()))) {
    return field_error(elements_path, "a push/pop pattern starts and ends with a name");
  }
  if (e.kind == NvtxRangeKind::kStartEnd) {
    for (const NvtxElement& x : e.elements) {
      if (!is_name(x)) return field_error(elements_path, "a start/end expression has names only");
    }
    if (e.bottom_anchored || e.top_anchored) return field_error(field, "a start/end expression has no stack anchor");
  }
  return e;
}

json kernel_windows_json(const KernelWindows& windows) {
  json j = json::array();
  for (const KernelWindow& w : windows.windows()) j.push_back(json{{"first", w.first}, {"end", w.end}});
  return j;
}

StatusOr<KernelWindows> kernel_windows_from_json(const json& j, std::string_view field) {
  RR_RETURN_IF_ERROR(json_field::require_array(j, field));
  std::vector<KernelWindow> windows;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string path = element(field, i);
    RR_RETURN_IF_ERROR(json_field::require_object(j[i], path));
    KernelWindow w;
    RR_RETURN_IF_ERROR(json_field::read_required(j[i], "first", path, w.first));
    RR_RETURN_IF_ERROR(json_field::read_required(j[i], "end", path, w.end));
    windows.push_back(w);
  }
  StatusOr<KernelWindows> out = KernelWindows::from_windows(std::move(windows));
  if (!out.ok()) return field_error(field, out.status().message());
  return out;
}

json range_selector_json(const RangeSelector& selector) {
  json j = json::array();
  for (const RangeSelector::Span& s : selector.spans()) {
    j.push_back(json{{"first", s.first}, {"last", s.last ? json(*s.last) : json(nullptr)}});
  }
  return j;
}

StatusOr<RangeSelector> range_selector_from_json(const json& j, std::string_view field) {
  RR_RETURN_IF_ERROR(json_field::require_array(j, field));
  std::vector<RangeSelector::Span> spans;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string path = element(field, i);
    RR_RETURN_IF_ERROR(json_field::require_object(j[i], path));
    RangeSelector::Span s;
    RR_RETURN_IF_ERROR(json_field::read_required(j[i], "first", path, s.first));
    if (const auto last = j[i].find("last"); last != j[i].end() && !last->is_null()) {
      std::uint64_t value = 0;
      RR_RETURN_IF_ERROR(json_field::convert(*last, member(path, "last"), value));
      s.last = value;
    }
    spans.push_back(s);
  }
  StatusOr<RangeSelector> out = RangeSelector::from_spans(std::move(spans));
  if (!out.ok()) return field_error(field, out.status().message());
  return out;
}

}  // namespace rangereplay::range
