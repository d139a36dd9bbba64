// The real H200 reports the report tests read (decompressed at build time:
// RR_TEST_STREAM_REPORT, the stream example under --set full;
// RR_TEST_TORCH_REPORT, a 560-kernel torch training step under --set full),
// each read once per test binary. A failed read fails the calling test and
// yields an empty report.
#pragma once

#include <gtest/gtest.h>

#include "report/report_json.h"
#include "report/report_model.h"

namespace rangereplay::report::testing {

inline Report read_fixture(const char* path) {
  StatusOr<Report> read = read_report_json(path);
  EXPECT_TRUE(read.ok()) << read.status().to_string();
  return read.ok() ? *read : Report{};
}

inline const Report& stream_report() {
  static const Report r = read_fixture(RR_TEST_STREAM_REPORT);
  return r;
}

inline const Report& torch_report() {
  static const Report r = read_fixture(RR_TEST_TORCH_REPORT);
  return r;
}

}  // namespace rangereplay::report::testing
