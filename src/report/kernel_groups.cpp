// Kernels grouped by short name (kernel_groups.h).
#include "report/kernel_groups.h"

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "report/demangle.h"
#include "report/guidance.h"

namespace rangereplay::report {

namespace {

bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

bool starts_with_at(std::string_view s, std::size_t i, std::string_view what) {
  return s.size() >= i + what.size() && s.substr(i, what.size()) == what;
}

// The demangler's spellings that hold brackets but are names, not nesting.
constexpr std::string_view kAnonymousNamespace = "(anonymous namespace)";
constexpr char kOpaque = 'o';

// `name` with every character that must not count as a bracket replaced by
// kOpaque: "(anonymous namespace)", the symbols of operator names
// ("operator()", "operator<<", "operator->", "operator new[]") and "->".
std::string mask_brackets(std::string_view name) {
  std::string plain(name);
  // Longest first, so "<<=" is not read as "<<" and "=".
  static constexpr std::array<std::string_view, 13> kSymbols = {"<=>", "<<=", ">>=", "->*", "()", "[]", "<<",
                                                                ">>",  "<=",  ">=",  "->",  "<",  ">"};
  for (std::size_t i = 0; i < plain.size();) {
    if (starts_with_at(name, i, kAnonymousNamespace)) {
      std::fill_n(plain.begin() + static_cast<std::ptrdiff_t>(i), kAnonymousNamespace.size(), kOpaque);
      i += kAnonymousNamespace.size();
      continue;
    }
    if (starts_with_at(name, i, "operator") && (i == 0 || !is_ident(name[i - 1])) &&
        (i + 8 == name.size() || !is_ident(name[i + 8]))) {
      std::size_t j = i + 8;
      bool matched = false;
      for (std::string_view sym : kSymbols) {
        if (starts_with_at(name, j, sym)) {
          std::fill_n(plain.begin() + static_cast<std::ptrdiff_t>(j), sym.size(), kOpaque);
          j += sym.size();
          matched = true;
          break;
        }
      }
      // "operator new[]", "operator delete[]".
      if (!matched) {
        for (std::string_view word : {std::string_view(" new[]"), std::string_view(" delete[]")}) {
          if (starts_with_at(name, j, word)) {
            std::fill_n(plain.begin() + static_cast<std::ptrdiff_t>(j + word.size() - 2), 2, kOpaque);
            j += word.size();
            break;
          }
        }
      }
      i = j;
      continue;
    }
    if (starts_with_at(name, i, "->")) {
      plain[i] = plain[i + 1] = kOpaque;
      i += 2;
      continue;
    }
    ++i;
  }
  return plain;
}

// Duration in nanoseconds of a value in `unit`; nullopt for a unit not known.
std::optional<double> to_ns(double value, std::string_view unit) {
  if (unit == "nanosecond" || unit == "nsecond" || unit == "ns") return value;
  if (unit == "usecond" || unit == "microsecond" || unit == "us") return value * 1e3;
  if (unit == "msecond" || unit == "millisecond" || unit == "ms") return value * 1e6;
  if (unit == "second" || unit == "s") return value * 1e9;
  return std::nullopt;
}

const MetricValue* find_metric(const KernelRecord& k, std::string_view name) {
  for (const MetricValue& m : k.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace

std::string kernel_short_name(std::string_view name) {
  const std::string plain = mask_brackets(name);
  // depth[i]: bracket nesting before character i ((), <>, {}, [] alike).
  std::vector<int> depth(plain.size() + 1, 0);
  int d = 0;
  std::size_t open = std::string_view::npos;  // the last top-level '('
  for (std::size_t i = 0; i < plain.size(); ++i) {
    depth[i] = d;
    const char c = plain[i];
    if (c == '(' || c == '<' || c == '{' || c == '[') {
      if (c == '(' && d == 0) open = i;
      ++d;
    } else if (c == ')' || c == '>' || c == '}' || c == ']') {
      if (--d < 0) return std::string(name);
    }
  }
  depth[plain.size()] = d;
  if (d != 0) return std::string(name);
  if (open == std::string_view::npos) return std::string(name);  // no parameter list: a C name
  std::size_t end = open;
  while (end > 0 && plain[end - 1] == ' ') --end;
  // Template arguments of the function: back to their top-level '<'.
  if (end > 0 && plain[end - 1] == '>') {
    std::size_t j = end - 1;
    while (j > 0 && !(plain[j] == '<' && depth[j] == 0)) --j;
    if (plain[j] != '<' || depth[j] != 0) return std::string(name);
    end = j;
    while (end > 0 && plain[end - 1] == ' ') --end;
  }
  // The name begins after the last top-level "::" or space (the return type),
  // unless it is an operator ("operator new", "operator unsigned int").
  std::size_t start = 0;
  for (std::size_t i = 0; i < end; ++i) {
    if (depth[i] != 0) continue;
    if (plain[i] == ' ') start = std::max(start, i + 1);
    if (i + 1 < end && plain[i] == ':' && plain[i + 1] == ':' && depth[i + 1] == 0) start = std::max(start, i + 2);
  }
  for (std::size_t i = end; i-- > 0;) {
    if (depth[i] == 0 && starts_with_at(name, i, "operator") && (i == 0 || !is_ident(name[i - 1])) &&
        (i + 8 >= end || !is_ident(name[i + 8]))) {
      // An operator after the last "::" only.
      bool after = true;
      for (std::size_t k = i; k + 1 < end; ++k) {
        if (depth[k] == 0 && plain[k] == ':' && plain[k + 1] == ':') after = false;
      }
      if (after) start = i;
      break;
    }
  }
  if (start >= end) return std::string(name);
  return std::string(name.substr(start, end - start));
}

namespace {

// The non-empty value of `values` whose members weigh the most (ties: the
// first in launch order); "" when every value is empty.
template <class Weight>
std::string heaviest(const std::vector<std::string>& values, const Weight& weight) {
  std::vector<std::pair<std::string, double>> sums;  // in order of first appearance
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].empty()) continue;
    auto it = std::find_if(sums.begin(), sums.end(), [&](const auto& p) { return p.first == values[i]; });
    if (it == sums.end()) it = sums.insert(sums.end(), {values[i], 0.0});
    it->second += weight(i);
  }
  std::string best;
  double most = -1;
  for (const auto& [value, sum] : sums) {
    if (sum > most) {
      best = value;
      most = sum;
    }
  }
  return best;
}

}  // namespace

KernelGroups group_kernels(const RangeRecord& range) {
  struct Sums {
    KernelGroup group;
    double memory_weighted = 0, memory_ns = 0, compute_weighted = 0, compute_ns = 0;
    // Per member: its duration (nullopt without one), for the verdicts' weights.
    std::vector<std::optional<double>> member_ns;
  };
  std::map<std::string, Sums> by_name;
  KernelGroups out;
  for (const KernelRecord& k : range.kernels) {
    const std::string full = kernel_display_name(k);
    std::string short_name = kernel_short_name(full);
    auto [it, inserted] = by_name.try_emplace(short_name);
    Sums& s = it->second;
    if (inserted) s.group.short_name = std::move(short_name);
    if (std::find(s.group.full_names.begin(), s.group.full_names.end(), full) == s.group.full_names.end()) {
      s.group.full_names.push_back(full);
    }
    s.group.kernel_indices.push_back(k.index);
    const MetricLookup lookup = metric_lookup(k);
    const std::optional<BottleneckVerdict> verdict = classify_bottleneck(lookup);
    const std::vector<StallShare> stalls = top_stalls(lookup, 1);
    s.group.member_bottlenecks.emplace_back(verdict ? bottleneck_name(verdict->kind) : std::string_view());
    s.group.member_top_stalls.push_back(stalls.empty() ? std::string() : stalls.front().reason);
    const MetricValue* duration = find_metric(k, kDurationRole);
    const std::optional<double> ns = duration != nullptr ? to_ns(duration->value, duration->unit) : std::nullopt;
    s.member_ns.push_back(ns);
    if (!ns) continue;
    ++s.group.kernels_with_duration;
    s.group.total_ns += *ns;
    out.total_ns += *ns;
    ++out.kernels_with_duration;
    if (const MetricValue* m = find_metric(k, kSolMemoryRole)) {
      s.memory_weighted += m->value * *ns;
      s.memory_ns += *ns;
    }
    if (const MetricValue* m = find_metric(k, kSolComputeRole)) {
      s.compute_weighted += m->value * *ns;
      s.compute_ns += *ns;
    }
  }
  std::vector<Sums*> order;
  order.reserve(by_name.size());
  for (auto& [name, s] : by_name) {
    // Weighted by time: a kernel of 0 ns weighs nothing.
    if (s.memory_ns > 0) s.group.sol_memory_pct = s.memory_weighted / s.memory_ns;
    if (s.compute_ns > 0) s.group.sol_compute_pct = s.compute_weighted / s.compute_ns;
    if (out.total_ns > 0) s.group.share_pct = 100.0 * s.group.total_ns / out.total_ns;
    const bool timed = s.group.kernels_with_duration > 0;
    // Not the structured binding itself: clang 14 cannot capture one.
    const std::vector<std::optional<double>>& member_ns = s.member_ns;
    const auto weight = [&](std::size_t member) { return timed ? member_ns[member].value_or(0) : 1.0; };
    s.group.bottleneck = heaviest(s.group.member_bottlenecks, weight);
    s.group.top_stall = heaviest(s.group.member_top_stalls, weight);
    order.push_back(&s);
  }
  std::sort(order.begin(), order.end(), [](const Sums* a, const Sums* b) {
    if (a->group.total_ns != b->group.total_ns) return a->group.total_ns > b->group.total_ns;
    if (a->group.count() != b->group.count()) return a->group.count() > b->group.count();
    return a->group.short_name < b->group.short_name;
  });
  out.groups.reserve(order.size());
  for (Sums* s : order) out.groups.push_back(std::move(s->group));
  return out;
}

}  // namespace rangereplay::report
