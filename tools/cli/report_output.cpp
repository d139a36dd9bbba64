// The only launcher file that calls the report library (see report_output.h).
#include "cli/report_output.h"

#include "report/report_csv.h"
#include "report/report_file.h"
#include "report/report_json.h"
#include "report/report_table.h"

namespace rangereplay::cli {

StatusOr<report::Report> load_report(const std::string& path) { return report::read_report_json(path); }

std::string report_table(const report::Report& report) { return report::render_report_table(report); }

Status save_report(const report::Report& report, const std::string& path, OutputFormat format) {
  if (format == OutputFormat::kJson) return report::write_report_json(report, path);
  return report::write_report_csv(report, path);
}

}  // namespace rangereplay::cli
