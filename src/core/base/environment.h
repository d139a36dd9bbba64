// Every environment variable rangereplay reads or sets, in one table, and one
// accessor per knob. docs/configuration.md lists the same table for users (a
// unit test checks that it names every variable here).
//
//   if (environment::debug()) std::fprintf(stderr, "rangereplay[debug] ...");
//   const std::optional<std::size_t> cap = environment::max_kernels_per_range();
//
// Each accessor reads its variable once, at its first call, and keeps the
// value for the process (a later setenv is not seen). Test-only hooks are
// marked kTests in the table and named test_* here; they stay for the tests
// that need them and are not for users. Variables that are not knobs have
// names but no accessor: the launcher sets CUDA_INJECTION64_PATH and
// NVTX_INJECTION64_PATH for the application (and reads RANGEREPLAY_INJECT_LIB
// through its EnvLookup, so that tests can hand it one); the injection reads
// NVTX_INJECTION64_PATH at start and rewrites it to the CUPTI copy in use.
//
// Thread-safety: the accessors are safe from any thread (the first call's
// read is a function-local static's initialization).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rangereplay::environment {

// Names, for the code that sets or forwards a variable.
inline constexpr const char* kDebug = "RANGEREPLAY_DEBUG";
inline constexpr const char* kMaxKernelsPerRange = "RANGEREPLAY_MAX_KERNELS_PER_RANGE";
inline constexpr const char* kStandingPass = "RANGEREPLAY_STANDING_PASS";
inline constexpr const char* kKernelRanges = "RANGEREPLAY_KERNEL_RANGES";
inline constexpr const char* kCounterWarmUp = "RANGEREPLAY_COUNTER_WARMUP";
inline constexpr const char* kMetricHostWarmUp = "RANGEREPLAY_METRIC_HOST_WARMUP";
inline constexpr const char* kCounterPrewarm = "RANGEREPLAY_COUNTER_PREWARM";
inline constexpr const char* kWholeRangeLeadIn = "RANGEREPLAY_WHOLE_RANGE_LEAD_IN";
inline constexpr const char* kBatchCopyEngineRestore = "RANGEREPLAY_BATCH_COPY_ENGINE_RESTORE";
inline constexpr const char* kRendezvousTimeout = "RANGEREPLAY_RENDEZVOUS_TIMEOUT";
inline constexpr const char* kInjectLib = "RANGEREPLAY_INJECT_LIB";
inline constexpr const char* kConfig = "RANGEREPLAY_CONFIG";
inline constexpr const char* kGate = "RANGEREPLAY_GATE";
inline constexpr const char* kCudaInjection = "CUDA_INJECTION64_PATH";
inline constexpr const char* kNvtxInjection = "NVTX_INJECTION64_PATH";
inline constexpr const char* kTestCorruptRestores = "RANGEREPLAY_TEST_CORRUPT_RESTORES";

/// Who sets a variable.
enum class SetBy {
  kUser,      // a knob for users
  kLauncher,  // the launcher, for the application it starts
  kTests,     // test-only hook: not for users
};

struct Variable {
  std::string_view name;
  SetBy set_by;
  std::string_view read_by;        // "injection", "launcher", "launcher and injection", ...
  std::string_view default_value;  // when unset
  std::string_view meaning;
};

inline constexpr std::array<Variable, 16> kVariables{{
    {kDebug, SetBy::kUser, "launcher and injection", "unset: no trace",
     "set to any value (e.g. 1): the launcher and the injection trace their steps on stderr, each with its time; "
     "a thread that waits for the tool's lock names the thread holding it and its stage every 5 s"},
    {kMaxKernelsPerRange, SetBy::kUser, "injection",
     "as many kernels as fit in 64 MiB of counter data, at most 2048, or the last range of the same name's "
     "kernel count plus a quarter",
     "a whole number above 0: how many kernels a one-pass range's counter data holds (multi-pass ranges are "
     "sized exactly from the kernels their pass 0 recorded); other values are ignored"},
    {kStandingPass, SetBy::kUser, "injection", "unset: the standing pass is used where it applies",
     "0 turns off the standing pass (one-pass metric lists with --range-metrics whole keep one CUPTI pass open "
     "across ranges): every range then starts and stops its own pass"},
    {kCounterWarmUp, SetBy::kUser, "injection", "unset: one empty counter pass at the counter set-up",
     "0 leaves out the empty CUPTI pass (start and stop, no work) that the counter set-up runs before the first "
     "range, so that CUPTI's one-time work at the process's first start is neither in the first range's time nor "
     "in its cache state; other values are ignored; application range replay's runs never run it"},
    {kMetricHostWarmUp, SetBy::kUser, "injection",
     "unset: when the application creates its first CUDA context, a thread of the tool starts CUPTI's metric "
     "host library (host-only: no CUDA or device call, about 0.3 s of one CPU core, once per process), so that "
     "the first range's counter set-up finds it started; a process that exits meanwhile waits for the thread "
     "at exit",
     "0 leaves the thread out: CUPTI's metric host library then starts at the first range's counter set-up; "
     "other values are ignored"},
    {kCounterPrewarm, SetBy::kUser, "injection",
     "unset: at the application's first device allocation or kernel launch in a context, a thread of the tool "
     "sets the counters up in that context (CUPTI's profiler, the counter availability, the config image: about "
     "0.3 s for --set full), so that the first range in it finds them ready; the thread makes no call while a "
     "stream capture is open, a capture begin waits for its call in flight, and its set-up is dropped when the "
     "first range is in another context or a context is about to end (application range replay's runs set up "
     "at the first range)",
     "0: the counters are set up when the first range begins; other values are ignored"},
    {kWholeRangeLeadIn, SetBy::kUser, "injection",
     "unset: under a cache flush every whole-range pass of its own opens with a lead-in counter range",
     "0 leaves out the lead-in counter range (in which L2 is flushed again after CUPTI's start, its values "
     "dropped) that whole-range passes of their own open with under --cache-control; their DRAM writes then "
     "include what CUPTI's start leaves dirty in L2; for measuring the lead-in's cost; other values are ignored"},
    {kBatchCopyEngineRestore, SetBy::kUser, "injection",
     "unset: a batch member whose pass holds CUPTI's automatic per-kernel ranges restores its entry state whole by "
     "the copy engines, one cuMemcpyAsync per piece (no counter range, device to device), when it has at most 64 "
     "pieces and lies on the device tier within 1 GiB (any tier and size under --restore full); a batch whose "
     "copies CUPTI counts after all is replayed again with user ranges and later batches restore as --restore says",
     "0: every batch member restores as its --restore says, with a kernel (counted among CUPTI's automatic "
     "per-kernel ranges); for comparing the two; other values are ignored"},
    {kKernelRanges, SetBy::kUser, "injection", "unset: CUPTI's auto ranges, one per replayed kernel",
     "user: per-kernel values of multi-pass ranges come from a user range the tool pushes around each replayed "
     "kernel instead (measured no faster: docs/performance.md); the report's counter_ranges names what a range "
     "used"},
    {kRendezvousTimeout, SetBy::kUser, "injection",
     "60: rank 0 waits up to 60 s for the others, the others twice that for rank 0",
     "whole seconds from 1 to 3600: how long rank 0 of --collectives replay waits for the job's other ranks at "
     "the rendezvous (to join, at each range's end, at each pass's barrier; the others wait up to twice as long "
     "for rank 0) before the range declines rendezvous_failed; other values are ignored"},
    {kInjectLib, SetBy::kUser, "launcher",
     "unset: librangereplay_inject.so next to the launcher, in ../lib, or in the build tree",
     "the injection library to use; when set it must name a file"},
    {kConfig, SetBy::kLauncher, "injection", "unset: the injection does not profile",
     "the configuration file (JSON of ProfileConfig, core/config/profile_config.h) the launcher wrote for this run"},
    {kGate, SetBy::kLauncher, "injection", "unset: no gate to wait at",
     "<fd>:<inode> of the launcher gate the application waits at when its first range begins, while the "
     "launcher finishes its device checks (core/interprocess/launcher_gate.h)"},
    {kCudaInjection, SetBy::kLauncher, "CUDA driver", "unset: no injection",
     "the injection library, loaded by the CUDA driver at cuInit"},
    {kNvtxInjection, SetBy::kLauncher, "NVTX and injection", "unset: NVTX calls reach no tool",
     "libcupti, which forwards the application's NVTX calls to the injection; the injection points it at the "
     "CUPTI copy already loaded when the application brought its own"},
    {kTestCorruptRestores, SetBy::kTests, "injection", "unset: restores are exact",
     "tests only (the --verify test): set to any value, overwrites the first 16 bytes of every snapshot region "
     "after each entry restore, so that --verify must report a divergence"},
}};

/// RANGEREPLAY_DEBUG is set (to any value, even empty).
bool debug();
/// RANGEREPLAY_CONFIG, or nullopt when unset.
const std::optional<std::string>& config_path();
/// RANGEREPLAY_GATE, or nullptr when unset (the launcher gate's value).
const char* gate();
/// RANGEREPLAY_MAX_KERNELS_PER_RANGE as a number above 0 (read as strtol
/// does, base 10), or nullopt when unset or not above 0.
std::optional<std::size_t> max_kernels_per_range();
/// RANGEREPLAY_STANDING_PASS is exactly "0".
bool standing_pass_off();
/// RANGEREPLAY_COUNTER_WARMUP is exactly "0".
bool counter_warm_up_off();
/// RANGEREPLAY_METRIC_HOST_WARMUP is not exactly "0" (on by default).
bool metric_host_warm_up();
/// RANGEREPLAY_COUNTER_PREWARM is anything but "0" (unset included).
bool counter_prewarm();
/// RANGEREPLAY_WHOLE_RANGE_LEAD_IN is exactly "0".
bool whole_range_lead_in_off();
/// RANGEREPLAY_BATCH_COPY_ENGINE_RESTORE is anything but "0" (unset included).
bool batch_copy_engine_restore();
/// RANGEREPLAY_RENDEZVOUS_TIMEOUT as whole seconds from 1 to 3600 (read as
/// strtol does, base 10), or nullopt when unset or outside that.
std::optional<std::chrono::seconds> rendezvous_timeout();
/// RANGEREPLAY_KERNEL_RANGES is exactly "user".
bool user_kernel_ranges();
/// Test-only: RANGEREPLAY_TEST_CORRUPT_RESTORES is set (to any value).
bool test_corrupt_restores();

}  // namespace rangereplay::environment
