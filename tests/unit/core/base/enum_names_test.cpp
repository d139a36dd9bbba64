// EnumNames: one table per enum, and the look-ups through it.
#include "core/base/enum_names.h"

#include <gtest/gtest.h>

#include "core/config/profile_config.h"
#include "core/range/range_event.h"

namespace rangereplay {
namespace {

TEST(EnumNames, names_and_values_round_trip_through_the_tables) {
  for (const auto& entry : kRestoreModeNames) {
    EXPECT_EQ(value_named(kRestoreModeNames, name_of(kRestoreModeNames, entry.value)), entry.value);
  }
  EXPECT_EQ(name_of(kRestoreModeNames, RestoreMode::kFull), "full");
  EXPECT_EQ(name_of(kRangeMetricsNames, RangeMetrics::kWholeRange), "whole");
  EXPECT_EQ(value_named(kRangeMetricsNames, "kernel"), RangeMetrics::kPerKernel);
  EXPECT_FALSE(value_named(kRangeMetricsNames, "Kernel").has_value());
  EXPECT_FALSE(value_named(kRestoreModeNames, "").has_value());
  static_assert(range::range_source_name(range::RangeSource::kKernelWindow) == "kernel_window");
  EXPECT_EQ(range::range_event_kind_name(range::RangeEventKind::kDeclinedOverlap), "declined_overlap");
}

TEST(EnumNames, names_are_joined_in_table_order_or_a_given_order) {
  EXPECT_EQ(names_joined(kRestoreModeNames, ", ", " or "), "differential or full");
  EXPECT_EQ(names_joined(kRestoreModeNames, {RestoreMode::kFull, RestoreMode::kDifferential}, "|", "|"),
            "full|differential");
  EXPECT_EQ(names_joined(range::kRangeSourceNames, ", ", " or "),
            "nvtx_push_pop, nvtx_start_end, profiler_api or kernel_window");
}

}  // namespace
}  // namespace rangereplay
