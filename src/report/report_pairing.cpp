// Pairing keys shared by diff and merge (see report_pairing.h).
#include "report/report_pairing.h"

#include <fmt/format.h>

namespace rangereplay::report {

namespace {

std::string dims(const Dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

}  // namespace

std::string range_name(const RangeRecord& range) { return range.name; }

std::string kernel_key(const KernelRecord& kernel) {
  return kernel.name + " " + dims(kernel.grid) + "x" + dims(kernel.block);
}

std::map<std::string, const MetricValue*> metrics_by_name(const std::vector<MetricValue>& metrics) {
  std::map<std::string, const MetricValue*> out;
  for (const MetricValue& m : metrics) out.emplace(m.name, &m);
  return out;
}

std::string gpu_of(const Report& report) { return report.device_name + " (" + report.chip_name + ")"; }

}  // namespace rangereplay::report
