// The report as one self-contained HTML page that opens offline in a
// browser: per range its passes, footprint and restored bytes, the replay
// window's stages as a stacked bar, a roofline (achieved FLOP/s against
// arithmetic intensity, DRAM and L2, under the GPU's own peak compute and
// bandwidth ceilings read from the peak values of its counters, as Nsight
// Compute draws it) with each kernel and the whole range as points, and a
// sortable table of its kernels; declined ranges with their reasons and
// fixes; the run's time budget. The charts are drawn by Chart.js, whose
// source the caller passes in and the page inlines, so nothing is fetched.
// Metrics the roofline needs that the report lacks are named on the page.
//
// The page writes what it drew into <pre id="rr-check"> as JSON (charts,
// canvases with pixels drawn, kernel rows, script errors), so a headless
// browser can check it (tests/scripts/html_report_test.sh).
//
// Thread-safety: pure functions.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "core/status.h"
#include "report/report_model.h"

namespace rangereplay::report {

/// The metrics the roofline reads (counts, duration, bytes and their
/// peaks), in the order the page names missing ones.
std::span<const std::string_view> roofline_metrics();

/// The page for `report`. `chart_js`: Chart.js's UMD build (empty: the page
/// says the charts are unavailable and why, and still has its tables).
/// Errors: the report cannot be serialized (resource_exhausted).
StatusOr<std::string> render_report_html(const Report& report, std::string_view chart_js);

/// render_report_html written to `path` (report_file.h's write_text_file).
Status write_report_html(const Report& report, std::string_view chart_js, const std::filesystem::path& path);

}  // namespace rangereplay::report
