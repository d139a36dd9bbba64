// ProfilerHostObject: one CUPTI profiler host object (cupti_profiler_host.h),
// for the range profiler's or PM sampling's configurations and evaluation,
// deinitialized when it goes out of scope.
//
// Thread-safety: CUPTI's host API is not thread-safe; callers hold
// host_api_mutex() (cupti/metric_catalog.h) around initialize() and while
// the object lives.
#pragma once

#include <cupti_profiler_host.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"

namespace rangereplay::cupti {

class ProfilerHostObject {
 public:
  ProfilerHostObject() = default;
  ProfilerHostObject(const ProfilerHostObject&) = delete;
  ProfilerHostObject& operator=(const ProfilerHostObject&) = delete;
  ~ProfilerHostObject() { reset(); }

  /// cuptiProfilerHostInitialize for profiler `type` on chip `chip_name`,
  /// with the device's counter availability image (empty: none). Errors: a
  /// chip the host API does not know is kInvalidArgument with the decline
  /// reason kUnknownMetric, naming the chips it supports; other CUPTI
  /// failures.
  Status initialize(CUpti_ProfilerType type, const std::string& chip_name,
                    const std::vector<std::uint8_t>& availability);
  /// Adds `metric_names` (C strings, in CUPTI's spelling) to the object's
  /// configuration and returns its config image. Errors: CUPTI's, the raw
  /// code of ConfigAddMetrics for a name or list it refuses.
  StatusOr<std::vector<std::uint8_t>> config_image(const std::vector<const char*>& metric_names);
  /// Deinitializes the object, if any (best effort).
  void reset();
  CUpti_Profiler_Host_Object* get() const { return object_; }
  /// The object, no longer deinitialized here.
  CUpti_Profiler_Host_Object* release() { return std::exchange(object_, nullptr); }

  /// The chips the host API supports (needs host_api_mutex() held).
  static StatusOr<std::vector<std::string>> supported_chips_locked();

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

}  // namespace rangereplay::cupti
