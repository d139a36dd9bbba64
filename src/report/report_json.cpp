// The report as JSON (report_json.h): nlohmann-json hooks with strict,
// path-naming readers, and the Status-returning file functions.
#include "report/report_json.h"

#include <fmt/format.h>
#include <cmath>
#include <exception>
#include <limits>
#include <new>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "report/report_file.h"

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

// Model structs go through their from_json hook.
template <typename T>
requires requires(const json& j, T& t) { from_json(j, t); }
void read_value(const json& j, T& out) { from_json(j, out); }

template <typename T>
void read_value(const json& j, std::vector<T>& out) {
  if (!j.is_array()) type_mismatch(j, "an array");
  std::vector<T> values(j.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    try {
      read_value(j[i], values[i]);
    } catch (JsonPathError& e) {
      e.prepend_index(i);
      throw;
    }
  }
  out = std::move(values);
}

// Reads j[key] into `out`; a missing key is an error.
template <typename T>
void field(const json& j, std::string_view key, T& out) {
  const auto it = j.find(key);
  if (it == j.end()) throw JsonPathError(std::string(key), "missing field");
  try {
    read_value(*it, out);
  } catch (JsonPathError& e) {
    e.prepend_key(key);
    throw;
  }
}

// Reads j[key] into `out` when present; a missing key leaves `out` as it is
// (fields added to schema_version 1 after its first release).
template <typename T>
void optional_field(const json& j, std::string_view key, T& out) {
  if (j.contains(key)) field(j, key, out);
}

// JSON has no NaN or infinity; they travel as strings (see read_value(double)).
json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// "[json.exception.parse_error.101] parse error at ..." -> "parse error at ...".
std::string strip_nlohmann_prefix(std::string_view what) {
  if (!what.empty() && what[0] == '[') {
    const auto close = what.find("] ");
    if (close != std::string_view::npos) what.remove_prefix(close + 2);
  }
  return std::string(what);
}

}  // namespace

// --- to_json ------------------------------------------------------------------

void to_json(json& j, const Dim3& v) { j = json::array({v.x, v.y, v.z}); }

void to_json(json& j, const MetricValue& v) {
  j = json{{"name", v.name}, {"unit", v.unit}, {"value", number(v.value)}};
}

void to_json(json& j, const KernelRecord& v) {
  j = json{{"index", v.index},
           {"name", v.name},
           {"mangled_name", v.mangled_name},
           {"grid", v.grid},
           {"block", v.block},
           {"shared_mem_bytes", v.shared_mem_bytes},
           {"stream_id", v.stream_id},
           {"launch_index", v.launch_index},
           {"metrics", v.metrics}};
}

void to_json(json& j, const StageTimings& v) {
  j = json{{"sync_ms", number(v.sync_ms)},       {"capture_ms", number(v.capture_ms)},
           {"restore_ms", number(v.restore_ms)}, {"replay_submit_ms", number(v.replay_submit_ms)},
           {"kernels_ms", number(v.kernels_ms)}, {"counters_ms", number(v.counters_ms)},
           {"decode_ms", number(v.decode_ms)},   {"verify_ms", number(v.verify_ms)},
           {"window_ms", number(v.window_ms)},   {"begin_ms", number(v.begin_ms)},
           {"other_ms", number(v.other_ms)}};
}

void to_json(json& j, const TierUsage& v) {
  j = json{{"tier", v.tier}, {"bytes", v.bytes}, {"arena_bytes", v.arena_bytes}, {"new_allocation", v.new_allocation}};
}

void to_json(json& j, const Divergence& v) {
  j = json{{"address", v.address}, {"size_bytes", v.size_bytes}, {"origin", v.origin}};
}

void to_json(json& j, const PassRecord& v) {
  j = json{{"pass", v.pass}, {"restored_bytes", v.restored_bytes}, {"divergences", v.divergences}};
}

void to_json(json& j, const RangeRecord& v) {
  j = json{{"index", v.index},
           {"name", v.name},
           {"declined", v.declined},
           {"decline_reason", v.decline_reason},
           {"decline_detail", v.decline_detail},
           {"passes", v.passes},
           {"footprint_bytes", v.footprint_bytes},
           {"regions", v.regions},
           {"tiers", v.tiers},
           {"restore", v.restore},
           {"timings", v.timings},
           {"kernels", v.kernels},
           {"range_metrics", v.range_metrics},
           {"pass_records", v.pass_records},
           {"notes", v.notes}};
}

void to_json(json& j, const Report& v) {
  j = json{{"schema_version", kReportSchemaVersion},
           {"tool_version", v.tool_version},
           {"device_name", v.device_name},
           {"chip_name", v.chip_name},
           {"driver_version", v.driver_version},
           {"compute_capability", v.compute_capability},
           {"process_id", v.process_id},
           {"command", v.command},
           {"metrics", v.metrics},
           {"range_metrics", v.range_metrics},
           {"pass_count", v.pass_count},
           {"setup_ms", number(v.setup_ms)},
           {"launcher_ms", number(v.launcher_ms)},
           {"gate_wait_ms", number(v.gate_wait_ms)},
           {"verify", v.verify},
           {"ranges", v.ranges},
           {"errors", v.errors}};
}

// --- from_json ----------------------------------------------------------------

void from_json(const json& j, Dim3& v) {
  if (!j.is_array() || j.size() != 3) type_mismatch(j, "[x, y, z]");
  std::uint32_t* parts[3] = {&v.x, &v.y, &v.z};
  for (std::size_t i = 0; i < 3; ++i) {
    try {
      read_value(j[i], *parts[i]);
    } catch (JsonPathError& e) {
      e.prepend_index(i);
      throw;
    }
  }
}

void from_json(const json& j, MetricValue& v) {
  expect_object(j);
  field(j, "name", v.name);
  field(j, "unit", v.unit);
  field(j, "value", v.value);
}

void from_json(const json& j, KernelRecord& v) {
  expect_object(j);
  field(j, "index", v.index);
  field(j, "name", v.name);
  field(j, "mangled_name", v.mangled_name);
  field(j, "grid", v.grid);
  field(j, "block", v.block);
  field(j, "shared_mem_bytes", v.shared_mem_bytes);
  field(j, "stream_id", v.stream_id);
  optional_field(j, "launch_index", v.launch_index);
  field(j, "metrics", v.metrics);
}

void from_json(const json& j, StageTimings& v) {
  expect_object(j);
  field(j, "sync_ms", v.sync_ms);
  field(j, "capture_ms", v.capture_ms);
  field(j, "restore_ms", v.restore_ms);
  field(j, "replay_submit_ms", v.replay_submit_ms);
  field(j, "kernels_ms", v.kernels_ms);
  field(j, "counters_ms", v.counters_ms);
  field(j, "decode_ms", v.decode_ms);
  field(j, "verify_ms", v.verify_ms);
  field(j, "window_ms", v.window_ms);
  field(j, "begin_ms", v.begin_ms);
  field(j, "other_ms", v.other_ms);
}

void from_json(const json& j, TierUsage& v) {
  expect_object(j);
  field(j, "tier", v.tier);
  field(j, "bytes", v.bytes);
  field(j, "arena_bytes", v.arena_bytes);
  field(j, "new_allocation", v.new_allocation);
}

void from_json(const json& j, Divergence& v) {
  expect_object(j);
  field(j, "address", v.address);
  field(j, "size_bytes", v.size_bytes);
  field(j, "origin", v.origin);
}

void from_json(const json& j, PassRecord& v) {
  expect_object(j);
  field(j, "pass", v.pass);
  field(j, "restored_bytes", v.restored_bytes);
  field(j, "divergences", v.divergences);
}

void from_json(const json& j, RangeRecord& v) {
  expect_object(j);
  field(j, "index", v.index);
  field(j, "name", v.name);
  field(j, "declined", v.declined);
  field(j, "decline_reason", v.decline_reason);
  field(j, "decline_detail", v.decline_detail);
  field(j, "passes", v.passes);
  field(j, "footprint_bytes", v.footprint_bytes);
  field(j, "regions", v.regions);
  field(j, "tiers", v.tiers);
  optional_field(j, "restore", v.restore);
  field(j, "timings", v.timings);
  field(j, "kernels", v.kernels);
  field(j, "range_metrics", v.range_metrics);
  field(j, "pass_records", v.pass_records);
  field(j, "notes", v.notes);
}

void from_json(const json& j, Report& v) {
  expect_object(j);
  std::uint32_t version = 0;
  field(j, "schema_version", version);
  if (version != kReportSchemaVersion) {
    throw JsonPathError("schema_version", fmt::format("is {}, this build reads {}", version, kReportSchemaVersion));
  }
  field(j, "tool_version", v.tool_version);
  field(j, "device_name", v.device_name);
  field(j, "chip_name", v.chip_name);
  field(j, "driver_version", v.driver_version);
  field(j, "compute_capability", v.compute_capability);
  field(j, "process_id", v.process_id);
  field(j, "command", v.command);
  field(j, "metrics", v.metrics);
  field(j, "range_metrics", v.range_metrics);
  field(j, "pass_count", v.pass_count);
  field(j, "setup_ms", v.setup_ms);
  optional_field(j, "launcher_ms", v.launcher_ms);
  optional_field(j, "gate_wait_ms", v.gate_wait_ms);
  field(j, "verify", v.verify);
  field(j, "ranges", v.ranges);
  field(j, "errors", v.errors);
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
  try {
    json j;
    try {
      j = json::parse(text);
    } catch (const json::parse_error& e) {
      return invalid_argument(fmt::format("{} is not valid JSON: {}", source, strip_nlohmann_prefix(e.what())));
    }
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
