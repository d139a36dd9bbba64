// The rendezvous protocol over real sockets: N ranks as threads of this
// process on 127.0.0.1, rank 0 on a port the system picks. Every wait has a
// short timeout of its own, and every rank thread must finish within
// kRankBound or the test binary aborts: a hang is a failure, never a stuck run.
#include "core/interprocess/rendezvous.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <memory>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace rangereplay {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kQuick{2000};  // the timeout of sessions expected to succeed (they take ~1 ms)
constexpr milliseconds kShort{300};   // the timeout of waits expected to expire
constexpr auto kRankBound = 5s;       // no rank thread may run longer

const Endpoint kLoopback{"127.0.0.1", 0};
constexpr std::string_view kToken = "job-7f3a";  // the job token every rank of these tests gives

milliseconds since(Clock::time_point start) { return std::chrono::duration_cast<milliseconds>(Clock::now() - start); }

// Runs `body(rank)` on one thread per rank; returns each rank's result.
template <typename Result>
std::vector<Result> run_ranks(int world_size, const std::function<Result(int rank)>& body) {
  std::vector<std::future<Result>> results;
  std::vector<std::thread> threads;
  for (int rank = 0; rank < world_size; ++rank) {
    std::packaged_task<Result(int)> task(body);
    results.push_back(task.get_future());
    threads.emplace_back(std::move(task), rank);
  }
  const auto deadline = Clock::now() + kRankBound;
  for (std::future<Result>& r : results) {
    if (r.wait_until(deadline) != std::future_status::ready) {
      std::fprintf(stderr, "a rank thread still runs after 5 s: the rendezvous hangs\n");
      std::abort();
    }
  }
  for (std::thread& t : threads) t.join();
  std::vector<Result> out;
  for (std::future<Result>& r : results) out.push_back(r.get());
  return out;
}

// Rank 0's listener on a free loopback port, and the peers' way to it.
class Job {
 public:
  explicit Job(int world_size) : world_size_(world_size) {
    StatusOr<RendezvousListener> l = RendezvousListener::open(kLoopback);
    EXPECT_TRUE(l.ok()) << l.status().message();
    if (l.ok()) {
      port_ = l->port();
      listener_.emplace(std::move(*l));
    }
  }
  bool ready() const { return listener_.has_value() && port_ != 0; }
  std::uint16_t port() const { return port_; }
  Endpoint endpoint() const { return Endpoint{"127.0.0.1", port_}; }

  // Joins as `rank` (rank 0 through the listener), with `timeout`.
  StatusOr<Rendezvous> join(int rank, milliseconds timeout = kQuick, std::optional<int> world_size = std::nullopt) {
    const int world = world_size.value_or(world_size_);
    if (rank == 0) return Rendezvous::accept(std::move(*listener_), world, timeout, kToken);
    return Rendezvous::connect(endpoint(), rank, world, timeout, kToken);
  }

 private:
  int world_size_;
  std::uint16_t port_ = 0;
  std::optional<RendezvousListener> listener_;
};

// What one rank saw.
struct Seen {
  Status status;                       // the first failure, or ok
  std::optional<Agreement> agreement;  // the last agreement
  milliseconds took{0};                // of the call timed
};

Seen failure(const Status& s) { return Seen{s, std::nullopt, 0ms}; }

// Rank 0 failed with `why`, and every rank in `peers` learnt it from rank 0.
void expect_failed_everywhere(const std::vector<Seen>& seen, const std::string& why, const std::vector<int>& peers) {
  EXPECT_EQ(seen[0].status.message(), "rendezvous: " + why);
  for (const int rank : peers)
    EXPECT_EQ(seen[rank].status.message(), "rendezvous: rank 0 ended the session: " + why) << "rank " << rank;
}

// A raw TCP client of rank 0, for lines no Rendezvous would send.
class RawClient {
 public:
  explicit RawClient(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~RawClient() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send(const std::string& bytes) { (void)::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }
  // Everything rank 0 sends until it closes, waiting at most 2 s.
  std::string read_all() {
    std::string got;
    char buffer[512];
    const auto deadline = Clock::now() + 2s;
    while (Clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) break;
      got.append(buffer, static_cast<std::size_t>(n));
    }
    return got;
  }

 private:
  int fd_;
  bool connected_ = false;
};

// A raw rank 0: accepts one peer, reads its hello, answers with `lines`.
class RawRoot {
 public:
  RawRoot() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(fd_, 4);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~RawRoot() {
    if (peer_ >= 0) ::close(peer_);
    ::close(fd_);
  }
  std::uint16_t port() const { return port_; }
  // Accepts (waiting at most 2 s) and returns the first line the peer sends.
  std::string accept_and_read_line() {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 2000) != 1) return "";
    peer_ = ::accept(fd_, nullptr, nullptr);
    return read_line();
  }
  std::string read_line() {
    std::string line;
    char c = 0;
    pollfd p{peer_, POLLIN, 0};
    while (::poll(&p, 1, 2000) == 1 && ::recv(peer_, &c, 1, 0) == 1 && c != '\n') line.push_back(c);
    return line;
  }
  void send(const std::string& bytes) { (void)::send(peer_, bytes.data(), bytes.size(), MSG_NOSIGNAL); }

 private:
  int fd_;
  int peer_ = -1;
  std::uint16_t port_ = 0;
};

TEST(Rendezvous, every_rank_replays_when_all_propose_the_same_range_and_pass_count) {
  Job job(4);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(4, [&](int rank) {
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    EXPECT_EQ(r->rank(), rank);
    EXPECT_EQ(r->world_size(), 4);
    StatusOr<Agreement> a = r->agree("step #3", RangeVerdict::replay(5));
    if (!a.ok()) return failure(a.status());
    return Seen{ok_status(), *a, 0ms};
  });
  for (int rank = 0; rank < 4; ++rank) {
    ASSERT_TRUE(seen[rank].status.ok()) << "rank " << rank << ": " << seen[rank].status.message();
    EXPECT_EQ(*seen[rank].agreement, (Agreement{AgreementKind::kReplay, 5, -1, std::nullopt, ""})) << rank;
  }
}

TEST(Rendezvous, a_declining_rank_makes_every_rank_decline_naming_it_and_the_session_goes_on) {
  Job job(3);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(3, [&](int rank) {
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    const RangeVerdict verdict =
        rank == 2 ? RangeVerdict::declined({DeclineReason::kFreeInRange, "cuMemFree_v2"}) : RangeVerdict::replay(4);
    StatusOr<Agreement> declined = r->agree("step #3", verdict);
    if (!declined.ok()) return failure(declined.status());
    EXPECT_EQ(*declined, (Agreement{AgreementKind::kRankDeclined, 0, 2, DeclineReason::kFreeInRange,
                                    "rank 2 declined range 'step #3' (free_in_range): cuMemFree_v2"}))
        << "rank " << rank;
    // The next range is agreed as usual.
    StatusOr<Agreement> next = r->agree("step #4", RangeVerdict::replay(4));
    if (!next.ok()) return failure(next.status());
    return Seen{ok_status(), *next, 0ms};
  });
  for (int rank = 0; rank < 3; ++rank) {
    ASSERT_TRUE(seen[rank].status.ok()) << "rank " << rank << ": " << seen[rank].status.message();
    EXPECT_EQ(*seen[rank].agreement, (Agreement{AgreementKind::kReplay, 4, -1, std::nullopt, ""}));
  }
}

TEST(Rendezvous, different_range_keys_or_pass_counts_decline_on_every_rank) {
  Job job(3);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(3, [&](int rank) {
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    StatusOr<Agreement> keys = r->agree(rank == 2 ? "step #3" : "step #4", RangeVerdict::replay(4));
    if (!keys.ok()) return failure(keys.status());
    EXPECT_EQ(*keys, (Agreement{AgreementKind::kRangeKeysDiffer, 0, 2, std::nullopt,
                                "rank 2 proposed range 'step #3' where rank 0 has 'step #4'"}));
    StatusOr<Agreement> passes = r->agree("step #5", RangeVerdict::replay(rank == 1 ? 5 : 4));
    if (!passes.ok()) return failure(passes.status());
    return Seen{ok_status(), *passes, 0ms};
  });
  for (int rank = 0; rank < 3; ++rank) {
    ASSERT_TRUE(seen[rank].status.ok()) << "rank " << rank << ": " << seen[rank].status.message();
    EXPECT_EQ(*seen[rank].agreement, (Agreement{AgreementKind::kPassCountsDiffer, 0, 1, std::nullopt,
                                                "rank 1 needs 5 passes for range 'step #5' where rank 0 needs 4"}));
  }
}

TEST(Rendezvous, barriers_hold_every_rank_until_all_have_arrived_pass_by_pass) {
  constexpr int kWorld = 3;
  constexpr std::uint32_t kPasses = 6;
  Job job(kWorld);
  ASSERT_TRUE(job.ready());
  std::atomic<int> arrived[kPasses] = {};
  std::atomic<int> early_releases{0};
  const std::vector<Seen> seen = run_ranks<Seen>(kWorld, [&](int rank) {
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    StatusOr<Agreement> a = r->agree("step", RangeVerdict::replay(kPasses));
    if (!a.ok()) return failure(a.status());
    for (std::uint32_t pass = 1; pass < a->pass_count; ++pass) {
      if (static_cast<int>(pass) % kWorld == rank) std::this_thread::sleep_for(20ms);  // one late rank per pass
      arrived[pass].fetch_add(1);
      if (Status s = r->barrier(pass); !s.ok()) return failure(s);
      if (arrived[pass].load() != kWorld) early_releases.fetch_add(1);
    }
    return Seen{ok_status(), *a, 0ms};
  });
  for (int rank = 0; rank < kWorld; ++rank)
    ASSERT_TRUE(seen[rank].status.ok()) << "rank " << rank << ": " << seen[rank].status.message();
  EXPECT_EQ(early_releases.load(), 0);
  for (std::uint32_t pass = 1; pass < kPasses; ++pass) EXPECT_EQ(arrived[pass].load(), kWorld);
}

TEST(Rendezvous, eight_ranks_agree_on_every_range_and_meet_at_every_pass_in_order) {
  // An 8-GPU job's ranks: five ranges, one declined by rank 5, each replayed
  // range met pass by pass with a different late rank at each barrier.
  constexpr int kWorld = 8;
  constexpr int kRanges = 5;
  constexpr int kDecliningRange = 2;
  constexpr std::uint32_t kPasses = 7;
  Job job(kWorld);
  ASSERT_TRUE(job.ready());
  std::atomic<int> arrived[kRanges][kPasses] = {};
  std::atomic<int> early_releases{0};
  struct Ranges {
    Status status;
    std::vector<Agreement> agreements;  // one per range, in order
  };
  const std::vector<Ranges> seen = run_ranks<Ranges>(kWorld, [&](int rank) {
    Ranges out;
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return Ranges{r.status(), {}};
    for (int range = 0; range < kRanges; ++range) {
      const RangeVerdict verdict = range == kDecliningRange && rank == 5
                                       ? RangeVerdict::declined({DeclineReason::kFreeInRange, "cuMemFree_v2"})
                                       : RangeVerdict::replay(kPasses);
      StatusOr<Agreement> a = r->agree("step #" + std::to_string(range), verdict);
      if (!a.ok()) return Ranges{a.status(), out.agreements};
      out.agreements.push_back(*a);
      if (!a->replays()) continue;
      for (std::uint32_t pass = 1; pass < a->pass_count; ++pass) {
        if ((static_cast<int>(pass) + range) % kWorld == rank) std::this_thread::sleep_for(5ms);  // the late rank
        arrived[range][pass].fetch_add(1);
        if (Status s = r->barrier(pass); !s.ok()) return Ranges{s, out.agreements};
        if (arrived[range][pass].load() != kWorld) early_releases.fetch_add(1);
      }
    }
    out.status = ok_status();
    return out;
  });
  const Agreement replay{AgreementKind::kReplay, kPasses, -1, std::nullopt, ""};
  const Agreement declined{AgreementKind::kRankDeclined, 0, 5, DeclineReason::kFreeInRange,
                           "rank 5 declined range 'step #2' (free_in_range): cuMemFree_v2"};
  for (int rank = 0; rank < kWorld; ++rank) {
    ASSERT_TRUE(seen[rank].status.ok()) << "rank " << rank << ": " << seen[rank].status.message();
    ASSERT_EQ(seen[rank].agreements.size(), std::size_t{kRanges}) << "rank " << rank;
    for (int range = 0; range < kRanges; ++range)
      EXPECT_EQ(seen[rank].agreements[range], range == kDecliningRange ? declined : replay)
          << "rank " << rank << ", range " << range;
  }
  EXPECT_EQ(early_releases.load(), 0);
  for (int range = 0; range < kRanges; ++range) {
    for (std::uint32_t pass = 1; pass < kPasses; ++pass)
      EXPECT_EQ(arrived[range][pass].load(), range == kDecliningRange ? 0 : kWorld) << range << "/" << pass;
  }
}

TEST(Rendezvous, a_rank_at_another_pass_fails_the_barrier_on_every_rank_and_every_later_call) {
  Job job(3);
  ASSERT_TRUE(job.ready());
  const std::string why =
      "rank 2 arrived at the barrier of pass 2 where rank 0 is at pass 1; every rank must meet at each pass in order";
  const std::vector<Seen> seen = run_ranks<Seen>(3, [&](int rank) {
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    Status s = r->barrier(rank == 2 ? 2 : 1);
    const auto start = Clock::now();
    StatusOr<Agreement> later = r->agree("step", RangeVerdict::replay(2));
    EXPECT_FALSE(later.ok());
    EXPECT_EQ(later.status().message(), s.message());
    EXPECT_EQ(r->barrier(3).message(), s.message());
    EXPECT_LT(since(start), 50ms);  // at once
    EXPECT_TRUE(r->failed());
    return Seen{s, std::nullopt, 0ms};
  });
  EXPECT_EQ(seen[0].status.code(), StatusCode::kInvalidArgument);
  expect_failed_everywhere(seen, why, {1, 2});
  for (int rank : {1, 2}) EXPECT_EQ(seen[rank].status.code(), StatusCode::kUnavailable);
}

TEST(Rendezvous, a_rank_that_never_proposes_fails_the_others_within_the_timeout) {
  Job job(3);
  ASSERT_TRUE(job.ready());
  std::atomic<int> done{0};
  const std::vector<Seen> seen = run_ranks<Seen>(3, [&](int rank) {
    StatusOr<Rendezvous> r = job.join(rank, kShort);
    if (!r.ok()) return failure(r.status());
    if (rank == 2) {
      // Holds its connection open without proposing until the others gave up.
      const auto give_up = Clock::now() + 3s;
      while (done.load() < 2 && Clock::now() < give_up) std::this_thread::sleep_for(5ms);
    }
    const auto start = Clock::now();
    StatusOr<Agreement> a = r->agree("step #3", RangeVerdict::replay(3));
    const milliseconds took = since(start);
    done.fetch_add(1);
    return Seen{a.status(), std::nullopt, took};
  });
  const std::string why =
      "no 'propose' from rank 2 within 300 ms: that rank is slower to get there than the timeout allows, stopped, or "
      "profiles other ranges; check it, or raise the timeout";
  expect_failed_everywhere(seen, why, {1, 2});
  for (int rank : {0, 1}) {
    EXPECT_EQ(seen[rank].status.code(), StatusCode::kUnavailable);
    EXPECT_GE(seen[rank].took, 250ms) << rank;
    EXPECT_LT(seen[rank].took, 3s) << rank;
  }
  EXPECT_LT(seen[2].took, 1s);  // the late rank learns it at once
}

TEST(Rendezvous, a_rank_that_never_joins_fails_rank_0_and_the_joined_ranks_within_the_timeout) {
  Job job(3);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(2, [&](int rank) {  // rank 2 never starts
    const auto start = Clock::now();
    StatusOr<Rendezvous> r = job.join(rank, kShort);
    return Seen{r.status(), std::nullopt, since(start)};
  });
  const std::string why = "rank(s) 2 of 3 did not join rank 0 at 127.0.0.1:" + std::to_string(job.port()) +
                          " within 300 ms; start every rank under rangereplay with the same rendezvous endpoint";
  expect_failed_everywhere(seen, why, {1});
  for (const Seen& s : seen) {
    EXPECT_EQ(s.status.code(), StatusCode::kUnavailable);
    EXPECT_LT(s.took, 3s);
  }
  EXPECT_GE(seen[0].took, 250ms);
}

TEST(Rendezvous, a_rank_without_rank_0_gives_up_within_the_timeout) {
  std::uint16_t port = 0;
  {
    StatusOr<RendezvousListener> probe = RendezvousListener::open(kLoopback);  // a free port, closed again
    ASSERT_TRUE(probe.ok()) << probe.status().message();
    port = probe->port();
  }
  const auto start = Clock::now();
  StatusOr<Rendezvous> r = Rendezvous::connect(Endpoint{"127.0.0.1", port}, 1, 2, kShort, kToken);
  const milliseconds took = since(start);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.status().message(),
            "rendezvous: rank 1 could not connect to rank 0 at 127.0.0.1:" + std::to_string(port) +
                " within 300 ms (127.0.0.1: Connection refused); check that rank 0 runs under rangereplay "
                "with the same endpoint, and that this host reaches that address (else give --rendezvous HOST:PORT "
                "with one it does)");
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 3s);
}

TEST(Rendezvous, ranks_retry_until_a_late_rank_0_listens) {
  std::uint16_t port = 0;
  {
    StatusOr<RendezvousListener> probe = RendezvousListener::open(kLoopback);
    ASSERT_TRUE(probe.ok()) << probe.status().message();
    port = probe->port();
  }
  const Endpoint endpoint{"127.0.0.1", port};
  const std::vector<Seen> seen = run_ranks<Seen>(3, [&](int rank) {
    if (rank == 0) std::this_thread::sleep_for(200ms);
    StatusOr<Rendezvous> r = Rendezvous::connect(endpoint, rank, 3, kQuick, kToken);
    if (!r.ok()) return failure(r.status());
    StatusOr<Agreement> a = r->agree("late", RangeVerdict::replay(2));
    if (!a.ok()) return failure(a.status());
    return Seen{ok_status(), *a, 0ms};
  });
  for (int rank = 0; rank < 3; ++rank) {
    ASSERT_TRUE(seen[rank].status.ok()) << "rank " << rank << ": " << seen[rank].status.message();
    EXPECT_EQ(seen[rank].agreement->pass_count, 2u);
  }
}

TEST(Rendezvous, a_peer_that_disconnects_fails_the_others_at_once_not_at_the_timeout) {
  Job job(3);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(3, [&](int rank) {
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    StatusOr<Agreement> a = r->agree("step", RangeVerdict::replay(3));
    if (!a.ok()) return failure(a.status());
    if (rank == 2) return Seen{ok_status(), *a, 0ms};  // its session closes here
    const auto start = Clock::now();
    Status s = r->barrier(1);
    const milliseconds took = since(start);
    const auto again = Clock::now();
    EXPECT_EQ(r->barrier(2).message(), s.message());
    EXPECT_LT(since(again), 50ms);
    return Seen{s, std::nullopt, took};
  });
  const std::string why =
      "rank 2 closed its connection before sending 'arrive': its process ended or left the rendezvous";
  EXPECT_TRUE(seen[2].status.ok());
  expect_failed_everywhere(seen, why, {1});
  for (int rank : {0, 1}) {
    EXPECT_EQ(seen[rank].status.code(), StatusCode::kUnavailable);
    EXPECT_LT(seen[rank].took, 1s) << rank;  // the timeout is 2 s
  }
}

TEST(Rendezvous, rank_0_that_goes_away_fails_every_peer) {
  Job job(3);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(3, [&](int rank) {
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    if (rank == 0) return Seen{ok_status(), std::nullopt, 0ms};  // closes without another word
    const auto start = Clock::now();
    Status s = r->barrier(1);
    return Seen{s, std::nullopt, since(start)};
  });
  // A close that finds the peer's 'arrive' unread resets the connection instead.
  const std::string closed =
      "rendezvous: rank 0 closed its connection before sending 'release': its process ended or left the rendezvous";
  const std::string reset =
      "rendezvous: rank 0 reset its connection (Connection reset by peer) before sending 'release': its process "
      "ended or left the rendezvous";
  for (int rank : {1, 2}) {
    EXPECT_EQ(seen[rank].status.code(), StatusCode::kUnavailable);
    EXPECT_TRUE(seen[rank].status.message() == closed || seen[rank].status.message() == reset)
        << seen[rank].status.message();
    EXPECT_LT(seen[rank].took, 1s);
  }
}

TEST(Rendezvous, ranks_making_different_calls_fail_with_a_protocol_error) {
  Job job(2);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(2, [&](int rank) {
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    if (rank == 0) return Seen{r->barrier(1), std::nullopt, 0ms};
    return Seen{r->agree("step", RangeVerdict::replay(2)).status(), std::nullopt, 0ms};
  });
  const std::string why =
      "rank 1 sent 'propose' where 'arrive' was expected: the ranks made different calls (every rank must agree on "
      "each range and meet at each barrier in the same order)";
  expect_failed_everywhere(seen, why, {1});
}

TEST(Rendezvous, rank_0_turns_away_a_mismatched_world_size_and_says_so_at_its_timeout) {
  Job job(2);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(2, [&](int rank) {
    const auto start = Clock::now();
    StatusOr<Rendezvous> r = job.join(rank, kShort, rank == 1 ? std::optional<int>(3) : std::nullopt);
    return Seen{r.status(), std::nullopt, since(start)};
  });
  const std::string why = "rank 1 has world size 3 where rank 0 has 2; start every rank with the same WORLD_SIZE";
  EXPECT_EQ(seen[1].status.message(), "rendezvous: rank 0 ended the session: " + why);
  EXPECT_LT(seen[1].took, 250ms);  // told at once, not at the timeout
  EXPECT_EQ(seen[0].status.message(),
            "rendezvous: rank(s) 1 of 2 did not join rank 0 at 127.0.0.1:" + std::to_string(job.port()) +
                " within 300 ms; start every rank under rangereplay with the same rendezvous "
                "endpoint; rank 0 turned away 1 connection(s), the last because " +
                why);
}

TEST(Rendezvous, a_second_process_claiming_a_rank_is_turned_away_and_the_job_goes_on) {
  Job job(3);
  ASSERT_TRUE(job.ready());
  Status impostor;
  const std::vector<Seen> seen = run_ranks<Seen>(4, [&](int rank) {
    if (rank == 3) {  // a process with the job's token that says it is rank 1, after rank 1 joined
      std::this_thread::sleep_for(100ms);
      impostor = job.join(1).status();
      return Seen{};
    }
    if (rank == 2) std::this_thread::sleep_for(300ms);
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    return Seen{r->barrier(1), std::nullopt, 0ms};
  });
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_TRUE(seen[rank].status.ok()) << rank << ": " << seen[rank].status.message();
  EXPECT_EQ(impostor.message(),
            "rendezvous: rank 0 ended the session: two processes say they are rank 1; every rank needs a distinct RANK "
            "below WORLD_SIZE");
}

TEST(Rendezvous, a_rank_with_another_jobs_token_is_turned_away_at_once) {
  Job job(2);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(2, [&](int rank) {
    const auto start = Clock::now();
    StatusOr<Rendezvous> r =
        rank == 0 ? job.join(0, kShort) : Rendezvous::connect(job.endpoint(), 1, 2, kQuick, "another-job");
    return Seen{r.status(), std::nullopt, since(start)};
  });
  const std::string why =
      "a connection gave another job's token; start every rank from one `rangereplay profile`, from launchers of one "
      "job (srun, mpirun), or with the same RANGEREPLAY_RENDEZVOUS_TOKEN";
  EXPECT_EQ(seen[1].status.message(), "rendezvous: rank 0 ended the session: " + why);
  EXPECT_LT(seen[1].took, 250ms);
  EXPECT_NE(seen[0].status.message().find("turned away 1 connection(s), the last because " + why), std::string::npos)
      << seen[0].status.message();
}

// A stranger sends `bytes` to rank 0 before the real rank 1 joins: rank 0
// turns the stranger away (what it was told is returned) and the session
// goes on: rank 0 and rank 1 meet at a barrier.
std::string stranger_then_rank(const std::string& bytes) {
  Job job(2);
  if (!job.ready()) return "no listener";
  std::string reply;
  const std::vector<Seen> seen = run_ranks<Seen>(2, [&](int rank) {
    if (rank == 1) {
      RawClient stranger(job.port());
      EXPECT_TRUE(stranger.connected());
      stranger.send(bytes);
      reply = stranger.read_all();  // rank 0 answers and closes
    }
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    return Seen{r->barrier(1), std::nullopt, 0ms};
  });
  EXPECT_TRUE(seen[0].status.ok()) << bytes.substr(0, 20) << ": " << seen[0].status.message();
  EXPECT_TRUE(seen[1].status.ok()) << bytes.substr(0, 20) << ": " << seen[1].status.message();
  StatusOr<RendezvousMessage> m = parse_rendezvous_message(reply.substr(0, reply.find('\n')));
  if (!m.ok() || !std::holds_alternative<ErrorMessage>(*m)) return "not an error line: " + reply.substr(0, 80);
  return std::get<ErrorMessage>(*m).text;
}

TEST(Rendezvous, a_stranger_that_misbehaves_is_turned_away_and_the_real_rank_joins) {
  const std::string token_fix =
      "start every rank from one `rangereplay profile`, from launchers of one job (srun, mpirun), or with the same "
      "RANGEREPLAY_RENDEZVOUS_TOKEN";
  const std::pair<std::string, std::string> cases[] = {
      // The old protocol's takeover line: refused by its version before anything it claims.
      {"hello 1 1 2\n",
       "a rank speaks rendezvous protocol version 1 where rank 0 speaks 2; every rank must run the same rangereplay "
       "version"},
      {"hello 2 1 2 %\n", "a connection gave another job's token; " + token_fix},
      {"hello 2 1 2 guess\n", "a connection gave another job's token; " + token_fix},
      {"hello 2 1 2 job-7f3\n", "a connection gave another job's token; " + token_fix},
      {"hello 2 7 2 job-7f3a\n",
       "a rank says it is rank 7, not from 1 to 1; every rank needs a distinct RANK below WORLD_SIZE"},
      {"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
       "a connecting rank sent a malformed message 'GET / HTTP/1.1?': a byte that is not printable ASCII; every rank "
       "must run the same rangereplay version"},
      {std::string(9000, 'x'),
       "a connecting rank sent a line longer than 8192 bytes; every rank must run the same rangereplay version"},
      {std::string(8192, 'y') + "\n", "a connecting rank sent a malformed message '" + std::string(60, 'y') +
                                          "...': longer than 8192 bytes; every "
                                          "rank must run the same rangereplay version"},
      {"error %\n", "a connecting rank failed: "},
      {"error %ZZ\n",
       "a connecting rank sent a malformed message 'error %ZZ': error takes one encoded text; every rank must run the "
       "same rangereplay version"},
      {"error %1B[2J%1B]0;owned%07\n", "a connecting rank failed: \\x1b[2J\\x1b]0;owned\\x07"},
      {"arrive 1\n",
       "a connecting rank sent 'arrive' where 'hello' was expected: the ranks made different calls (every rank must "
       "agree on each range and meet at each barrier in the same order)"},
  };
  for (const auto& [bytes, told] : cases) EXPECT_EQ(stranger_then_rank(bytes), told) << bytes.substr(0, 20);
}

TEST(Rendezvous, an_error_line_from_a_joined_rank_reaches_the_user_with_control_bytes_escaped) {
  Job job(2);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(2, [&](int rank) {
    if (rank == 1) {
      RawClient peer(job.port());
      peer.send("hello 2 1 2 job-7f3a\n");
      peer.send("error %1B]0;owned%07%1B[2Jbye\n");
      (void)peer.read_all();
      return Seen{};
    }
    StatusOr<Rendezvous> r = job.join(0);
    if (!r.ok()) return failure(r.status());
    return Seen{r->agree("step", RangeVerdict::replay(2)).status(), std::nullopt, 0ms};
  });
  EXPECT_EQ(seen[0].status.message(), "rendezvous: rank 1 failed: \\x1b]0;owned\\x07\\x1b[2Jbye");
}

TEST(Rendezvous, a_hundred_silent_connections_neither_hold_rank_0_past_its_timeout_nor_keep_the_real_rank_out) {
  Job job(2);
  ASSERT_TRUE(job.ready());
  std::vector<std::unique_ptr<RawClient>> silent;
  silent.reserve(100);
  for (int i = 0; i < 100; ++i) silent.push_back(std::make_unique<RawClient>(job.port()));
  const std::vector<Seen> seen = run_ranks<Seen>(2, [&](int rank) {
    const auto start = Clock::now();
    if (rank == 1) std::this_thread::sleep_for(50ms);  // behind the hundred in rank 0's queue
    StatusOr<Rendezvous> r = job.join(rank, kQuick);
    if (!r.ok()) return failure(r.status());
    return Seen{r->barrier(1), std::nullopt, since(start)};
  });
  EXPECT_TRUE(seen[0].status.ok()) << seen[0].status.message();
  EXPECT_TRUE(seen[1].status.ok()) << seen[1].status.message();
  EXPECT_LT(seen[0].took, kQuick);
}

TEST(Rendezvous, a_hello_queued_before_rank_0_accepts_is_read_before_later_connections_push_it_out) {
  Job job(2);
  ASSERT_TRUE(job.ready());
  // Rank 1's connection and hello wait in the listen queue ahead of nine
  // silent connections: rank 0 accepts all ten in one turn, and a door of
  // eight would push rank 1 out if its hello were not read when it is taken.
  RawClient rank1(job.port());
  ASSERT_TRUE(rank1.connected());
  rank1.send(encode_rendezvous_message(HelloMessage{kRendezvousProtocolVersion, 1, 2, std::string(kToken)}));
  std::vector<std::unique_ptr<RawClient>> silent;
  silent.reserve(9);
  for (int i = 0; i < 9; ++i) silent.push_back(std::make_unique<RawClient>(job.port()));
  {
    StatusOr<Rendezvous> r = job.join(0, kShort);
    ASSERT_TRUE(r.ok()) << r.status().message();
  }  // closed: read_all below returns at once
  EXPECT_EQ(rank1.read_all(), "welcome 2\n");
}

// Runs Rendezvous::accept (world size 2, `timeout`) in a child process whose
// descriptor limit is `fd_limit` (or, when 0, the lowest free descriptor:
// none left), while this process opens `silent` connections that never say
// hello. Returns the child's report, "<wall ms> <cpu ms> <status message>",
// or why there is none: the child is killed when it runs 15 s.
std::string accept_with_fd_limit(rlim_t fd_limit, int silent, milliseconds timeout) {
  StatusOr<RendezvousListener> listener = RendezvousListener::open(kLoopback);
  if (!listener.ok()) return "no listener: " + listener.status().message();
  const std::uint16_t port = listener->port();
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return "no pipe";
  const pid_t child = ::fork();
  if (child < 0) return "no fork";
  if (child == 0) {
    ::close(report[0]);
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    rlim_t soft = fd_limit;
    if (soft == 0) {
      const int lowest = ::dup(0);  // the lowest free number: a limit of it leaves no descriptor to open
      ::close(lowest);
      soft = static_cast<rlim_t>(lowest);
    }
    limit.rlim_cur = soft;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(3);
    const auto start = Clock::now();
    StatusOr<Rendezvous> r = Rendezvous::accept(std::move(*listener), 2, timeout, kToken);
    const long long wall = since(start).count();
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const long long cpu = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000LL +
                          (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
    const std::string line = std::to_string(wall) + " " + std::to_string(cpu) + " " + r.status().message();
    (void)!::write(report[1], line.data(), line.size());
    ::_exit(0);
  }
  ::close(report[1]);
  { RendezvousListener parent_copy = std::move(*listener); }  // the child's copy listens
  std::vector<std::unique_ptr<RawClient>> clients;
  clients.reserve(static_cast<std::size_t>(silent));
  for (int i = 0; i < silent; ++i) clients.push_back(std::make_unique<RawClient>(port));
  std::string got;
  const auto deadline = Clock::now() + 15s;
  char buffer[1024];
  while (Clock::now() < deadline) {
    pollfd p{report[0], POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = ::read(report[0], buffer, sizeof(buffer));
    if (n <= 0) break;
    got.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(report[0]);
  if (got.empty()) {
    ::kill(child, SIGKILL);
    got = "no report within 15 s: rank 0 still waits past its timeout";
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return got;
}

struct ChildReport {
  long long wall_ms = -1;
  long long cpu_ms = -1;
  std::string message;
};

ChildReport parse_child_report(const std::string& text) {
  ChildReport r;
  const std::size_t a = text.find(' ');
  const std::size_t b = a == std::string::npos ? a : text.find(' ', a + 1);
  if (b == std::string::npos) {
    r.message = text;
    return r;
  }
  r.wall_ms = std::atoll(text.substr(0, a).c_str());
  r.cpu_ms = std::atoll(text.substr(a + 1, b - a - 1).c_str());
  r.message = text.substr(b + 1);
  return r;
}

TEST(Rendezvous, rank_0_with_64_descriptors_and_100_silent_connections_returns_at_its_timeout_without_spinning) {
  const ChildReport r = parse_child_report(accept_with_fd_limit(64, 100, 4000ms));
  ASSERT_GE(r.wall_ms, 0) << r.message;
  EXPECT_GE(r.wall_ms, 3900);
  EXPECT_LT(r.wall_ms, 4500);
  EXPECT_LT(r.cpu_ms, 1000) << "rank 0 spun";
  EXPECT_TRUE(r.message.starts_with("rendezvous: rank(s) 1 of 2 did not join rank 0 at 127.0.0.1:")) << r.message;
  EXPECT_NE(r.message.find("; rank 0 turned away "), std::string::npos) << r.message;
  // At most 8 pending connections: the limit of 64 was never reached.
  EXPECT_EQ(r.message.find("accepting a connection failed"), std::string::npos) << r.message;
}

TEST(Rendezvous, rank_0_out_of_descriptors_backs_off_and_returns_at_its_timeout) {
  const ChildReport r = parse_child_report(accept_with_fd_limit(0, 20, 1000ms));
  ASSERT_GE(r.wall_ms, 0) << r.message;
  EXPECT_GE(r.wall_ms, 950);
  EXPECT_LT(r.wall_ms, 1500);
  EXPECT_LT(r.cpu_ms, 300) << "rank 0 spun on a listening socket it could not accept from";
  EXPECT_NE(r.message.find("accepting a connection failed"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("(Too many open files): raise the file descriptor limit (ulimit -n)"), std::string::npos)
      << r.message;
}

TEST(Rendezvous, a_connection_closed_before_its_hello_is_dropped_and_the_real_rank_joins) {
  Job job(2);
  ASSERT_TRUE(job.ready());
  const std::vector<Seen> seen = run_ranks<Seen>(2, [&](int rank) {
    if (rank == 1) {
      { RawClient probe(job.port()); }  // a port probe: connects and closes
      std::this_thread::sleep_for(20ms);
    }
    StatusOr<Rendezvous> r = job.join(rank);
    if (!r.ok()) return failure(r.status());
    return Seen{r->barrier(1), std::nullopt, 0ms};
  });
  EXPECT_TRUE(seen[0].status.ok()) << seen[0].status.message();
  EXPECT_TRUE(seen[1].status.ok()) << seen[1].status.message();
}

TEST(Rendezvous, a_garbled_answer_from_rank_0_is_a_protocol_error_not_a_crash) {
  RawRoot root;
  std::string hello;
  std::string propose;
  const std::vector<Seen> seen = run_ranks<Seen>(2, [&](int rank) {
    if (rank == 0) {
      hello = root.accept_and_read_line();
      root.send("welcome 2\n");
      propose = root.read_line();
      root.send("outcome banana 3\n");
      return Seen{};
    }
    StatusOr<Rendezvous> r = Rendezvous::connect(Endpoint{"127.0.0.1", root.port()}, 1, 2, kQuick, kToken);
    if (!r.ok()) return failure(r.status());
    Status s = r->agree("step #1", RangeVerdict::replay(3)).status();
    EXPECT_EQ(r->barrier(1).message(), s.message());  // the session stays failed
    return Seen{s, std::nullopt, 0ms};
  });
  EXPECT_EQ(hello, "hello 2 1 2 job-7f3a");
  EXPECT_EQ(propose, "propose step%20#1 replay 3");
  EXPECT_EQ(seen[1].status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(seen[1].status.message(),
            "rendezvous: rank 0 sent a malformed message 'outcome banana 3': unknown outcome kind; every rank must "
            "run the same rangereplay version");
}

TEST(Rendezvous, a_world_of_one_needs_no_connection) {
  StatusOr<Rendezvous> r = Rendezvous::connect(Endpoint{"unused.invalid", 1}, 0, 1, kShort, kToken);
  ASSERT_TRUE(r.ok()) << r.status().message();
  StatusOr<Agreement> a = r->agree("solo", RangeVerdict::replay(7));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, (Agreement{AgreementKind::kReplay, 7, -1, std::nullopt, ""}));
  StatusOr<Agreement> d = r->agree("solo", RangeVerdict::declined({DeclineReason::kCollectiveInRange, ""}));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->detail, "rank 0 declined range 'solo' (collective_in_range)");
  EXPECT_TRUE(r->barrier(1).ok());
}

TEST(Rendezvous, bad_arguments_are_one_line_errors) {
  const Endpoint e{"127.0.0.1", 1};
  EXPECT_EQ(Rendezvous::connect(e, 3, 3, kShort, kToken).status().message(),
            "rendezvous: rank 3 is not from 0 to 2; pass the process's RANK");
  EXPECT_EQ(Rendezvous::connect(e, 0, 0, kShort, kToken).status().message(),
            "rendezvous: world size 0 is not from 1 to 65536; pass the job's WORLD_SIZE");
  EXPECT_EQ(Rendezvous::connect(e, 0, 2, 0ms, kToken).status().message(), "rendezvous: timeout 0 ms is not above 0");
  StatusOr<Rendezvous> solo = Rendezvous::connect(e, 0, 1, kShort, kToken);
  ASSERT_TRUE(solo.ok());
  EXPECT_EQ(solo->agree("k", RangeVerdict::replay(0)).status().message(),
            "rendezvous: rank 0 proposed replay with 0 passes, not from 1 to 1000000");
  EXPECT_TRUE(solo->failed());
}

TEST(RendezvousListener, a_port_in_use_is_a_one_line_error) {
  StatusOr<RendezvousListener> first = RendezvousListener::open(kLoopback);
  ASSERT_TRUE(first.ok()) << first.status().message();
  const Endpoint taken{"127.0.0.1", first->port()};
  StatusOr<RendezvousListener> second = RendezvousListener::open(taken);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(second.status().message(),
            "rendezvous: rank 0 cannot listen on " + taken.to_string() + " (127.0.0.1 port " +
                std::to_string(taken.port) +
                ": Address already in use); choose a free port, or an address of this host, with --rendezvous "
                "HOST:PORT");
}

}  // namespace
}  // namespace rangereplay
