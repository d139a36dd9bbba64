// Pairing keys shared by diff and merge (see report_pairing.h).
#include "report/report_pairing.h"

#include <fmt/format.h>

#include <algorithm>

namespace rangereplay::report {

namespace {

std::string dims(const Dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

}  // namespace

std::string range_name(const RangeRecord& range) { return range.name; }

std::string kernel_key(const KernelRecord& kernel) {
  return kernel.name + " " + dims(kernel.grid) + "x" + dims(kernel.block);
}

std::optional<std::string> kernel_sequence_difference(const std::vector<KernelRecord>& reference,
                                                      std::string_view reference_label,
                                                      const std::vector<KernelRecord>& other,
                                                      std::string_view other_label) {
  const std::size_t common = std::min(reference.size(), other.size());
  for (std::size_t i = 0; i < common; ++i) {
    const std::string a = kernel_key(reference[i]), b = kernel_key(other[i]);
    if (a != b) return fmt::format("kernel {} is '{}' in {} and '{}' in {}", i, a, reference_label, b, other_label);
  }
  if (reference.size() > common)
    return fmt::format("{} ends after {} kernels; {}'s kernel {} is '{}'", other_label, common, reference_label, common,
                       kernel_key(reference[common]));
  if (other.size() > common)
    return fmt::format("{} ends after {} kernels; {}'s kernel {} is '{}'", reference_label, common, other_label, common,
                       kernel_key(other[common]));
  return std::nullopt;
}

std::map<std::string, const MetricValue*> metrics_by_name(const std::vector<MetricValue>& metrics) {
  std::map<std::string, const MetricValue*> out;
  for (const MetricValue& m : metrics) out.emplace(m.name, &m);
  return out;
}

std::string gpu_of(const Report& report) { return report.device_name + " (" + report.chip_name + ")"; }

}  // namespace rangereplay::report
