// The only launcher file that calls the report library (see report_output.h).
#include "cli/report_output.h"

#include <fstream>

#include "cli/report_api_placeholder.h"  // MERGE: replace with report/report_json.h, report_csv.h, report_table.h

namespace rangereplay::cli {

StatusOr<report::Report> load_report(const std::string& path) { return report::read_report_json(path); }

std::string report_table(const report::Report& report) { return report::render_table(report); }

Status save_report(const report::Report& report, const std::string& path, OutputFormat format) {
  if (format == OutputFormat::kJson) return report::write_report_json(report, path);
  std::ofstream out(path, std::ios::trunc);
  if (!out) return failed_precondition("cannot write " + path + "; check that its folder exists and is writable");
  out << report::render_csv(report);
  out.close();
  if (!out) return failed_precondition("cannot write " + path + " (disk full?)");
  return ok_status();
}

}  // namespace rangereplay::cli
