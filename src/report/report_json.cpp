// The report as JSON (report_json.h): nlohmann-json hooks, writer and strict,
// path-naming reader driven by one field list per model struct, and the
// Status-returning file functions.
#include "report/report_json.h"

#include <fmt/format.h>
#include <cmath>
#include <exception>
#include <limits>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <vector>

#include "report/guidance.h"
#include "report/report_file.h"
#include "report/roofline.h"

namespace rangereplay::report {
namespace {

using nlohmann::json;

// A bad value in a report, with the JSON path that leads to it. Readers
// throw it from the innermost value; each enclosing field or array element
// prepends its key or index on the way out.
class JsonPathError : public std::runtime_error {
 public:
  JsonPathError(std::string path, std::string reason)
      : std::runtime_error("json path error"), path_(std::move(path)), reason_(std::move(reason)) {
    compose();
  }
  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& reason() const { return reason_; }

  void prepend_key(std::string_view key) {
    path_ = std::string(key) + ((path_.empty() || path_[0] == '[') ? "" : ".") + path_;
    compose();
  }
  void prepend_index(std::size_t index) {
    path_ = fmt::format("[{}]", index) + ((path_.empty() || path_[0] == '[') ? "" : ".") + path_;
    compose();
  }

 private:
  void compose() { message_ = path_.empty() ? reason_ : path_ + ": " + reason_; }
  std::string path_, reason_, message_;
};

[[noreturn]] void type_mismatch(const json& j, std::string_view expected) {
  throw JsonPathError("", fmt::format("expected {}, got {}", expected, j.type_name()));
}

void expect_object(const json& j) {
  if (!j.is_object()) type_mismatch(j, "an object");
}

// --- readers for leaf values ------------------------------------------------

void read_value(const json& j, std::string& out) {
  if (!j.is_string()) type_mismatch(j, "a string");
  out = j.get_ref<const std::string&>();
}

void read_value(const json& j, bool& out) {
  if (!j.is_boolean()) type_mismatch(j, "true or false");
  out = j.get<bool>();
}

template <typename Unsigned>
void read_unsigned(const json& j, Unsigned& out) {
  if (!j.is_number_unsigned()) type_mismatch(j, "an unsigned integer");
  const auto value = j.get<std::uint64_t>();
  if (value > std::numeric_limits<Unsigned>::max()) {
    throw JsonPathError("", fmt::format("{} does not fit in {} bits", value, 8 * sizeof(Unsigned)));
  }
  out = static_cast<Unsigned>(value);
}
void read_value(const json& j, std::uint32_t& out) { read_unsigned(j, out); }
void read_value(const json& j, std::uint64_t& out) { read_unsigned(j, out); }
void read_value(const json& j, std::int64_t& out) {
  if (!j.is_number_integer()) type_mismatch(j, "an integer");
  if (j.is_number_unsigned() &&
      j.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw JsonPathError("", fmt::format("{} does not fit in a signed 64-bit integer", j.get<std::uint64_t>()));
  }
  out = j.get<std::int64_t>();
}

void read_value(const json& j, double& out) {
  if (j.is_number()) {
    out = j.get<double>();
    return;
  }
  if (j.is_string()) {
    const auto& text = j.get_ref<const std::string&>();
    if (text == "nan") {
      out = std::numeric_limits<double>::quiet_NaN();
      return;
    }
    if (text == "inf") {
      out = std::numeric_limits<double>::infinity();
      return;
    }
    if (text == "-inf") {
      out = -std::numeric_limits<double>::infinity();
      return;
    }
  }
  type_mismatch(j, "a number or \"nan\", \"inf\", \"-inf\"");
}

template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};

// Model structs go through their from_json hook.
template <typename T>
requires requires(const json& j, T& t) { from_json(j, t); }
void read_value(const json& j, T& out) { from_json(j, out); }

// Reads element `index` of the array j into `out`, naming the index in errors.
template <typename T>
void read_element(const json& j, std::size_t index, T& out) {
  try {
    read_value(j[index], out);
  } catch (JsonPathError& e) {
    e.prepend_index(index);
    throw;
  }
}

void read_value(const json& j, std::map<std::string, std::string>& out) {
  if (!j.is_object()) type_mismatch(j, "an object of strings");
  std::map<std::string, std::string> values;
  for (const auto& [key, value] : j.items()) {
    try {
      read_value(value, values[key]);
    } catch (JsonPathError& e) {
      e.prepend_key(key);
      throw;
    }
  }
  out = std::move(values);
}

template <typename T>
void read_value(const json& j, std::vector<T>& out);

template <typename T>
void read_value(const json& j, std::optional<T>& out) {
  T value{};
  read_value(j, value);
  out = std::move(value);
}

template <typename T>
void read_value(const json& j, std::vector<T>& out) {
  if (!j.is_array()) type_mismatch(j, "an array");
  std::vector<T> values(j.size());
  for (std::size_t i = 0; i < values.size(); ++i) read_element(j, i, values[i]);
  out = std::move(values);
}

// Reads j[key] into `out`; a missing key is an error.
template <typename T>
void read_field(const json& j, const char* key, T& out) {
  const auto it = j.find(key);
  if (it == j.end()) throw JsonPathError(key, "missing field");
  try {
    read_value(*it, out);
  } catch (JsonPathError& e) {
    e.prepend_key(key);
    throw;
  }
}

// "[json.exception.parse_error.101] parse error at ..." -> "parse error at ...".
std::string strip_nlohmann_prefix(std::string_view what) {
  if (!what.empty() && what[0] == '[') {
    const auto close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

// --- the field list of each model struct ------------------------------------------
//
// One list per struct serves the writer and the reader: its JSON keys in
// reading order (the first bad field is the one an error names) and whether
// the key may be missing when read (fields added to schema_version 1 after
// its first release keep their default then). Report's schema_version is
// not a member: to_json and from_json(Report) handle it.

template <class T, class M>
struct Field {
  const char* key;
  M T::*member;
  bool may_be_missing;
  // A list written only when it has elements, and read as an empty list
  // when its key is missing: a report without any is written as before the
  // field existed.
  bool only_when_not_empty = false;
};

template <class T, class M>
constexpr Field<T, M> required(const char* key, M T::*member) {
  return {key, member, false};
}
template <class T, class M>
constexpr Field<T, M> added_later(const char* key, M T::*member) {
  static_assert(IsOptional<M>::value, "a field added later is a std::optional: a report that lacks it keeps it absent");
  return {key, member, true};
}
template <class T, class M>
constexpr Field<T, M> added_later_list(const char* key, M T::*member) {
  static_assert(IsOptional<M>::value, "a list added later is a std::optional (read as an empty list when missing)");
  return {key, member, true, true};
}

template <class T>
struct Fields;

template <>
struct Fields<MetricValue> {
  using T = MetricValue;
  static constexpr auto list =
      std::tuple{required("name", &T::name), required("unit", &T::unit), required("value", &T::value)};
};

template <>
struct Fields<KernelRecord> {
  using T = KernelRecord;
  static constexpr auto list = std::tuple{required("index", &T::index),
                                          required("name", &T::name),
                                          required("mangled_name", &T::mangled_name),
                                          required("grid", &T::grid),
                                          required("block", &T::block),
                                          required("shared_mem_bytes", &T::shared_mem_bytes),
                                          required("stream_id", &T::stream_id),
                                          added_later("launch_index", &T::launch_index),
                                          required("metrics", &T::metrics)};
};

template <>
struct Fields<StageTimings> {
  using T = StageTimings;
  // NOLINTNEXTLINE(readability-identifier-naming): every Fields<> names its list `list` (read_fields, write_fields)
  static constexpr auto list = std::tuple{required("sync_ms", &T::sync_ms),
                                          required("capture_ms", &T::capture_ms),
                                          required("restore_ms", &T::restore_ms),
                                          required("replay_submit_ms", &T::replay_submit_ms),
                                          required("kernels_ms", &T::kernels_ms),
                                          required("counters_ms", &T::counters_ms),
                                          required("decode_ms", &T::decode_ms),
                                          required("verify_ms", &T::verify_ms),
                                          required("window_ms", &T::window_ms),
                                          required("begin_ms", &T::begin_ms),
                                          required("other_ms", &T::other_ms),
                                          added_later("pass0_ms", &T::pass0_ms),
                                          added_later("rendezvous_ms", &T::rendezvous_ms)};
};

template <>
struct Fields<TierUsage> {
  using T = TierUsage;
  static constexpr auto list =
      std::tuple{required("tier", &T::tier), required("bytes", &T::bytes), required("arena_bytes", &T::arena_bytes),
                 required("new_allocation", &T::new_allocation)};
};

template <>
struct Fields<Divergence> {
  using T = Divergence;
  static constexpr auto list = std::tuple{required("address", &T::address), required("size_bytes", &T::size_bytes),
                                          required("origin", &T::origin)};
};

template <>
struct Fields<MetricSample> {
  using T = MetricSample;
  static constexpr auto list =
      std::tuple{required("start_ms", &T::start_ms), required("end_ms", &T::end_ms), required("values", &T::values)};
};

template <>
struct Fields<PassRecord> {
  using T = PassRecord;
  static constexpr auto list = std::tuple{required("pass", &T::pass), required("restored_bytes", &T::restored_bytes),
                                          required("divergences", &T::divergences)};
};

template <>
struct Fields<RangeRecord> {
  using T = RangeRecord;
  static constexpr auto list = std::tuple{required("index", &T::index),
                                          required("name", &T::name),
                                          required("declined", &T::declined),
                                          required("decline_reason", &T::decline_reason),
                                          required("decline_detail", &T::decline_detail),
                                          required("passes", &T::passes),
                                          required("footprint_bytes", &T::footprint_bytes),
                                          required("regions", &T::regions),
                                          required("tiers", &T::tiers),
                                          added_later("restore", &T::restore),
                                          added_later("counter_ranges", &T::counter_ranges),
                                          required("timings", &T::timings),
                                          required("kernels", &T::kernels),
                                          required("range_metrics", &T::range_metrics),
                                          added_later_list("samples", &T::samples),
                                          required("pass_records", &T::pass_records),
                                          required("notes", &T::notes)};
};

template <>
struct Fields<TimeBudget> {
  using T = TimeBudget;
  static constexpr auto list = std::tuple{required("wall_ms", &T::wall_ms),
                                          required("launcher_checks_ms", &T::launcher_checks_ms),
                                          required("start_to_tool_ms", &T::start_to_tool_ms),
                                          required("first_pass_start_ms", &T::first_pass_start_ms),
                                          required("range_begins_ms", &T::range_begins_ms),
                                          required("in_ranges_ms", &T::in_ranges_ms),
                                          required("windows_ms", &T::windows_ms),
                                          required("standing_flushes_ms", &T::standing_flushes_ms),
                                          required("exit_ms", &T::exit_ms),
                                          required("outside_ranges_ms", &T::outside_ranges_ms),
                                          required("tool_start_clock_ms", &T::tool_start_clock_ms),
                                          required("exit_start_clock_ms", &T::exit_start_clock_ms),
                                          added_later("rendezvous_ms", &T::rendezvous_ms)};
};

template <>
struct Fields<Report> {
  using T = Report;
  static constexpr auto list = std::tuple{required("tool_version", &T::tool_version),
                                          required("device_name", &T::device_name),
                                          required("chip_name", &T::chip_name),
                                          required("driver_version", &T::driver_version),
                                          required("compute_capability", &T::compute_capability),
                                          required("process_id", &T::process_id),
                                          added_later("host_name", &T::host_name),
                                          added_later("environment", &T::environment),
                                          required("command", &T::command),
                                          required("metrics", &T::metrics),
                                          added_later("missing_metrics", &T::missing_metrics),
                                          required("range_metrics", &T::range_metrics),
                                          required("pass_count", &T::pass_count),
                                          added_later("counter_backend", &T::counter_backend),
                                          required("setup_ms", &T::setup_ms),
                                          added_later("launcher_ms", &T::launcher_ms),
                                          added_later("gate_wait_ms", &T::gate_wait_ms),
                                          required("verify", &T::verify),
                                          added_later("cache_control", &T::cache_control),
                                          required("ranges", &T::ranges),
                                          required("errors", &T::errors),
                                          added_later("time_budget", &T::time_budget)};
};

// Calls visit(field) for each field of T, in list order.
template <class T, class Visit>
void for_each_field(Visit&& visit) {
  std::apply([&](const auto&... field) { (visit(field), ...); }, Fields<T>::list);
}

json written(double v) { return json_number(v); }
json written(const std::vector<double>& v) {
  json j = json::array();
  for (double x : v) j.push_back(json_number(x));
  return j;
}
template <class M>
json written(const M& v) {
  return json(v);
}

// The JSON object of v's fields; an absent (nullopt) field is left out, so is
// an empty list written only when not empty, and the field named `skip`, if
// any, is not written.
template <class T>
json write_fields(const T& v, std::string_view skip = {}) {
  json j = json::object();
  for_each_field<T>([&](const auto& field) {
    if (!skip.empty() && field.key == skip) return;
    const auto& value = v.*field.member;
    if constexpr (IsOptional<std::decay_t<decltype(value)>>::value) {
      if constexpr (requires { value->empty(); }) {
        if (field.only_when_not_empty && value && value->empty()) return;
      }
      if (value) j[field.key] = written(*value);
    } else {
      j[field.key] = written(value);
    }
  });
  return j;
}

// Reads v's fields from the object j, in list order; a field added later
// that j lacks is absent (nullopt), a list written only when not empty is
// empty.
template <class T>
void read_fields(const json& j, T& v) {
  expect_object(j);
  for_each_field<T>([&](const auto& field) {
    using Member = std::decay_t<decltype(v.*field.member)>;
    if constexpr (IsOptional<Member>::value) {
      if (field.may_be_missing && !j.contains(field.key)) {
        v.*field.member = field.only_when_not_empty ? Member(std::in_place) : Member(std::nullopt);
        return;
      }
    }
    read_field(j, field.key, v.*field.member);
  });
}

}  // namespace

// JSON has no NaN or infinity; they travel as strings (see read_value(double)).
json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// --- to_json ------------------------------------------------------------------

void to_json(json& j, const Dim3& v) { j = json::array({v.x, v.y, v.z}); }
void to_json(json& j, const MetricValue& v) { j = write_fields(v); }
// A kernel's findings (guidance.h) are derived from its metrics when
// written, and not read back; a kernel without any has no "guidance".
void to_json(json& j, const KernelRecord& v) {
  j = write_fields(v);
  json findings = json::array();
  for (const Finding& f : kernel_guidance(v)) {
    json values = json::array();
    for (const FindingValue& fv : f.values) {
      values.push_back(
          {{"label", fv.label}, {"metric", fv.metric}, {"value", json_number(fv.value)}, {"shown", fv.shown}});
    }
    findings.push_back({{"rule", f.rule},
                        {"title", f.title},
                        {"detail", f.detail},
                        {"advice", f.advice},
                        {"values", std::move(values)}});
  }
  if (!findings.empty()) j["guidance"] = std::move(findings);
}
void to_json(json& j, const StageTimings& v) { j = write_fields(v); }
void to_json(json& j, const TierUsage& v) { j = write_fields(v); }
void to_json(json& j, const Divergence& v) { j = write_fields(v); }
void to_json(json& j, const MetricSample& v) { j = write_fields(v); }
void to_json(json& j, const PassRecord& v) { j = write_fields(v); }
// A replayed range's roofline is derived from its metrics when written
// (roofline.h), and not read back.
void to_json(json& j, const RangeRecord& v) {
  j = write_fields(v);
  if (!v.declined) j["roofline"] = roofline_json(compute_roofline(v));
}
void to_json(json& j, const TimeBudget& v) { j = write_fields(v); }
namespace {

// The report's JSON with `ranges` written by the caller.
json report_fields(const Report& v, bool with_ranges) {
  json j = with_ranges ? write_fields(v) : write_fields(v, "ranges");
  if (!with_ranges) j["ranges"] = json::array();
  j["schema_version"] = kReportSchemaVersion;
  // The budget's gate wait and counter set-up rows are the report's own
  // fields, written again where the schema has them in time_budget.
  if (v.time_budget) {
    json& budget = j["time_budget"];
    budget["counter_setup_ms"] = json_number(v.setup_ms);
    if (v.gate_wait_ms) budget["gate_wait_ms"] = json_number(*v.gate_wait_ms);
  }
  return j;
}

}  // namespace

void to_json(json& j, const Report& v) { j = report_fields(v, /*with_ranges=*/true); }

json report_header_json(const Report& report) { return report_fields(report, /*with_ranges=*/false); }

// --- from_json ----------------------------------------------------------------

void from_json(const json& j, Dim3& v) {
  if (!j.is_array() || j.size() != 3) type_mismatch(j, "[x, y, z]");
  read_element(j, 0, v.x);
  read_element(j, 1, v.y);
  read_element(j, 2, v.z);
}

void from_json(const json& j, MetricValue& v) { read_fields(j, v); }
void from_json(const json& j, KernelRecord& v) { read_fields(j, v); }
void from_json(const json& j, StageTimings& v) { read_fields(j, v); }
void from_json(const json& j, TierUsage& v) { read_fields(j, v); }
void from_json(const json& j, Divergence& v) { read_fields(j, v); }
void from_json(const json& j, MetricSample& v) { read_fields(j, v); }
void from_json(const json& j, PassRecord& v) { read_fields(j, v); }
void from_json(const json& j, RangeRecord& v) { read_fields(j, v); }
void from_json(const json& j, TimeBudget& v) { read_fields(j, v); }
void from_json(const json& j, Report& v) {
  expect_object(j);
  std::uint32_t version = 0;
  read_field(j, "schema_version", version);
  if (version != kReportSchemaVersion) {
    throw JsonPathError("schema_version", fmt::format("is {}, this build reads {}", version, kReportSchemaVersion));
  }
  read_fields(j, v);
  // A report with the budget but not yet the top-level gate wait had it in
  // the budget only.
  if (!v.gate_wait_ms && v.time_budget && j["time_budget"].contains("gate_wait_ms")) {
    try {
      read_field(j["time_budget"], "gate_wait_ms", v.gate_wait_ms);
    } catch (JsonPathError& e) {
      e.prepend_key("time_budget");
      throw;
    }
  }
}

// --- text and files -------------------------------------------------------------

StatusOr<std::string> dump_report_json(const Report& report, int indent) {
  try {
    const json j = report;
    return j.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
  } catch (const std::bad_alloc&) {
    return resource_exhausted("out of memory while writing the report as JSON");
  } catch (const std::exception& e) {
    return internal_error(std::string("cannot write the report as JSON: ") + e.what());
  }
}

StatusOr<Report> parse_report_json(std::string_view text, std::string_view source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return invalid_argument(fmt::format("{} is not valid JSON: {}", source, strip_nlohmann_prefix(e.what())));
  } catch (const std::bad_alloc&) {
    return resource_exhausted(fmt::format("out of memory while reading {}", source));
  } catch (const std::exception& e) {  // a number out of range (1e400)
    return invalid_argument(
        fmt::format("{} is not a valid rangereplay report: {}", source, strip_nlohmann_prefix(e.what())));
  }
  return report_from_json(j, source);
}

StatusOr<Report> report_from_json(const json& j, std::string_view source) {
  try {
    if (!j.is_object() || !j.contains("schema_version")) {
      return invalid_argument(fmt::format("{} is not a rangereplay report: it has no schema_version field", source));
    }
    const json& version = j["schema_version"];
    if (version.is_number_unsigned() && version.get<std::uint64_t>() != kReportSchemaVersion) {
      return failed_precondition(
          fmt::format("{} has schema_version {}, but this rangereplay reads schema_version {}: read it with the "
                      "rangereplay build that wrote it",
                      source, version.get<std::uint64_t>(), kReportSchemaVersion));
    }
    Report report;
    from_json(j, report);
    return report;
  } catch (const JsonPathError& e) {
    return invalid_argument(fmt::format("{} is not a valid rangereplay report: {}", source, e.what()));
  } catch (const std::bad_alloc&) {
    return resource_exhausted(fmt::format("out of memory while reading {}", source));
  } catch (const std::exception& e) {
    return invalid_argument(
        fmt::format("{} is not a valid rangereplay report: {}", source, strip_nlohmann_prefix(e.what())));
  }
}

Status write_report_json(const Report& report, const std::filesystem::path& path) {
  try {
    RR_ASSIGN_OR_RETURN(std::string text, dump_report_json(report));
    return write_text_file(path, text);
  } catch (const std::exception& e) {  // path copies can only throw bad_alloc
    return resource_exhausted(std::string("cannot write the report: ") + e.what());
  }
}

StatusOr<Report> read_report_json(const std::filesystem::path& path) {
  try {
    RR_ASSIGN_OR_RETURN(std::string text, read_text_file(path));
    return parse_report_json(text, "report '" + path.string() + "'");
  } catch (const std::exception& e) {
    return resource_exhausted(std::string("cannot read the report: ") + e.what());
  }
}

}  // namespace rangereplay::report
