// A range's counter data between application runs (see app_range_state.h).
#include "core/interprocess/app_range_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace rangereplay {
namespace {

constexpr char kMagic[8] = {'R', 'R', 'A', 'P', 'P', 'R', 'G', '1'};

template <class T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

template <class T>
bool take(const std::string& in, std::size_t& at, T& value) {
  if (in.size() - at < sizeof(T)) return false;
  std::memcpy(&value, in.data() + at, sizeof(T));
  at += sizeof(T);
  return true;
}

}  // namespace

Status claim_app_range_run(const std::string& dir, std::uint32_t pass, long pid) {
  const std::string path = (std::filesystem::path(dir) / ("run_" + std::to_string(pass) + ".owner")).string();
  const std::string mine = std::to_string(pid);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    const bool written = ::write(fd, mine.data(), mine.size()) == static_cast<ssize_t>(mine.size());
    ::close(fd);
    if (written) return ok_status();
    return failed_precondition("cannot write " + path + "; free space in the launcher's temporary folder (TMPDIR)");
  }
  if (errno != EEXIST) {
    return failed_precondition("cannot create " + path + ": " + std::strerror(errno) +
                               "; check the launcher's temporary folder (TMPDIR)");
  }
  std::ifstream in(path);
  std::string owner;
  std::getline(in, owner);
  if (owner == mine) return ok_status();
  return failed_precondition("process " + owner +
                             " of this application run already collects its ranges; application range replay "
                             "measures one process's ranges, so profile one process of the job");
}

std::string app_range_state_path(const std::string& dir, std::uint32_t range_index) {
  return (std::filesystem::path(dir) / ("range_" + std::to_string(range_index) + ".counters")).string();
}

Status write_app_range_state(const std::string& path, const AppRangeCounterState& state) {
  std::string bytes(kMagic, sizeof kMagic);
  put<std::uint32_t>(bytes, state.all_passes_submitted ? 1u : 0u);
  put<std::uint32_t>(bytes, state.runs);
  put<std::uint64_t>(bytes, state.next_pass);
  put<std::uint64_t>(bytes, state.target_nesting_level);
  put<std::uint64_t>(bytes, state.counter_data.size());
  bytes.append(reinterpret_cast<const char*>(state.counter_data.data()), state.counter_data.size());
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
      std::remove(partial.c_str());
      return failed_precondition("cannot write the range's counter data to " + partial +
                                 "; free space in the folder of the launcher's temporary files (TMPDIR)");
    }
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    return failed_precondition("cannot rename " + partial + " to " + path + "; check the folder's permissions");
  }
  return ok_status();
}

StatusOr<std::optional<AppRangeCounterState>> read_app_range_state(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<AppRangeCounterState>();
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid_argument("cannot read the range's counter data in " + path);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto corrupt = [&](const char* what) {
    return invalid_argument(path + " is not a range's counter data (" + what +
                            "); a run of another profile wrote it, or it was cut short");
  };
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return corrupt("no RRAPPRG1 header");
  std::size_t at = sizeof kMagic;
  AppRangeCounterState state;
  std::uint32_t flags = 0;
  std::uint64_t size = 0;
  if (!take(bytes, at, flags) || !take(bytes, at, state.runs) || !take(bytes, at, state.next_pass) ||
      !take(bytes, at, state.target_nesting_level) || !take(bytes, at, size))
    return corrupt("header cut short");
  if (bytes.size() - at != size) return corrupt("image size differs from the header's");
  state.all_passes_submitted = (flags & 1u) != 0;
  state.counter_data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end());
  return std::optional<AppRangeCounterState>(std::move(state));
}

}  // namespace rangereplay
