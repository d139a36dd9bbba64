// RankRendezvous: --collectives replay's meeting of this rank with the job's
// other ranks (core/interprocess/rendezvous.h), for the range controller
// (range_controller.h). At every range's end each rank proposes its verdict
// (replay with the pass count, or its decline) and gets the same agreement
// back; during a replay window the ranks meet at a barrier before each
// pass's submit and before the exit hand-back. It owns the job's rendezvous,
// connected at the first coordinated range end, and its connect error, kept
// (every later range declines rendezvous_failed with it).
//
// Thread-safety: called with the tool's lock held. It waits for the other
// processes of the job up to the rendezvous timeout (kRendezvousTimeout),
// never for another thread of this one. Nothing here throws: failures are
// the range's decline (rendezvous_failed) or a line in the report's errors.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "core/base/decline.h"
#include "core/base/status.h"
#include "core/config/profile_config.h"
#include "core/interprocess/rendezvous.h"
#include "report/report_model.h"
#include "tool/active_range.h"
#include "tool/logic/counter_session.h"

namespace rangereplay::tool {

/// How long a rank waits at the rendezvous of --collectives replay for the
/// job's other ranks (each agreement and each pass's barrier; the session's
/// connect too) unless RANGEREPLAY_RENDEZVOUS_TIMEOUT says otherwise: past
/// it the range declines rendezvous_failed.
inline constexpr std::chrono::milliseconds kRendezvousTimeout{60000};

/// What the rendezvous uses of the tool around it; every reference outlives
/// it.
struct RankRendezvousParts {
  /// The configuration (--collectives, --rendezvous and its token; read when
  /// used).
  const ProfileConfig& config;
  /// The process's report: the connect's errors.
  report::Report& report;
  /// The range controller's counter session (null before its set-up): the
  /// pass count a replay verdict proposes.
  const std::unique_ptr<CounterSession>& counters;
};

class RankRendezvous {
 public:
  explicit RankRendezvous(RankRendezvousParts parts) : parts_{parts.config, parts.report}, counters_(parts.counters) {}
  RankRendezvous(const RankRendezvous&) = delete;
  RankRendezvous& operator=(const RankRendezvous&) = delete;

  /// --collectives replay: every range's end meets the job's other ranks
  /// (from the configuration alone, the same on every rank).
  bool coordinated() const;
  /// Every rank proposes its verdict on `range` (replay with the pass count,
  /// or its decline) and gets the same agreement back; connects on first
  /// use. The wait for the agreement goes into the range's
  /// timings.rendezvous_ms. Returns the decline this rank takes from the agreement: nullopt
  /// when every rank replays (also when `range` is already declined: its own
  /// decline stands), peer_declined when another rank declined, else
  /// rendezvous_failed. Waits for the other processes up to the rendezvous
  /// timeout (kRendezvousTimeout), never for another thread of this one.
  std::optional<Decline> agree_with_peers(ActiveRange& range);
  /// With coordinated ends: the replay window's barrier with the job's
  /// other ranks before each pass's submit and before the exit hand-back
  /// (counted in range.rendezvous_barriers, each wait added to its
  /// timings.rendezvous_ms; `range` must outlive it); empty otherwise.
  std::function<Status(std::size_t)> pass_barrier(ActiveRange& range);
  /// The job's rendezvous once connected; nullopt before, or after its
  /// connect failed.
  const std::optional<Rendezvous>& joined() const { return rendezvous_; }

 private:
  // The parts but the counters, under the names the members read them by.
  struct Parts {
    const ProfileConfig& config;
    report::Report& report;
  };

  // Adds `ms` of waiting for the other ranks to `range`'s timings.
  static void add_wait(ActiveRange& range, double ms) {
    range.record.timings.rendezvous_ms = range.record.timings.rendezvous_ms.value_or(0) + ms;
  }
  // Passes the metric list needs (0 before the counter set-up).
  std::uint32_t pass_count() const { return counters_ ? counters_->pass_count() : 0; }

  Parts parts_;
  const std::unique_ptr<CounterSession>& counters_;
  // The job's rendezvous, connected at the first coordinated range end; its
  // connect error, kept (every later range declines rendezvous_failed with
  // it).
  std::optional<Rendezvous> rendezvous_;
  Status rendezvous_error_ = ok_status();
};

}  // namespace rangereplay::tool
