// A saved report in the terminal: pages and filters (see report_view.h).
#include "report/report_view.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/base/ascii.h"
#include "core/config/metric_sets.h"
#include "core/range/range_selector.h"
#include "report/demangle.h"
#include "report/format_helpers.h"
#include "report/guidance.h"
#include "report/kernel_sections.h"
#include "report/report_table.h"
#include "report/time_budget.h"

namespace rangereplay::report {
namespace {

constexpr std::string_view kRegexPrefix = "regex:";
constexpr std::string_view kOtherGroup = "Other";

// The sections a report's metrics are shown in: those of the set that covers
// most of the collected names, each name mapped to its first section.
class SectionIndex {
 public:
  explicit SectionIndex(const std::vector<std::string>& collected) {
    std::unordered_map<std::string, std::string> role_of;  // any spelling -> role
    for (const MetricSection& section : metric_sections()) {
      for (const std::string& role : section.roles) {
        for (std::string& spelling : role_spellings(role)) role_of.emplace(std::move(spelling), role);
      }
    }
    std::set<std::string> roles;
    for (const std::string& name : collected) {
      auto it = role_of.find(name);
      roles.insert(it == role_of.end() ? name : it->second);
    }
    const MetricSet* best = &metric_sets().back();
    std::size_t best_cover = 0;
    for (const MetricSet& set : metric_sets()) {
      std::size_t cover = 0;
      for (const std::string& role : set.metrics) cover += roles.contains(role) ? 1 : 0;
      if (cover > best_cover) {
        best = &set;
        best_cover = cover;
      }
    }
    for (const std::string& section_name : best->sections) {
      const MetricSection* section = find_metric_section(section_name);
      if (section == nullptr) continue;
      const std::size_t index = titles_.size();
      titles_.push_back(section->title);
      for (const std::string& role : section->roles) {
        for (std::string& spelling : role_spellings(role)) section_of_.emplace(std::move(spelling), index);
      }
    }
  }

  std::vector<MetricGroup> group(const std::vector<MetricValue>& metrics) const {
    std::vector<MetricGroup> groups(titles_.size() + 1);
    for (std::size_t i = 0; i < titles_.size(); ++i) groups[i].title = titles_[i];
    groups.back().title = kOtherGroup;
    for (const MetricValue& m : metrics) {
      auto it = section_of_.find(m.name);
      groups[it == section_of_.end() ? titles_.size() : it->second].metrics.push_back(m);
    }
    std::erase_if(groups, [](const MetricGroup& g) { return g.metrics.empty(); });
    return groups;
  }

 private:
  std::vector<std::string> titles_;
  std::unordered_map<std::string, std::size_t> section_of_;
};

// The collected names of a report, or, for one that lists none, the names of
// its values.
std::vector<std::string> collected_names(const Report& report) {
  if (!report.metrics.empty()) return report.metrics;
  std::set<std::string> names;
  for (const RangeRecord& range : report.ranges) {
    for (const MetricValue& m : range.range_metrics) names.insert(m.name);
    for (const KernelRecord& k : range.kernels)
      for (const MetricValue& m : k.metrics) names.insert(m.name);
  }
  return {names.begin(), names.end()};
}

bool is_index_list(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789,- ") == std::string_view::npos;
}

// "0-1: 'step', 2: 'eval'"-like list of what a report's ranges are, for errors.
std::string range_list(const Report& report) {
  std::vector<std::string> items;
  for (const RangeRecord& r : report.ranges) items.push_back(fmt::format("{} '{}'", r.index, escape_controls(r.name)));
  if (items.size() > 8) {
    const std::size_t more = items.size() - 8;
    items.resize(8);
    items.push_back(fmt::format("{} more", more));
  }
  return items.empty() ? std::string("none") : fmt::format("{}", fmt::join(items, ", "));
}

std::string range_title(const RangeRecord& range) {
  if (range.name.empty()) return fmt::format("range {}", range.index);
  return fmt::format("range {} '{}'", range.index, escape_controls(range.name));
}

// "range 0 'step': 3 passes, 6 kernels, window 12.3 ms", or its decline.
std::string range_line(const RangeRecord& range) {
  std::string out = range_title(range);
  if (range.declined) {
    out += ": declined";
    if (!range.decline_reason.empty()) out += " (" + escape_controls(range.decline_reason) + ")";
    if (!range.decline_detail.empty()) out += ": " + escape_controls(range.decline_detail);
    return out + "\n";
  }
  return out +
         fmt::format(": {}, {}, window {}\n", count_of(range.passes, "pass"), count_of(range.kernels.size(), "kernel"),
                     format_ms(range.timings.window_ms)) +
         render_samples_line(range);
}

std::optional<double> value_of(const std::vector<MetricValue>& metrics, std::string_view name) {
  for (const MetricValue& m : metrics)
    if (m.name == name) return m.value;
  return std::nullopt;
}

// A duration in nanoseconds as people read it: "850 ns", "12.35 us", "1.23 ms".
std::string format_ns(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
  if (ns < 1e6) return fmt::format("{:.2f} us", ns / 1e3);
  return fmt::format("{:.2f} ms", ns / 1e6);
}

std::string format_optional_pct(std::optional<double> pct) { return pct ? fmt::format("{:.1f}", *pct) : "-"; }

std::string launch_of(const KernelRecord& k) { return format_dim3(k.grid) + "x" + format_dim3(k.block); }

std::string shown_name(const KernelRecord& k) {
  return truncate_middle(escape_controls(kernel_display_name(k)), kViewKernelNameWidth);
}

std::string render_summary(const Report& report) {
  std::string out;
  for (const RangeRecord& range : report.ranges) {
    out += "\n" + range_line(range);
    if (range.kernels.empty()) continue;
    std::size_t launch_width = std::string_view("Grid x Block").size();
    for (const KernelRecord& k : range.kernels) launch_width = std::max(launch_width, launch_of(k).size());
    out += fmt::format("  {:>5} {:>10} {:>9} {:>8}  {:<{}}  {}\n", "#", "Duration", "Compute%", "Memory%",
                       "Grid x Block", launch_width, "Kernel");
    for (const KernelRecord& k : range.kernels) {
      const std::optional<double> ns = value_of(k.metrics, kDurationRole);
      out += fmt::format("  {:>5} {:>10} {:>9} {:>8}  {:<{}}  {}\n", k.index, ns ? format_ns(*ns) : "-",
                         format_optional_pct(value_of(k.metrics, kSolComputeRole)),
                         format_optional_pct(value_of(k.metrics, kSolMemoryRole)), launch_of(k), launch_width,
                         shown_name(k));
    }
  }
  return out;
}

struct Widths {
  std::size_t name = std::string_view("Metric Name").size();
  std::size_t unit = std::string_view("Metric Unit").size();
  std::size_t value = std::string_view("Metric Value").size();
  void fit(const std::vector<MetricValue>& metrics) {
    for (const MetricValue& m : metrics) {
      name = std::max(name, escape_controls(m.name).size());
      unit = std::max(unit, escape_controls(m.unit).size());
      value = std::max(value, format_metric_value(m.value).size());
    }
  }
};

// Each group as a table of its own, its columns as wide as its values need.
void append_groups(std::string& out, const std::vector<MetricGroup>& groups) {
  for (const MetricGroup& g : groups) {
    Widths w;
    w.fit(g.metrics);
    const std::string rule =
        fmt::format("    {} {} {}\n", std::string(w.name, '-'), std::string(w.unit, '-'), std::string(w.value, '-'));
    out += "    Section: " + g.title + "\n" + rule;
    out += fmt::format("    {:<{}} {:<{}} {:>{}}\n", "Metric Name", w.name, "Metric Unit", w.unit, "Metric Value",
                       w.value);
    out += rule;
    for (const MetricValue& m : g.metrics) {
      out += fmt::format("    {:<{}} {:<{}} {:>{}}\n", escape_controls(m.name), w.name, escape_controls(m.unit), w.unit,
                         format_metric_value(m.value), w.value);
    }
    out += rule;
  }
}

// A kernel's section table columns: label, unit, value (82 columns with the
// indent, so a page stays within 100).
constexpr std::size_t kLabelWidth = 46;
constexpr std::size_t kUnitWidth = 14;
constexpr std::size_t kValueWidth = 16;
// Findings are wrapped to this many columns.
constexpr std::size_t kTextWidth = 100;

void append_sections(std::string& out, const std::vector<KernelSection>& sections) {
  const std::string rule = fmt::format("    {} {} {}\n", std::string(kLabelWidth, '-'), std::string(kUnitWidth, '-'),
                                       std::string(kValueWidth, '-'));
  for (const KernelSection& s : sections) {
    out += "    Section: " + s.title + "\n" + rule;
    std::string group;
    for (const SectionRow& row : s.rows) {
      if (row.group != group) {
        group = row.group;
        out += "    " + group + "\n";
      }
      const std::string label = (group.empty() ? "" : "  ") + row.label;
      out +=
          fmt::format("    {:<{}} {:<{}} {:>{}}\n", label, kLabelWidth, row.unit, kUnitWidth, row.value, kValueWidth);
    }
    out += rule;
  }
}

// `text` after `first` (the first line's start), wrapped at kTextWidth with
// continuation lines indented by `indent` spaces.
std::string wrapped(std::string_view first, std::string_view text, std::size_t indent) {
  std::string out(first);
  std::size_t column = out.size();
  bool line_start = first.empty();
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    if (word.empty()) continue;
    if (!line_start && column + 1 + word.size() > kTextWidth) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    line_start = false;
  }
  return out + "\n";
}

void append_findings(std::string& out, const std::vector<Finding>& findings) {
  if (findings.empty()) return;
  out += "    Guidance:\n";
  for (const Finding& f : findings) {
    out += wrapped("    * " + f.title + ":", f.detail, 6);
    out += wrapped("      Try:", f.advice, 6);
  }
}

std::string render_details(const Report& report) {
  const SectionIndex sections(collected_names(report));
  std::string out;
  for (const RangeRecord& range : report.ranges) {
    out += "\n" + range_line(range);
    for (const KernelRecord& k : range.kernels) {
      // The name on a line of its own, shortened to the page's width; the
      // launch below it.
      const std::string prefix = fmt::format("  kernel {}: ", k.index);
      out += prefix + truncate_middle(escape_controls(kernel_display_name(k)), kTextWidth - prefix.size()) + "\n";
      out += "    launch " + launch_of(k);
      if (const std::optional<double> ns = value_of(k.metrics, kDurationRole)) out += ", " + format_ns(*ns);
      out += "\n";
      const std::vector<KernelSection> kernel_secs = kernel_sections(k);
      append_sections(out, kernel_secs);
      append_findings(out, kernel_guidance(k));
      std::set<std::string> shown_metrics;
      for (const KernelSection& s : kernel_secs)
        for (const SectionRow& row : s.rows)
          if (!row.metric.empty()) shown_metrics.insert(row.metric);
      std::size_t more = 0;
      for (const MetricValue& m : k.metrics) more += shown_metrics.contains(m.name) ? 0 : 1;
      if (more > 0) out += fmt::format("    {} more: --page raw lists every metric\n", count_of(more, "metric"));
    }
    if (!range.range_metrics.empty()) {
      out += "  range metrics:\n";
      append_groups(out, sections.group(range.range_metrics));
    }
  }
  return out;
}

}  // namespace

StatusOr<ViewPage> parse_view_page(std::string_view name) {
  if (name == "summary") return ViewPage::kSummary;
  if (name == "details") return ViewPage::kDetails;
  if (name == "raw") return ViewPage::kRaw;
  return invalid_argument("--page '" + escape_controls(name) + "': give summary, details or raw");
}

StatusOr<Report> filter_report(const Report& report, const ViewFilter& filter) {
  Report out = report;
  if (!filter.range.empty()) {
    std::optional<range::RangeSelector> selector;
    if (is_index_list(filter.range)) {
      RR_ASSIGN_OR_RETURN(range::RangeSelector parsed, range::RangeSelector::parse_list(filter.range, "--range"));
      selector = parsed;
    }
    std::erase_if(out.ranges, [&](const RangeRecord& r) {
      return selector ? !selector->selects(r.index) : r.name != filter.range;
    });
    if (out.ranges.empty()) {
      return not_found("--range '" + escape_controls(filter.range) + "' selects none of the report's ranges (" +
                       range_list(report) + "); give range indices (0,2-3) or a range name");
    }
  }
  if (filter.kernel_name.empty()) return out;

  std::optional<RE2> pattern;
  if (std::string_view(filter.kernel_name).starts_with(kRegexPrefix)) {
    RE2::Options options;
    options.set_log_errors(false);
    pattern.emplace(filter.kernel_name.substr(kRegexPrefix.size()), options);
    if (!pattern->ok()) {
      return invalid_argument("--kernel-name '" + escape_controls(filter.kernel_name) + "': " + pattern->error() +
                              "; write an RE2 pattern after regex: (e.g. regex:gemm|conv), or a part of the name "
                              "without regex:");
    }
  }
  std::size_t kernels_before = 0, kernels_after = 0;
  for (RangeRecord& range : out.ranges) {
    kernels_before += range.kernels.size();
    std::erase_if(range.kernels, [&](const KernelRecord& k) {
      const std::string name = kernel_display_name(k);
      return pattern ? !RE2::PartialMatch(name, *pattern) : name.find(filter.kernel_name) == std::string::npos;
    });
    range.range_metrics.clear();
    if (range.samples) range.samples->clear();
    kernels_after += range.kernels.size();
  }
  std::erase_if(out.ranges, [](const RangeRecord& r) { return r.kernels.empty(); });
  if (kernels_after == 0) {
    return not_found(
        fmt::format("--kernel-name '{}' matches none of the {} of the ranges shown; give a part of a "
                    "name as --page summary prints it, or regex:<RE2 pattern>",
                    escape_controls(filter.kernel_name), count_of(kernels_before, "kernel")));
  }
  return out;
}

std::vector<MetricGroup> group_by_sections(const std::vector<MetricValue>& metrics,
                                           const std::vector<std::string>& collected) {
  if (!collected.empty()) return SectionIndex(collected).group(metrics);
  std::vector<std::string> names;
  for (const MetricValue& m : metrics) names.push_back(m.name);
  return SectionIndex(names).group(metrics);
}

std::string render_report_view(const Report& report, ViewPage page) {
  if (page == ViewPage::kRaw) {
    return render_report_table(report, TableOptions{.max_kernel_name_width = std::numeric_limits<std::size_t>::max()});
  }
  std::string out = render_report_header(report);
  out += page == ViewPage::kSummary ? render_summary(report) : render_details(report);
  out += "\n" + render_report_footer(report) + render_time_budget(report);
  return out;
}

}  // namespace rangereplay::report
