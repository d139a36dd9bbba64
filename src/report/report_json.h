// The report as JSON: the file the user asked for with --output x.json, and
// the interchange format between the injection library (writes it at process
// exit) and the launcher (reads it back and renders the table).
//
// Layout: one object per model type, keys named as the C++ fields
// (report_model.h), Dim3 as [x, y, z], and a top-level "schema_version"
// (kReportSchemaVersion) that readers check before anything else.
// Non-finite doubles (a metric that evaluates to NaN) are written as the
// strings "nan", "inf", "-inf", since JSON has no such numbers; every other
// value round-trips exactly (doubles in their shortest exact form, 64-bit
// addresses as unsigned integers).
//
//   RR_RETURN_IF_ERROR(write_report_json(report, "out.json"));
//   RR_ASSIGN_OR_RETURN(Report back, read_report_json("out.json"));
//
// Thread-safety: pure functions on values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "report/report_model.h"

namespace rangereplay::report {

/// The report layout this build writes and the only one it reads. Bump it
/// when a field is renamed, removed or changes meaning.
inline constexpr std::uint32_t kReportSchemaVersion = 1;

// nlohmann-json hooks (found by ADL: `nlohmann::json j = report;`,
// `j.get<Report>()`). to_json never throws except std::bad_alloc. from_json is
// strict: every field must be present with its JSON type and an unsigned
// value must fit its C++ type; unknown keys are ignored. Fields added to
// schema_version 1 later may be missing: KernelRecord::launch_index,
// RangeRecord::restore and counter_ranges, StageTimings::pass0_ms,
// Report::launcher_ms, gate_wait_ms, time_budget and missing_metrics. They are std::optional
// and read as nullopt then, and to_json leaves a nullopt field out: a report
// read and written again gains no value its file did not have.
// RangeRecord::samples (--set triage's PM samples, each {"start_ms",
// "end_ms", "values"}) is written only when the range has samples, and a
// range without the key reads as having none (an empty list): a report
// without samples is written as before the field existed.
// A replayed range's "roofline" (report/roofline.h: FLOP by data type, TFLOP/s,
// FLOP/byte, ceilings, what is missing) is derived from its metrics when
// written and not read back.
// A kernel's "guidance" (report/guidance.h: rule, title, detail, advice and
// the values each finding used) is likewise derived when written, left out
// when no rule has a finding, and not read back.
// time_budget's counter_setup_ms and gate_wait_ms are written from the
// report's setup_ms and gate_wait_ms, and not read back (those are the
// source; but for a report whose gate_wait_ms is only in its budget). It throws a
// std::runtime_error whose what() names the JSON path of the bad value
// ("ranges[0].kernels[1].grid[2]: expected an unsigned integer, got string").
// from_json(Report) also rejects a missing or different schema_version.
void to_json(nlohmann::json& j, const Dim3& v);
void to_json(nlohmann::json& j, const MetricValue& v);
void to_json(nlohmann::json& j, const KernelRecord& v);
void to_json(nlohmann::json& j, const StageTimings& v);
void to_json(nlohmann::json& j, const TierUsage& v);
void to_json(nlohmann::json& j, const Divergence& v);
void to_json(nlohmann::json& j, const MetricSample& v);
void to_json(nlohmann::json& j, const PassRecord& v);
void to_json(nlohmann::json& j, const RangeRecord& v);
void to_json(nlohmann::json& j, const TimeBudget& v);
void to_json(nlohmann::json& j, const Report& v);
void from_json(const nlohmann::json& j, Dim3& v);
void from_json(const nlohmann::json& j, MetricValue& v);
void from_json(const nlohmann::json& j, KernelRecord& v);
void from_json(const nlohmann::json& j, StageTimings& v);
void from_json(const nlohmann::json& j, TierUsage& v);
void from_json(const nlohmann::json& j, Divergence& v);
void from_json(const nlohmann::json& j, MetricSample& v);
void from_json(const nlohmann::json& j, PassRecord& v);
void from_json(const nlohmann::json& j, RangeRecord& v);
void from_json(const nlohmann::json& j, TimeBudget& v);
void from_json(const nlohmann::json& j, Report& v);

/// `v` as the report writes a double: a JSON number, or the string "nan",
/// "inf" or "-inf" for a non-finite value (JSON has no such numbers); the
/// reader takes both back. Shared by every JSON this library writes (the
/// report, the diff). Never throws except std::bad_alloc.
nlohmann::json json_number(double v);

/// The report's JSON with an empty "ranges" array, made without serializing
/// its ranges (the journal's header, report_journal.h). Never throws except
/// std::bad_alloc.
nlohmann::json report_header_json(const Report& report);
/// The report as JSON text (`indent` spaces per level; -1 for one line),
/// ending in a newline. Invalid UTF-8 in strings (an odd command-line
/// argument) is replaced by U+FFFD rather than failing. Never throws.
StatusOr<std::string> dump_report_json(const Report& report, int indent = 2);

/// Parses JSON text into a Report. Errors (never throws):
/// kInvalidArgument for text that is not JSON or a field that is missing or
/// mistyped (the message names its JSON path); kFailedPrecondition for a
/// schema_version other than kReportSchemaVersion.
/// `source` names the text in messages (usually the file path).
StatusOr<Report> parse_report_json(std::string_view text, std::string_view source = "report");

/// parse_report_json's checks and reading on JSON already parsed (a report
/// inside another document, such as a journal's header); errors as there,
/// but for "not valid JSON". Reads in place: no recursion per nesting level
/// beyond the report's own fields. Never throws.
StatusOr<Report> report_from_json(const nlohmann::json& j, std::string_view source);
/// write_text_file(path, dump_report_json(report)): an atomic replace
/// (report_file.h), errors as there.
Status write_report_json(const Report& report, const std::filesystem::path& path);

/// read_text_file(path) then parse_report_json; errors as there, each naming `path`.
StatusOr<Report> read_report_json(const std::filesystem::path& path);

}  // namespace rangereplay::report
