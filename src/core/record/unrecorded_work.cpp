// Families of driver calls the recorder leaves out (see unrecorded_work.h).
#include "core/record/unrecorded_work.h"

#include <array>

namespace rangereplay {

bool is_unrecorded_gpu_work(std::string_view name) {
  static constexpr std::array<std::string_view, 7> kFamilies = {
      "cuMemcpy",           "cuMemset",     "cuStreamWaitValue", "cuStreamWriteValue",
      "cuStreamBatchMemOp", "cuMemDiscard", "cuLaunchGrid"};
  for (std::string_view family : kFamilies) {
    if (name.starts_with(family)) return true;
  }
  return name == "cuLaunch";
}

}  // namespace rangereplay
