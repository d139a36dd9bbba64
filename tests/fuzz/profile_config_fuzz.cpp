// libFuzzer target: the configuration file the launcher hands the injection
// library (read_profile_config). The input is written to a file of this
// process's own; a config that reads writes back and reads again.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "core/config/profile_config.h"
#include "fuzz_check.h"

namespace {

std::string scratch_path(const char* what) {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/rangereplay-fuzz-config-" + what + "-" +
         std::to_string(::getpid()) + ".json";
}

}  // namespace

// NOLINTNEXTLINE(readability-identifier-naming): libFuzzer names the entry point.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rangereplay;
  static const std::string input = scratch_path("in");
  static const std::string output = scratch_path("out");
  std::FILE* f = std::fopen(input.c_str(), "wb");
  fuzz::check(f != nullptr, "the scratch file opens");
  fuzz::check(std::fwrite(data, 1, size, f) == size && std::fclose(f) == 0, "the scratch file is written");
  StatusOr<ProfileConfig> config = read_profile_config(input);
  if (!config.ok()) {
    fuzz::check_error(config.status(), config.status().message().size());
  } else {
    fuzz::check(write_profile_config(*config, output).ok(), "a config that reads writes back");
    fuzz::check(read_profile_config(output).ok(), "a written config reads back");
  }
  std::remove(input.c_str());
  std::remove(output.c_str());
  return 0;
}
