// --verify (see verify.h).
#include "tool/verify.h"

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/base/elapsed.h"
#include "cuda/cu_status.h"
#include "tool/logic/divergences.h"

namespace rangereplay::tool {

namespace {
using Clock = std::chrono::steady_clock;

void record_divergences(const ActiveRange& range, const ChunkTable& table, std::span<const std::uint64_t> found,
                        std::span<const std::uint64_t> exit, report::PassRecord& pass) {
  tool::record_divergences(range.allocations, range.digest_allocations, table, found, exit, pass);
}

class FullRestoreVerifier final : public ReplayObserver {
 public:
  FullRestoreVerifier(ActiveRange& range, CUstream stream) : range_(range), stream_(stream) {}

  // The application's own range-exit digests, before any replay, from a
  // digest-only plan.
  void begin(report::RangeRecord& record) override {
    auto verify_start = Clock::now();
    if (auto digests = exit_digests(); digests.ok()) {
      plan_.emplace(std::move(digests).value());
    } else {
      record.notes.push_back("--verify unavailable for this range: " + digests.status().message());
    }
    record.timings.verify_ms += ms_since(verify_start);
  }
  void restored(report::PassRecord*, report::StageTimings&) override {}
  Status replayed(report::PassRecord& pass, report::StageTimings& t) override {
    if (!plan_) return ok_status();
    auto verify_start = Clock::now();
    RR_RETURN_IF_ERROR(plan_->digest(stream_));
    RR_CU(cuStreamSynchronize(stream_));
    record_divergences(range_, plan_->table(), plan_->host_digests(), range_.exit_chunk_digests, pass);
    t.verify_ms += ms_since(verify_start);
    return ok_status();
  }
  Status before_exit_restore(report::PassRecord&, report::StageTimings&) override { return ok_status(); }
  void exit_restored(report::PassRecord&, report::StageTimings&) override {}
  void release() override { plan_.reset(); }

 private:
  StatusOr<DigestPlan> exit_digests() {
    // Only the application's regions are digested; the plan never restores,
    // so each region's "snapshot" address is the region itself.
    std::vector<DigestRegion> regions;
    regions.reserve(range_.allocations.size());
    range_.digest_allocations.clear();
    for (const Allocation& a : range_.allocations) {
      range_.digest_allocations.push_back(static_cast<std::uint32_t>(regions.size()));
      regions.push_back({a.range, a.range.start()});
    }
    RR_ASSIGN_OR_RETURN(DigestPlan plan, DigestPlan::create(regions, DigestPlanOptions{}, stream_));
    RR_RETURN_IF_ERROR(plan.digest(stream_));
    RR_CU(cuStreamSynchronize(stream_));
    range_.exit_chunk_digests.assign(plan.host_digests().begin(), plan.host_digests().end());
    return plan;
  }

  ActiveRange& range_;
  CUstream stream_;
  std::optional<DigestPlan> plan_;
};

class DifferentialRestoreVerifier final : public ReplayObserver {
 public:
  DifferentialRestoreVerifier(const ActiveRange& range, DifferentialRestore& restore, CUstream stream)
      : range_(range), restore_(restore), stream_(stream) {}

  void begin(report::RangeRecord&) override {}
  // The memory this restore found is the previous replay's result.
  void restored(report::PassRecord* previous, report::StageTimings& t) override {
    if (previous == nullptr) return;
    auto verify_start = Clock::now();
    record(*previous);
    t.verify_ms += ms_since(verify_start);
  }
  Status replayed(report::PassRecord&, report::StageTimings&) override { return ok_status(); }
  // The last replay's result, when the exit restore will not digest it
  // (restore_exit does).
  Status before_exit_restore(report::PassRecord& last, report::StageTimings& t) override {
    if (restore_.exit_differential()) return ok_status();
    auto verify_start = Clock::now();
    RR_RETURN_IF_ERROR(restore_.plan().digest(stream_));
    RR_CU(cuStreamSynchronize(stream_));
    record(last);
    t.verify_ms += ms_since(verify_start);
    return ok_status();
  }
  void exit_restored(report::PassRecord& last, report::StageTimings& t) override {
    if (!restore_.exit_differential()) return;
    auto verify_start = Clock::now();
    record(last);
    t.verify_ms += ms_since(verify_start);
  }

 private:
  void record(report::PassRecord& pass) {
    DigestPlan& plan = restore_.plan();
    record_divergences(range_, plan.table(), plan.host_digests(), plan.host_exit_digests(), pass);
  }
  const ActiveRange& range_;
  DifferentialRestore& restore_;
  CUstream stream_;
};

// Chunks of write-set regions outside the snapshot: after each replay the
// regions are digested whole and compared with the state pass 0 left.
class WriteSetVerifier final : public ReplayObserver {
 public:
  WriteSetVerifier(ActiveRange& range, std::unique_ptr<ReplayObserver> inner, CUstream stream)
      : range_(range), inner_(std::move(inner)), stream_(stream) {}

  void begin(report::RangeRecord& record) override {
    if (inner_) inner_->begin(record);
  }
  void restored(report::PassRecord* previous, report::StageTimings& t) override {
    if (inner_) inner_->restored(previous, t);
  }
  Status replayed(report::PassRecord& pass, report::StageTimings& t) override {
    if (inner_) RR_RETURN_IF_ERROR(inner_->replayed(pass, t));
    ActiveRange::WriteSetState& ws = *range_.write_set;
    if (!ws.digests || ws.pass0_digests.size() != ws.digests->table().chunk_count()) return ok_status();
    auto verify_start = Clock::now();
    RR_RETURN_IF_ERROR(ws.digests->digest(stream_));
    RR_CU(cuStreamSynchronize(stream_));
    const ByteSpans changed = changed_chunks(ws.digests->table(), ws.pass0_digests, ws.digests->host_digests());
    // A named set: a range-for over a temporary's spans() would outlive it.
    const ByteSpans outside = changed.minus(ws.layout.predicted);
    for (const MemoryRange& d : outside.spans())
      pass.divergences.push_back({d.start().address(), d.size(), origin_of(ws, d)});
    t.verify_ms += ms_since(verify_start);
    return ok_status();
  }
  Status before_exit_restore(report::PassRecord& last, report::StageTimings& t) override {
    return inner_ ? inner_->before_exit_restore(last, t) : ok_status();
  }
  void exit_restored(report::PassRecord& last, report::StageTimings& t) override {
    if (inner_) inner_->exit_restored(last, t);
  }
  void release() override {
    if (inner_) inner_->release();
  }

 private:
  static std::string origin_of(const ActiveRange::WriteSetState& ws, const MemoryRange& bytes) {
    for (std::size_t r = 0; r < ws.layout.digested.size() && r < ws.digested_origins.size(); ++r) {
      if (ws.layout.digested[r].contains(bytes)) return ws.digested_origins[r];
    }
    return "";
  }

  ActiveRange& range_;
  std::unique_ptr<ReplayObserver> inner_;
  CUstream stream_;
};

}  // namespace

std::unique_ptr<ReplayObserver> write_set_verifier(ActiveRange& range, std::unique_ptr<ReplayObserver> inner,
                                                   CUstream stream) {
  return std::make_unique<WriteSetVerifier>(range, std::move(inner), stream);
}

std::unique_ptr<ReplayObserver> full_restore_verifier(ActiveRange& range, CUstream stream) {
  return std::make_unique<FullRestoreVerifier>(range, stream);
}

std::unique_ptr<ReplayObserver> differential_restore_verifier(const ActiveRange& range, DifferentialRestore& restore,
                                                              CUstream stream) {
  return std::make_unique<DifferentialRestoreVerifier>(range, restore, stream);
}

}  // namespace rangereplay::tool
