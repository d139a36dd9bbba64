// Rendezvous: the ranks of a multi-process job (torchrun, mpirun, srun; world
// size N, ranks 0 to N-1) meeting over TCP so that a range holding a
// collective is replayed by every rank at once, pass by pass, and the
// collective sees all its peers. At each range's end every rank proposes a
// verdict and gets the same agreement back; then, before each replayed pass,
// every rank meets the others at a barrier.
//
//   StatusOr<Rendezvous> r = Rendezvous::connect(endpoint, rank, world_size, 30s, token);
//   StatusOr<Agreement> a = r->agree("step #3", RangeVerdict::replay(passes));
//   if (!a.ok() || !a->replays()) decline the range (a's error, or a->detail);
//   for (pass = 1; pass < a->pass_count; ++pass) {
//     if (!r->barrier(pass).ok()) { decline; break; }   // no rank replays a pass alone
//     replay pass;
//   }
//
// Used by tool/range_controller.h for --collectives replay.
//
// Topology: a star. Rank 0 listens on the endpoint (bound with SO_REUSEADDR
// to the address the endpoint's host resolves to) and accepts N-1 peers; each
// other rank connects to it, retrying every 20 ms until the timeout, as rank
// 0 may start later. Every call is one exchange: each rank other than 0 sends
// one line, rank 0 gathers them all, decides, and sends every rank the same
// answer (core/interprocess/rendezvous_wire.h has the messages and the wire format):
//   connect   hello <version> <rank> <world> <token> -> welcome <world>
//   agree     propose <key> replay <passes> | propose <key> decline <reason> <detail>
//                                                 -> outcome ...
//   barrier   arrive <pass>                       -> release <pass>
// A world size of 1 makes no connection: agree decides from the one
// proposal, barrier returns at once.
//
// Strangers: rank 0's port is open to anyone who reaches it while the ranks
// join (it is closed once they all have). A connection counts as a rank
// only after its hello carries the job's token, compared in constant time
// (rendezvous_endpoint.h: rendezvous_job_token says where the token comes
// from); before that rank 0 holds it as pending: at most 8 such
// connections (a ninth pushes out the oldest, so they use at most 8 of the
// application's file descriptors), each with 2 s to say hello. Anything a
// pending connection does wrong (no hello in time, a garbled or 8 KiB line,
// an error line, another verb, another version, token or world size, a rank
// out of range or already taken) gets it an error line and closed; it does
// not fail the session, and rank 0's timeout error counts what it turned
// away and names the last reason. Every turn of rank 0's loop checks the
// deadline, whatever poll() and accept4() return; when accept4 fails for
// want of descriptors (EMFILE, ENFILE) or memory, rank 0 leaves the
// listening socket alone for 100 ms rather than spin on it. The token keeps
// out other jobs' ranks, port scanners and anyone who cannot read the
// token's source; a token derived from a job id that other users can see
// (SLURM_JOB_ID ...) keeps out mistakes, not an attacker on the network:
// give a secret RANGEREPLAY_RENDEZVOUS_TOKEN there. Once joined, a rank is
// trusted: what it sends can fail the session (as below).
//
// Binding: rank 0 binds the address its host name resolves to, except that
// a name (not a numeric address, not "localhost") resolving to a loopback
// address, as a Debian hosts file maps the host's own name to 127.0.1.1, is
// bound as the wildcard address of its family, so ranks on other hosts can
// connect. Errors name the address and port tried and the fix
// (--rendezvous HOST:PORT).
//
// Why hand-written sockets and not ZeroMQ (libzmq, packaged by Debian):
// this code runs inside the profiled application, at a range's end, on the
// application's thread. libzmq would start its own I/O threads and hold
// descriptors (sockets, eventfds) in that process for the session's
// life, add a shared library of about 1 MB (and its own dependencies) to
// every profiled process, and retry and queue on its own, so the deadlines
// here would have to be rebuilt on top of its reconnect logic anyway; its
// REQ/ROUTER patterns have no notion of a job token either (CURVE needs key
// distribution). The protocol is one line each way per call in a star of
// at most a few thousand ranks: this file is some 800 lines, single-
// threaded, with every wait a poll() bounded by a deadline, and its input
// is parsed by the pure, unit-tested and fuzzable rendezvous_wire.
//
// Timeouts: `timeout` bounds each call: rank 0 waits that long for every
// rank's line (at connect: for every rank to connect and say hello); another
// rank waits up to twice as long for rank 0's answer, so that rank 0, which
// names the rank it waited for, normally fails first and tells it why. A
// call therefore returns within about 2 * timeout, never hangs. Name
// resolution (getaddrinfo) is not bounded by it; give numeric addresses
// where DNS may be slow.
//
// Failure (of a joined rank): a timeout, a peer that closed its connection, a protocol error
// (a garbled line, a message of a newer version, a rank sending another
// call's message, a rank at another pass's barrier) fails the session: the
// failing rank sends "error <why>" (rank 0 to every peer) and closes its
// sockets, and every later call on it returns the same error at once. A
// rank's failure reaches the others at their current call or, at the
// latest, their next one; so a caller that replays a pass only after a
// successful barrier never replays a pass without every peer. A decline is
// not a failure: the session goes on to the next range.
//
// Errors are one line, beginning "rendezvous: ", naming the rank and the
// cause (a peer's error text with bytes outside printable ASCII escaped as
// \xNN, so no terminal escape reaches the user's terminal): unavailable (cannot listen, connect or reach a peer in
// time; a peer closed or failed; on a peer, every error rank 0 sends it, as "rank 0 ended the session: <why>"),
// invalid_argument (a bad argument, a mismatched world size, an out-of-range or duplicate rank, a protocol error, as
// rank 0 or the rank that found it names it).
//
// Sockets are non-blocking, close-on-exec, TCP_NODELAY; sends use
// MSG_NOSIGNAL, so a closed peer never raises SIGPIPE in the application.
//
// Thread-safety: one Rendezvous per process, used from one thread at a time
// (it holds no lock). Moving it is the only transfer; a moved-from object's
// calls return failed_precondition. No exceptions.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/interprocess/rendezvous_endpoint.h"
#include "core/interprocess/rendezvous_wire.h"

namespace rangereplay {

/// Rank 0's listening socket, opened before the peers are accepted, so that
/// a caller binding port 0 (tests) can learn the port it got and hand it to
/// the peers. Movable, not copyable; closes the socket when destroyed.
class RendezvousListener {
 public:
  /// Binds `endpoint` (port 0: a free port the system picks) with
  /// SO_REUSEADDR and listens; a host name resolving to loopback is bound
  /// as the wildcard address (see "Binding" above). Errors (unavailable,
  /// one line with strerror, the endpoint, the address and port tried, and
  /// the fix): the host does not resolve, the port is taken or not
  /// permitted.
  static StatusOr<RendezvousListener> open(const Endpoint& endpoint);

  RendezvousListener(RendezvousListener&& other) noexcept;
  RendezvousListener& operator=(RendezvousListener&& other) noexcept;
  RendezvousListener(const RendezvousListener&) = delete;
  RendezvousListener& operator=(const RendezvousListener&) = delete;
  ~RendezvousListener();

  /// The port bound (the system's choice for port 0).
  std::uint16_t port() const { return port_; }
  /// The endpoint as given, with the port bound.
  Endpoint endpoint() const { return Endpoint{host_, port_}; }

 private:
  friend class Rendezvous;
  RendezvousListener(int fd, std::string host, std::uint16_t port) : fd_(fd), host_(std::move(host)), port_(port) {}
  int release() { return std::exchange(fd_, -1); }

  int fd_ = -1;
  std::string host_;
  std::uint16_t port_ = 0;
};

class Rendezvous {
 public:
  /// Joins the job's rendezvous as `rank` of `world_size`: rank 0 listens on
  /// `endpoint` and accepts the others (as accept() does); another rank
  /// connects to it, retrying until `timeout`, and says hello with `token`
  /// (the job's token, at most kMaxRendezvousTokenBytes bytes; every rank
  /// must give the same). Returns when every rank has joined. `timeout` also bounds every later call (see the
  /// file comment). Errors: invalid_argument for a rank not below a world
  /// size of 1 to kMaxRendezvousWorldSize or a timeout not above 0;
  /// unavailable for a port that cannot be bound, a rank that did not join
  /// within `timeout`, rank 0 unreachable within it (naming the address
  /// tried), or rank 0 ending the session or turning this rank away ("rank
  /// 0 ended the session: <why>": another token or world size, a rank taken
  /// twice, a rank missing); invalid_argument for a token too long.
  static StatusOr<Rendezvous> connect(const Endpoint& endpoint, int rank, int world_size,
                                      std::chrono::milliseconds timeout, std::string_view token);

  /// Rank 0's side over a listener already open: accepts world_size - 1
  /// peers, each saying hello with `token`, a distinct rank from 1 to
  /// world_size - 1 and the same world size, then welcomes them all; closes
  /// the listener. A connection that breaks a rule is told why and closed,
  /// and rank 0 goes on waiting (see "Strangers" above). Errors:
  /// unavailable when the ranks did not all join within `timeout` (naming
  /// the missing ranks and what was turned away; every joined peer gets the
  /// error too); invalid_argument as for connect.
  static StatusOr<Rendezvous> accept(RendezvousListener listener, int world_size, std::chrono::milliseconds timeout,
                                     std::string_view token);

  Rendezvous(Rendezvous&& other) noexcept;
  Rendezvous& operator=(Rendezvous&& other) noexcept;
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;
  /// Closes the connections; the peers' next call fails ("rank 0 closed its
  /// connection").
  ~Rendezvous();

  /// Every rank proposes `verdict` for the range named `range_key` (cut to
  /// kMaxRendezvousTextBytes) and gets the same Agreement back, decided by
  /// decide_agreement (core/interprocess/rendezvous_wire.h): replay with P when every
  /// rank proposed replay of the same key with the same P, else the
  /// decline naming the first declining or differing rank. Errors (the
  /// session fails): a timeout, a closed or failed peer, a protocol error;
  /// a verdict to replay with 0 or more than kMaxRendezvousPassCount passes
  /// (invalid_argument).
  StatusOr<Agreement> agree(std::string_view range_key, const RangeVerdict& verdict);

  /// Returns when every rank has arrived at the barrier of `pass_index`.
  /// Errors (the session fails on every rank): a rank at another pass's
  /// barrier ("rank 2 arrived at the barrier of pass 3 where rank 0 is at
  /// pass 2"), a timeout, a closed or failed peer, a protocol error.
  Status barrier(std::uint32_t pass_index);

  /// Ok, or the error that failed the session (then returned by every call).
  const Status& status() const { return failure_; }
  bool failed() const { return !failure_.ok(); }
  int rank() const { return rank_; }
  int world_size() const { return world_size_; }

 private:
  struct Peers;  // the connections: rank 0's to every peer, a peer's to rank 0

  Rendezvous(int rank, int world_size, std::chrono::milliseconds timeout, std::unique_ptr<Peers> peers);

  // Rank 0: one message of `verb` from every peer, in rank order, within the timeout.
  StatusOr<std::vector<RendezvousMessage>> collect(std::string_view verb);
  // Rank 0: `answer` to every peer.
  Status broadcast(const RendezvousMessage& answer);
  // Another rank: sends `own` to rank 0 and returns its answer of `verb`, within twice the timeout.
  StatusOr<RendezvousMessage> ask_root(const RendezvousMessage& own, std::string_view verb);
  // Fails the session with `error` (the first failure stays), tells the
  // other side, closes every connection; returns the session's failure.
  Status fail(Status error);

  int rank_ = 0;
  int world_size_ = 1;
  std::chrono::milliseconds timeout_{0};
  std::unique_ptr<Peers> peers_;
  Status failure_;
};

}  // namespace rangereplay
