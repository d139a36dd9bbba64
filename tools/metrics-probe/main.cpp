// metrics-probe: what a chip's metric catalog says, from the command line and
// without a GPU. For checking metric names and set pass counts on a laptop or
// CI machine, and for choosing metrics to add to a set:
//
//   metrics-probe --chip GA102 --sets                  # sets on a chip: metrics, missing, passes
//   metrics-probe --chip GH100 --set full --each       # passes of each metric alone
//   metrics-probe --chip GH100 --metrics a.sum,b.sum   # validate, units, passes
//   metrics-probe --chip GH100 --list                  # base metrics: kind, unit, description
//   metrics-probe --chip GH100 --list-all              # every full name, one per line
//
// Exit status: 0 on success, 2 for bad command-line usage (no argument: the
// usage on stderr) or an unknown metric, set or chip, 1 when the catalog
// cannot answer (the message names the cause).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "core/base/ascii.h"
#include "core/base/closest_names.h"
#include "core/config/metric_sets.h"
#include "cupti/metric_catalog.h"
#include "metrics-probe/probe_options.h"

namespace rr = rangereplay;

namespace {

// One line: the cause and the fix. Bad input (an unknown metric, set or
// chip) exits 2, like the launcher's usage errors; anything else 1.
int fail(const std::string& program, const rr::Status& status) {
  std::fprintf(stderr, "%s: %s\n", program.c_str(), status.message().c_str());
  return status.code() == rr::StatusCode::kInvalidArgument || status.code() == rr::StatusCode::kNotFound ? 2 : 1;
}

// A chip CUPTI's host API does not list, named with the closest one it does
// ("gh100" -> GH100, "GH10" -> GH100) and the list; nullopt for a listed
// chip, or when the list cannot be read (MetricCatalog::create then says why).
std::optional<rr::Status> unknown_chip(const std::string& chip) {
  const rr::StatusOr<std::vector<std::string>> chips = rr::cupti::supported_chips();
  if (!chips.ok() || std::find(chips->begin(), chips->end(), chip) != chips->end()) return std::nullopt;
  std::string list, family;
  for (const std::string& c : *chips) list += (list.empty() ? "" : ", ") + c;
  // A family written as GA10x: its chips, not the nearest single name. The
  // x stands for a digit from 1 (GA100, the x0 chip, and GA10B, a Tegra one,
  // are not of the GA10x family NVIDIA names).
  if (chip.size() > 1 && (chip.back() == 'x' || chip.back() == 'X')) {
    const std::string prefix = rr::ascii_lower(chip.substr(0, chip.size() - 1));
    for (const std::string& c : *chips) {
      if (c.size() == chip.size() && rr::ascii_lower(c).starts_with(prefix) && c.back() >= '1' && c.back() <= '9')
        family += (family.empty() ? "" : ", ") + c;
    }
  }
  const std::vector<std::string> close =
      rr::closest_names_ignoring_case(chip, *chips, 1, rr::plausible_typo_distance(chip.size()));
  const std::string hint = !family.empty() ? " (one chip of the family: " + family + ")"
                           : close.empty() ? std::string()
                                           : " (did you mean " + close.front() + "?)";
  return rr::invalid_argument("CUPTI's profiler host API does not know chip '" + chip + "'" + hint +
                              "; supported chips: " + list);
}

}  // namespace

int main(int argc, char** argv) {
  const rr::probe::ProbeCommandLine command_line =
      rr::probe::parse_probe_options(std::vector<std::string>(argv, argv + argc), std::cout, std::cerr);
  if (command_line.exit_code) return *command_line.exit_code;
  const auto& [chip, metrics_csv, set_name, list, list_all, sets, each] = command_line.options;

  if (std::optional<rr::Status> unknown = unknown_chip(chip)) return fail(command_line.program, *unknown);
  auto catalog = rr::cupti::MetricCatalog::create(chip);
  if (!catalog.ok()) return fail(command_line.program, catalog.status());

  if (list) {
    auto infos = catalog->describe_base_metrics();
    if (!infos.ok()) return fail(command_line.program, infos.status());
    for (const auto& info : *infos) {
      std::printf("%s\t%s\t%s\t%s\n", info.name.c_str(), rr::cupti::metric_kind_name(info.kind), info.dim_unit.c_str(),
                  info.description.c_str());
    }
  }
  if (list_all) {
    for (const auto& name : catalog->list_metrics()) std::printf("%s\n", name.c_str());
  }
  const rr::MetricPresence chip_has = [&](const std::string& name) { return catalog->contains(name); };
  if (sets) {
    // Each set resolved on this chip: what it collects there, the roles the
    // chip has under no name, the passes, and its sections.
    std::printf("%-12s %8s %8s %7s  %s\n", "set", "metrics", "missing", "passes", "sections");
    for (const auto& set : rr::metric_sets()) {
      auto resolved = rr::resolve_metric_list("", set.name, chip_has);
      if (!resolved.ok()) return fail(command_line.program, resolved.status());
      auto passes = catalog->pass_count(resolved->metrics);
      if (!passes.ok()) return fail(command_line.program, passes.status());
      std::string sections;
      for (const auto& section : set.sections) sections += (sections.empty() ? "" : ", ") + section;
      std::printf("%-12s %8zu %8zu %7u  %s\n", set.name.c_str(), resolved->metrics.size(), resolved->missing.size(),
                  *passes, sections.c_str());
    }
  }
  if (!metrics_csv.empty() || !set_name.empty()) {
    auto resolved = rr::resolve_metric_list(metrics_csv, set_name, chip_has);
    if (!resolved.ok()) return fail(command_line.program, resolved.status());
    const std::vector<std::string>& names = resolved->metrics;
    if (rr::Status valid = catalog->validate(names); !valid.ok()) return fail(command_line.program, valid);
    for (const auto& name : names) {
      auto unit = catalog->unit_of(name);
      std::string alone;
      if (each) {
        auto passes = catalog->pass_count({name});
        alone = passes.ok() ? std::to_string(*passes) : "-";
      }
      std::printf("%-70s %-16s %s\n", name.c_str(), unit.ok() ? unit->c_str() : "?", alone.c_str());
    }
    for (const auto& role : resolved->missing) std::printf("%-70s %-16s\n", role.c_str(), "missing");
    auto passes = catalog->pass_count(names);
    if (!passes.ok()) return fail(command_line.program, passes.status());
    std::printf("%zu metric%s, %u pass%s on %s", names.size(), names.size() == 1 ? "" : "s", *passes,
                *passes == 1 ? "" : "es", chip.c_str());
    if (!resolved->missing.empty())
      std::printf("; %zu of the set's metrics missing on %s", resolved->missing.size(), chip.c_str());
    std::printf("\n");
  }
  return 0;
}
