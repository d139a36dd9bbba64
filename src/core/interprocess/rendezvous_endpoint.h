// Where the ranks of a multi-process job meet for coordinated replay
// (core/interprocess/rendezvous.h), and which rank of how many this process is: from an
// explicit "host:port" or from the variables the job's launcher sets.
//
//   StatusOr<RendezvousJob> job = rendezvous_job_from_environment("", process_environment);
//   if (job.ok()) session = Rendezvous::connect(job->endpoint, job->rank, job->world_size, timeout);
//
// Without an explicit endpoint the host is MASTER_ADDR and the port
// MASTER_PORT + kRendezvousPortOffset: torchrun's own TCPStore listens on
// MASTER_PORT itself, so the rendezvous takes the next port. The rank and
// world size come from the first launcher whose rank variable is set, in the
// order of kRendezvousRankVariables (torchrun, Open MPI, MPICH/PMI, Slurm).
//
// Thread-safety: pure functions over the lookup they are given (which must be
// safe to call from the calling thread).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/status.h"

namespace rangereplay {

/// A TCP endpoint: a host name or numeric address (IPv6 without brackets) and a port.
struct Endpoint {
  std::string host;
  std::uint16_t port = 0;

  /// "host:port", or "[v6 address]:port" when the host holds a ':'.
  std::string to_string() const;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

/// Parses "host:port" or "[v6 address]:port"; the port is decimal, 1 to
/// 65535. Errors (invalid_argument, one line "<what> '<text>': <why>; <the
/// form expected>"): an empty host, a missing or bad port, unbalanced
/// brackets, an unbracketed IPv6 address.
StatusOr<Endpoint> parse_endpoint(std::string_view text, std::string_view what = "rendezvous endpoint");

/// The rendezvous port's distance above MASTER_PORT.
inline constexpr std::uint16_t kRendezvousPortOffset = 1;

inline constexpr const char* kMasterAddrVariable = "MASTER_ADDR";
inline constexpr const char* kMasterPortVariable = "MASTER_PORT";

/// The variables naming a process's global rank and the job's world size, one
/// pair per launcher, in the order they are tried.
struct RankVariables {
  const char* rank;
  const char* world_size;
};
inline constexpr RankVariables kRendezvousRankVariables[] = {
    {"RANK", "WORLD_SIZE"},                            // torchrun
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},  // Open MPI
    {"PMI_RANK", "PMI_SIZE"},                          // MPICH, Intel MPI
    {"SLURM_PROCID", "SLURM_NTASKS"},                  // srun
};

/// One process's place in the job.
struct RendezvousJob {
  Endpoint endpoint;
  int rank = 0;        // 0 to world_size - 1
  int world_size = 1;  // 1 to kMaxRendezvousWorldSize (core/interprocess/rendezvous_wire.h)
  friend bool operator==(const RendezvousJob&, const RendezvousJob&) = default;
};

/// Looks up an environment variable; nullopt when unset.
using EnvironmentLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// The first pair of kRendezvousRankVariables whose rank variable `env`
/// sets, or nullptr when none is set (a process that is no rank of a job).
const RankVariables* job_rank_variables(const EnvironmentLookup& env);

/// The job as `explicit_endpoint` (when not empty) and `env` describe it.
/// Errors (invalid_argument, one line naming the variable and its value, or
/// what to set): no rank variable set; a rank variable without its world
/// size; a rank or world size that is not a whole number, a world size of 0
/// or above the limit, a rank not below the world size; a bad explicit
/// endpoint; no explicit endpoint and MASTER_ADDR or MASTER_PORT unset or
/// bad, or MASTER_PORT + kRendezvousPortOffset above 65535.
StatusOr<RendezvousJob> rendezvous_job_from_environment(std::string_view explicit_endpoint,
                                                        const EnvironmentLookup& env);

/// The variable that gives the job's rendezvous token explicitly.
inline constexpr const char* kRendezvousTokenVariable = "RANGEREPLAY_RENDEZVOUS_TOKEN";

/// The job's rendezvous token and where it came from.
struct RendezvousToken {
  std::string value;   // 1 to kMaxRendezvousTokenBytes bytes
  std::string source;  // the variable(s) it came from, or "random"
  friend bool operator==(const RendezvousToken&, const RendezvousToken&) = default;
};

/// The variables naming a job, tried in this order, each naming the job for
/// all the launchers one job starts (`srun rangereplay profile`, `mpirun -n
/// 2 rangereplay profile`): Open MPI and other PMIx launchers, Open MPI 4,
/// torchrun (a launcher started by torchrun), Slurm (with SLURM_STEP_ID when
/// set, so two steps of one job differ).
inline constexpr const char* kRendezvousJobIdVariables[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
                                                            "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID"};

/// The job's token as the launcher's own environment `env` gives it:
/// RANGEREPLAY_RENDEZVOUS_TOKEN when set; else "<variable>=<value>" of the
/// first of kRendezvousJobIdVariables set and not empty (Slurm's:
/// "SLURM_JOB_ID=<job>.<step>"), the same in every launcher of one job;
/// else nullopt: then this launcher starts the whole job itself and makes a
/// random token (random_rendezvous_token). A token derived from a job id is
/// no secret (other users may see the id): it keeps other jobs and port
/// scanners out, not a determined attacker. Errors (invalid_argument, one
/// line naming the variable): RANGEREPLAY_RENDEZVOUS_TOKEN empty or longer
/// than kMaxRendezvousTokenBytes; a job id that makes a token that long.
StatusOr<std::optional<RendezvousToken>> rendezvous_token_from_environment(const EnvironmentLookup& env);

/// A random token: 32 hexadecimal digits from getrandom(2) (128 bits).
/// Errors: unavailable when getrandom fails (strerror). Thread-safe.
StatusOr<RendezvousToken> random_rendezvous_token();

/// The token a launcher passes to every process it starts:
/// rendezvous_token_from_environment's, else a random one.
StatusOr<RendezvousToken> rendezvous_job_token(const EnvironmentLookup& env);

/// getenv, for rendezvous_job_from_environment.
std::optional<std::string> process_environment(std::string_view name);

}  // namespace rangereplay
