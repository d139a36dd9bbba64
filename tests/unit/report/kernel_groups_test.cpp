// Kernels grouped by short name: the short names of the demangler's
// spellings, and the groups of the real H200 torch training step (--set
// full, 2 steps of 560 kernels).
#include "report/kernel_groups.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "report/report_json.h"

namespace rangereplay::report {
namespace {

TEST(KernelShortName, templates_and_namespaces_collapse) {
  EXPECT_EQ(kernel_short_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                              "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(kernel_short_name("void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>("
                              "cutlass_80_simt_sgemm_128x256_8x4_nt_align1::Params)"),
            "Kernel2");
  EXPECT_EQ(kernel_short_name("kernel(float*, int)"), "kernel");
  EXPECT_EQ(kernel_short_name("ns::inner::kernel(float*)"), "kernel");
  EXPECT_EQ(kernel_short_name("void stream::triad<double>(double*, double const*, double const*, double)"), "triad");
}

TEST(KernelShortName, nested_templates_and_function_types_in_arguments) {
  EXPECT_EQ(kernel_short_name("void a::b<c::d<e::f<int, 3> >, g<void (*)(int), float [4]> >(h<i<j> >*)"), "b");
  // A return type with templates and a nested name of its own.
  EXPECT_EQ(kernel_short_name("std::enable_if<true, void>::type ns::k<int>(int)"), "k");
  // The parameter list holds brackets that are not the function's.
  EXPECT_EQ(kernel_short_name("void k(int (&) [4], std::function<void (int)>)"), "k");
}

TEST(KernelShortName, lambdas) {
  // PyTorch's elementwise kernels: lambdas (whose own parameter lists and
  // operator() are in the template arguments) nested several deep.
  EXPECT_EQ(kernel_short_name(
                "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
                "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
                "const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, "
                "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
                "const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, "
                "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
                "{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>("
                "at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
                "{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::"
                "{lambda(int)#1})"),
            "elementwise_kernel");
  // A lambda's own call operator as the function.
  EXPECT_EQ(kernel_short_name("f(int)::{lambda(float)#1}::operator()(float) const"), "operator()");
}

TEST(KernelShortName, operator_names) {
  EXPECT_EQ(kernel_short_name("ns::Functor::operator()(int) const"), "operator()");
  EXPECT_EQ(kernel_short_name("bool ns::operator< <int>(ns::V<int> const&, ns::V<int> const&)"), "operator<");
  EXPECT_EQ(kernel_short_name("ns::S& ns::operator<<(ns::S&, int)"), "operator<<");
  EXPECT_EQ(kernel_short_name("ns::A::operator->() const"), "operator->");
  EXPECT_EQ(kernel_short_name("ns::A::operator unsigned int() const"), "operator unsigned int");
  EXPECT_EQ(kernel_short_name("operator new[](unsigned long)"), "operator new[]");
  // Operators in the template arguments do not count as brackets.
  EXPECT_EQ(kernel_short_name("void apply<&ns::operator<, &ns::operator>>=, 2>(int)"), "apply");
  EXPECT_EQ(kernel_short_name("void k<decltype (a->b)>(int)"), "k");
}

TEST(KernelShortName, anonymous_namespaces) {
  EXPECT_EQ(kernel_short_name("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, "
                              "false>(int, float, float const*, float const*, float const*, float*, float*, float*)"),
            "vectorized_layer_norm_kernel");
  EXPECT_EQ(kernel_short_name("(anonymous namespace)::k(int)"), "k");
}

TEST(KernelShortName, c_names_and_what_does_not_parse_stay_as_they_are) {
  EXPECT_EQ(kernel_short_name("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_"
                              "aligna4_alignc4_execute_kernel__5x_cublas"),
            "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_"
            "execute_kernel__5x_cublas");
  EXPECT_EQ(kernel_short_name("f"), "f");
  EXPECT_EQ(kernel_short_name("_Z6brokenP"), "_Z6brokenP");  // a mangled name the demangler rejected
  EXPECT_EQ(kernel_short_name(""), "");
  EXPECT_EQ(kernel_short_name("void k<int(float)"), "void k<int(float)");  // unbalanced
  EXPECT_EQ(kernel_short_name("void k>(int)"), "void k>(int)");
}

MetricValue metric(std::string_view name, std::string_view unit, double value) {
  return MetricValue{std::string(name), std::string(unit), value};
}

KernelRecord kernel(std::uint32_t index, std::string name, std::vector<MetricValue> metrics) {
  KernelRecord k;
  k.index = index;
  k.name = std::move(name);
  k.metrics = std::move(metrics);
  return k;
}

TEST(KernelGroups, sums_weights_and_sorts) {
  RangeRecord r;
  r.kernels.push_back(kernel(0, "void ns::a<1>(int)",
                             {metric(kDurationRole, "nanosecond", 100), metric(kSolMemoryRole, "percent", 80),
                              metric(kSolComputeRole, "percent", 10)}));
  r.kernels.push_back(kernel(1, "b(float*)",
                             {metric(kDurationRole, "usecond", 1), metric(kSolMemoryRole, "percent", 5),
                              metric(kSolComputeRole, "percent", 90)}));
  r.kernels.push_back(kernel(2, "void ns::a<2>(int)",
                             {metric(kDurationRole, "nanosecond", 300), metric(kSolMemoryRole, "percent", 40)}));
  // Named by its mangled name only: demangled here.
  KernelRecord mangled = kernel(3, "", {metric(kDurationRole, "nanosecond", 100)});
  mangled.mangled_name = "_Z1bPf";
  r.kernels.push_back(mangled);
  r.kernels.push_back(kernel(4, "c", {}));  // no duration
  const KernelGroups g = group_kernels(r);
  EXPECT_DOUBLE_EQ(g.total_ns, 1500);
  EXPECT_EQ(g.kernels_with_duration, 4u);
  ASSERT_EQ(g.groups.size(), 3u);
  EXPECT_EQ(g.groups[0].short_name, "b");
  EXPECT_EQ(g.groups[0].kernel_indices, (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(g.groups[0].full_names, (std::vector<std::string>{"b(float*)"}));
  EXPECT_DOUBLE_EQ(g.groups[0].total_ns, 1100);
  EXPECT_NEAR(g.groups[0].share_pct, 100.0 * 1100 / 1500, 1e-9);
  // Weighted over the kernel with the metric only (1000 ns).
  EXPECT_DOUBLE_EQ(*g.groups[0].sol_memory_pct, 5);
  EXPECT_DOUBLE_EQ(*g.groups[0].sol_compute_pct, 90);
  EXPECT_EQ(g.groups[1].short_name, "a");
  EXPECT_EQ(g.groups[1].full_names, (std::vector<std::string>{"void ns::a<1>(int)", "void ns::a<2>(int)"}));
  EXPECT_DOUBLE_EQ(g.groups[1].total_ns, 400);
  EXPECT_DOUBLE_EQ(*g.groups[1].sol_memory_pct, (80.0 * 100 + 40.0 * 300) / 400);
  EXPECT_DOUBLE_EQ(*g.groups[1].sol_compute_pct, 10);
  EXPECT_EQ(g.groups[2].short_name, "c");
  EXPECT_EQ(g.groups[2].count(), 1u);
  EXPECT_EQ(g.groups[2].kernels_with_duration, 0u);
  EXPECT_DOUBLE_EQ(g.groups[2].share_pct, 0);
  EXPECT_FALSE(g.groups[2].sol_memory_pct.has_value());
  EXPECT_FALSE(g.groups[2].sol_compute_pct.has_value());
}

TEST(KernelGroups, a_duration_in_a_unit_not_known_is_left_out) {
  RangeRecord r;
  r.kernels.push_back(kernel(0, "k(int)", {metric(kDurationRole, "cycle", 100)}));
  const KernelGroups g = group_kernels(r);
  ASSERT_EQ(g.groups.size(), 1u);
  EXPECT_EQ(g.kernels_with_duration, 0u);
  EXPECT_DOUBLE_EQ(g.groups[0].total_ns, 0);
}

const MetricValue* find(const KernelRecord& k, std::string_view name) {
  const auto m = std::find_if(k.metrics.begin(), k.metrics.end(), [&](const MetricValue& v) { return v.name == name; });
  return m == k.metrics.end() ? nullptr : &*m;
}

TEST(KernelGroups, the_bottleneck_and_top_stall_are_those_with_the_most_of_the_groups_time) {
  // Two memory-bound launches of 100 ns and one compute-bound of 300 ns: the
  // group is compute bound; a member without Speed Of Light values has none.
  const auto member = [](std::uint32_t index, double ns, double memory_pct, double compute_pct) {
    return kernel(index, "void k<" + std::to_string(index) + ">(int)",
                  {metric(kDurationRole, "nanosecond", ns), metric(kSolMemoryRole, "%", memory_pct),
                   metric(kSolComputeRole, "%", compute_pct)});
  };
  RangeRecord r;
  r.kernels = {member(0, 100, 80, 10), member(1, 100, 85, 12), member(2, 300, 20, 90),
               kernel(3, "void k<3>(int)", {metric(kDurationRole, "nanosecond", 50)})};
  const KernelGroups g = group_kernels(r);
  ASSERT_EQ(g.groups.size(), 1u);
  const KernelGroup& k = g.groups[0];
  EXPECT_EQ(k.member_bottlenecks, (std::vector<std::string>{"memory", "memory", "compute", ""}));
  EXPECT_EQ(k.bottleneck, "compute");
  // No stall metrics: no top stall, for the group or any member.
  EXPECT_EQ(k.top_stall, "");
  EXPECT_EQ(k.member_top_stalls, (std::vector<std::string>(4, "")));
  // Without durations each member weighs 1: two memory-bound against one.
  for (KernelRecord& kr : r.kernels) kr.metrics.erase(kr.metrics.begin());
  EXPECT_EQ(group_kernels(r).groups[0].bottleneck, "memory");
}

TEST(KernelGroups, on_the_torch_training_step) {
  const StatusOr<Report> report = read_report_json(RR_TEST_TORCH_REPORT);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  ASSERT_EQ(report->ranges.size(), 2u);
  for (const RangeRecord& range : report->ranges) {
    const KernelGroups g = group_kernels(range);
    // The step's 52 distinct names are 34 functions, 5 of them cuBLAS SGEMMs
    // with C names (no parameter list), each its own group.
    std::set<std::string> distinct;
    std::size_t c_names = 0;
    for (const KernelRecord& k : range.kernels) {
      if (distinct.insert(k.name).second) c_names += k.name.find('(') == std::string::npos;
    }
    EXPECT_EQ(distinct.size(), 52u);
    EXPECT_EQ(c_names, 5u);
    EXPECT_EQ(g.groups.size(), 34u) << range.index;
    // Its top group, computed here from the names as printed: every
    // cutlass::Kernel2<...> SGEMM of any tile shape.
    std::size_t count = 0;
    double ns = 0, all_ns = 0, memory = 0, compute = 0;
    std::set<std::string> names;
    for (const KernelRecord& k : range.kernels) {
      const MetricValue* d = find(k, kDurationRole);
      ASSERT_NE(d, nullptr);
      ASSERT_EQ(d->unit, "nanosecond");
      all_ns += d->value;
      if (k.name.rfind("void cutlass::Kernel2<", 0) != 0) continue;
      ++count;
      ns += d->value;
      memory += find(k, kSolMemoryRole)->value * d->value;
      compute += find(k, kSolComputeRole)->value * d->value;
      names.insert(k.name);
    }
    ASSERT_FALSE(g.groups.empty());
    const KernelGroup& top = g.groups[0];
    EXPECT_EQ(top.short_name, "Kernel2");
    EXPECT_EQ(top.count(), count);
    EXPECT_EQ(count, 21u);
    EXPECT_DOUBLE_EQ(top.total_ns, ns);
    EXPECT_DOUBLE_EQ(g.total_ns, all_ns);
    EXPECT_NEAR(top.share_pct, 100 * ns / all_ns, 1e-9);
    EXPECT_NEAR(*top.sol_memory_pct, memory / ns, 1e-9);
    EXPECT_NEAR(*top.sol_compute_pct, compute / ns, 1e-9);
    EXPECT_EQ(std::set<std::string>(top.full_names.begin(), top.full_names.end()), names);
    // The SGEMMs run at 84% of the SM's peak: compute bound, each one too.
    EXPECT_EQ(top.bottleneck, "compute");
    EXPECT_EQ(std::count(top.member_bottlenecks.begin(), top.member_bottlenecks.end(), "compute"), 21);
    EXPECT_FALSE(top.top_stall.empty());
    // Every kernel in one group; sorted by time; the shares add up.
    std::size_t members = 0;
    double shares = 0;
    std::set<std::uint32_t> seen;
    for (std::size_t i = 0; i < g.groups.size(); ++i) {
      members += g.groups[i].count();
      shares += g.groups[i].share_pct;
      seen.insert(g.groups[i].kernel_indices.begin(), g.groups[i].kernel_indices.end());
      if (i > 0) {
        EXPECT_GE(g.groups[i - 1].total_ns, g.groups[i].total_ns);
      }
    }
    EXPECT_EQ(members, 560u);
    EXPECT_EQ(seen.size(), 560u);
    EXPECT_NEAR(shares, 100, 1e-9);
    // The 215 fills and 73 adds are launches of one template.
    const auto elementwise = std::find_if(g.groups.begin(), g.groups.end(), [](const KernelGroup& x) {
      return x.short_name == "vectorized_elementwise_kernel";
    });
    ASSERT_NE(elementwise, g.groups.end());
    std::size_t vectorized = 0;
    for (const KernelRecord& k : range.kernels) {
      vectorized += k.name.rfind("void at::native::vectorized_elementwise_kernel<", 0) == 0;
    }
    EXPECT_EQ(elementwise->count(), vectorized);
  }
}

}  // namespace
}  // namespace rangereplay::report
