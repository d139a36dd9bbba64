// The report as one self-contained HTML page that opens offline in a
// browser: per range its passes, footprint and restored bytes, the replay
// window's stages as a stacked bar, a roofline (the range's `roofline` of
// the report JSON, report/roofline.h: TFLOP/s of every data type, tensor
// cores included, against FLOP/byte, under labelled compute ceilings per data
// type and DRAM and L2 bandwidth ceilings) with each kernel and the whole
// range as points and the ceilings as a table, beside or below it a band of
// the kernels without floating-point work placed by their achieved DRAM
// bandwidth against the DRAM peak, and a line naming, by reason, the kernels
// on neither; a table of its kernel groups
// (report/kernel_groups.h: short name, count, total time, share of the
// range, SOL memory and compute), largest total time first, each opening to
// its kernels; a sortable table of its kernels; a block per kernel with its
// metrics and their units (id "rr-r<range>-k<kernel>", written when a link
// to it or the list is first opened; a group's tbody is "rr-r<range>-g<n>");
// declined ranges with their reasons and
// fixes; the run's time budget. The charts are drawn by Chart.js, whose
// source the caller passes in and the page inlines, so nothing is fetched.
// Metrics the roofline needs that the report lacks, and data types whose
// FLOPs are not counted for want of them, are named on the page.
//
// The page writes what it drew into <pre id="rr-check"> as JSON (charts,
// canvases with pixels drawn, kernel rows, roofline and band points, group rows and
// each range's first group, kernel blocks, group members without a block,
// the block or group the URL's fragment opened, script errors), so a headless
// browser can check it (tests/scripts/html_report_test.sh).
//
// Thread-safety: pure functions.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "report/report_model.h"

namespace rangereplay::report {

/// The page for `report`. `chart_js`: Chart.js's UMD build (empty: the page
/// says the charts are unavailable and why, and still has its tables).
/// Errors: the report or its kernel groups cannot be serialized
/// (resource_exhausted when out of memory, internal otherwise).
StatusOr<std::string> render_report_html(const Report& report, std::string_view chart_js);

/// render_report_html written to `path` (report_file.h's write_text_file).
Status write_report_html(const Report& report, std::string_view chart_js, const std::filesystem::path& path);

}  // namespace rangereplay::report
