// The launch attributes a replay passes on (cuda/launch_attributes.h): the
// application's events are never recorded by a replay.
#include "tool/logic/launch_attributes.h"

#include <gtest/gtest.h>

namespace rangereplay::tool {
namespace {

CUlaunchAttribute attribute(CUlaunchAttributeID id) {
  CUlaunchAttribute a{};
  a.id = id;
  return a;
}

TEST(LaunchAttributes, replays_drop_the_attributes_that_record_application_events_and_keep_the_rest) {
  const CUlaunchAttribute in[] = {
      attribute(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION),
      attribute(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT), attribute(CU_LAUNCH_ATTRIBUTE_COOPERATIVE),
      attribute(CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT), attribute(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)};
  const std::vector<CUlaunchAttribute> kept = replayed_launch_attributes(in, std::size(in));
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0].id, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
  EXPECT_EQ(kept[1].id, CU_LAUNCH_ATTRIBUTE_COOPERATIVE);
  EXPECT_EQ(kept[2].id, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  EXPECT_TRUE(replayed_launch_attributes(in, 0).empty());
}

}  // namespace
}  // namespace rangereplay::tool
