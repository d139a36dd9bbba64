// RankRendezvous (rank_rendezvous.h): --collectives replay's agreement on
// every range and its barriers inside a replay window.
#include <algorithm>
#include <chrono>
#include <string>

#include "core/base/environment.h"
#include "core/interprocess/rendezvous_endpoint.h"
#include "tool/controller_helpers.h"
#include "tool/rank_rendezvous.h"

namespace rangereplay::tool {

bool RankRendezvous::coordinated() const {
  // From the configuration alone, the same on every rank: a rank whose
  // counters failed, or whose range declined before they were set up,
  // still meets the others with its decline, so that every rank agrees on
  // every range in the same order.
  return parts_.config.collectives == CollectivesMode::kReplay;
}

std::optional<Decline> RankRendezvous::agree_with_peers(ActiveRange& range) {
  const auto failed = [](const std::string& why) { return Decline{DeclineReason::kRendezvousFailed, why}; };
  if (!rendezvous_ && rendezvous_error_.ok()) {
    StatusOr<RendezvousJob> job = rendezvous_job_from_environment(parts_.config.rendezvous, process_environment);
    if (!job.ok() && job_rank_variables(process_environment) == nullptr) {
      // Not one rank of a job: a process of its own replays alone.
      parts_.report.errors.push_back("--collectives replay: " + job.status().message() +
                                     " (this process replays its ranges alone)");
      job = RendezvousJob{Endpoint{"127.0.0.1", 0}, 0, 1};
    }
    StatusOr<Rendezvous> joined =
        job.ok() ? Rendezvous::connect(job->endpoint, job->rank, job->world_size,
                                       environment::rendezvous_timeout()
                                           ? std::chrono::milliseconds(*environment::rendezvous_timeout())
                                           : kRendezvousTimeout,
                                       parts_.config.rendezvous_token)
                 : StatusOr<Rendezvous>(job.status());
    if (joined.ok()) {
      rendezvous_.emplace(std::move(*joined));
      debug("rendezvous: joined as %s", std::to_string(job->rank) + " of " + std::to_string(job->world_size));
    } else {
      rendezvous_error_ = joined.status();
      parts_.report.errors.push_back("--collectives replay: " + rendezvous_error_.message());
    }
  }
  if (!rendezvous_)
    return range.eligibility.declined() ? std::nullopt : std::optional(failed(rendezvous_error_.message()));
  const std::string key = range.name + " #" + std::to_string(range.index);
  const RangeVerdict verdict =
      range.eligibility.declined()
          ? RangeVerdict::declined(Decline{*range.eligibility.reason(), range.eligibility.detail()})
          : RangeVerdict::replay(std::max<std::uint32_t>(pass_count(), 1));
  const auto waited_from = std::chrono::steady_clock::now();
  StatusOr<Agreement> agreed = rendezvous_->agree(key, verdict);
  add_wait(range, ms_since(waited_from));
  if (range.eligibility.declined()) return std::nullopt;
  if (!agreed.ok()) return failed(agreed.status().message());
  if (agreed->replays()) return std::nullopt;
  if (agreed->kind == AgreementKind::kRankDeclined) return Decline{DeclineReason::kPeerDeclined, agreed->detail};
  return failed(agreed->detail);
}

std::function<Status(std::size_t)> RankRendezvous::pass_barrier(ActiveRange& range) {
  if (!coordinated()) return {};
  return [this, &range](std::size_t pass) {
    ++range.rendezvous_barriers;
    const auto waited_from = std::chrono::steady_clock::now();
    Status s = rendezvous_ ? rendezvous_->barrier(static_cast<std::uint32_t>(pass))
                           : failed_precondition("rendezvous: not connected");
    add_wait(range, ms_since(waited_from));
    return s.ok() ? s : std::move(s).with_decline_reason(DeclineReason::kRendezvousFailed);
  };
}

}  // namespace rangereplay::tool
