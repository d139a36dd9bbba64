// The rendezvous endpoint and the process's rank, from text and environment.
#include "core/interprocess/rendezvous_endpoint.h"

#include <sys/random.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "core/interprocess/rendezvous_wire.h"

namespace rangereplay {
namespace {

constexpr std::size_t kMaxDigits = 10;

std::optional<std::uint64_t> whole_number(std::string_view text) {
  if (text.empty() || text.size() > kMaxDigits) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

Status bad_endpoint(std::string_view what, std::string_view text, std::string_view why) {
  return invalid_argument(std::string(what) + " '" + std::string(text) + "': " + std::string(why) +
                          "; give host:port or [IPv6 address]:port with a port from 1 to 65535");
}

StatusOr<int> env_number(const EnvironmentLookup& env, const char* name, std::uint64_t min, std::uint64_t max,
                         std::string_view fix) {
  const std::optional<std::string> value = env(name);
  if (!value) return invalid_argument(std::string(name) + " is not set; " + std::string(fix));
  const std::optional<std::uint64_t> n = whole_number(*value);
  if (!n || *n < min || *n > max) {
    return invalid_argument(std::string(name) + "='" + *value + "' is not a whole number from " + std::to_string(min) +
                            " to " + std::to_string(max) + "; " + std::string(fix));
  }
  return static_cast<int>(*n);
}

StatusOr<Endpoint> endpoint_from_master(const EnvironmentLookup& env) {
  const std::optional<std::string> addr = env(kMasterAddrVariable);
  const std::optional<std::string> port = env(kMasterPortVariable);
  if (!addr || addr->empty() || !port) {
    return invalid_argument(
        "no rendezvous endpoint: MASTER_ADDR and MASTER_PORT are not both set (torchrun sets them); set them, or "
        "give the endpoint as host:port");
  }
  const std::optional<std::uint64_t> n = whole_number(*port);
  if (!n || *n == 0 || *n > 65535) {
    return invalid_argument("MASTER_PORT='" + *port + "' is not a port from 1 to 65535; set it to rank 0's port");
  }
  if (*n + kRendezvousPortOffset > 65535) {
    return invalid_argument("MASTER_PORT='" + *port + "' leaves no port above it for the rendezvous (MASTER_PORT + " +
                            std::to_string(kRendezvousPortOffset) + "); use a lower MASTER_PORT or give host:port");
  }
  return Endpoint{*addr, static_cast<std::uint16_t>(*n + kRendezvousPortOffset)};
}

}  // namespace

std::string Endpoint::to_string() const {
  const std::string port_text = std::to_string(port);
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + port_text;
  return host + ":" + port_text;
}

StatusOr<Endpoint> parse_endpoint(std::string_view text, std::string_view what) {
  std::string_view host;
  std::string_view rest;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos) return bad_endpoint(what, text, "'[' without ']'");
    host = text.substr(1, close - 1);
    rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') return bad_endpoint(what, text, "no ':port' after ']'");
    rest.remove_prefix(1);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad_endpoint(what, text, "no ':port'");
    host = text.substr(0, colon);
    rest = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return bad_endpoint(what, text, "an IPv6 address needs brackets");
    if (host.find_first_of("[]") != std::string_view::npos) return bad_endpoint(what, text, "unbalanced brackets");
  }
  if (host.empty()) return bad_endpoint(what, text, "empty host");
  if (host.find_first_of(" \t/") != std::string_view::npos) return bad_endpoint(what, text, "bad host");
  const std::optional<std::uint64_t> port = whole_number(rest);
  if (!port || *port == 0 || *port > 65535) return bad_endpoint(what, text, "bad port");
  return Endpoint{std::string(host), static_cast<std::uint16_t>(*port)};
}

const RankVariables* job_rank_variables(const EnvironmentLookup& env) {
  for (const RankVariables& vars : kRendezvousRankVariables) {
    if (env(vars.rank)) return &vars;
  }
  return nullptr;
}

StatusOr<RendezvousJob> rendezvous_job_from_environment(std::string_view explicit_endpoint,
                                                        const EnvironmentLookup& env) {
  const RankVariables* found = job_rank_variables(env);
  if (found == nullptr) {
    return invalid_argument(
        "no rank: none of RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID is set; run the job under torchrun, "
        "mpirun or srun");
  }
  const std::string fix = std::string("the job's launcher sets ") + found->rank + " and " + found->world_size;
  RR_ASSIGN_OR_RETURN(const int world, env_number(env, found->world_size, 1, kMaxRendezvousWorldSize, fix));
  RR_ASSIGN_OR_RETURN(const int rank, env_number(env, found->rank, 0, static_cast<std::uint64_t>(world) - 1, fix));
  RendezvousJob job;
  job.rank = rank;
  job.world_size = world;
  if (!explicit_endpoint.empty()) {
    RR_ASSIGN_OR_RETURN(job.endpoint, parse_endpoint(explicit_endpoint));
  } else {
    RR_ASSIGN_OR_RETURN(job.endpoint, endpoint_from_master(env));
  }
  return job;
}

StatusOr<std::optional<RendezvousToken>> rendezvous_token_from_environment(const EnvironmentLookup& env) {
  if (std::optional<std::string> explicit_token = env(kRendezvousTokenVariable)) {
    if (explicit_token->empty() || explicit_token->size() > kMaxRendezvousTokenBytes) {
      return invalid_argument(std::string(kRendezvousTokenVariable) + " has " + std::to_string(explicit_token->size()) +
                              " bytes; give it 1 to " + std::to_string(kMaxRendezvousTokenBytes) +
                              " (the same in every rank's environment)");
    }
    return std::optional<RendezvousToken>(RendezvousToken{*explicit_token, kRendezvousTokenVariable});
  }
  for (const char* name : kRendezvousJobIdVariables) {
    const std::optional<std::string> id = env(name);
    if (!id || id->empty()) continue;
    std::string token = std::string(name) + "=" + *id;
    if (std::string_view(name) == "SLURM_JOB_ID") {
      if (const std::optional<std::string> step = env("SLURM_STEP_ID"); step && !step->empty()) token += "." + *step;
    }
    if (token.size() > kMaxRendezvousTokenBytes) {
      return invalid_argument(std::string(name) + " is longer than a rendezvous token may be (" +
                              std::to_string(kMaxRendezvousTokenBytes) + " bytes); set " + kRendezvousTokenVariable +
                              " to the same value for every rank");
    }
    return std::optional<RendezvousToken>(RendezvousToken{std::move(token), name});
  }
  return std::optional<RendezvousToken>();
}

StatusOr<RendezvousToken> random_rendezvous_token() {
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof(bytes)) {
    const ssize_t n = ::getrandom(bytes + got, sizeof(bytes) - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return unavailable(std::string("cannot make a rendezvous token: getrandom failed (") + std::strerror(errno) +
                         "); set " + kRendezvousTokenVariable + " to a secret shared by every rank");
    }
    got += static_cast<std::size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (const unsigned char b : bytes) {
    token.push_back(kHex[b >> 4]);
    token.push_back(kHex[b & 0xF]);
  }
  return RendezvousToken{std::move(token), "random"};
}

StatusOr<RendezvousToken> rendezvous_job_token(const EnvironmentLookup& env) {
  RR_ASSIGN_OR_RETURN(std::optional<RendezvousToken> from_environment, rendezvous_token_from_environment(env));
  if (from_environment) return std::move(*from_environment);
  // A launcher that is itself one rank of several (mpiexec of MPICH or Intel
  // MPI sets PMI_RANK and PMI_SIZE but no job id) would make a random token
  // of its own, which its peers' launchers cannot know.
  if (const RankVariables* vars = job_rank_variables(env)) {
    const std::optional<std::string> size = env(vars->world_size);
    const std::optional<std::uint64_t> world = size ? whole_number(*size) : std::nullopt;
    if (world && *world > 1) {
      return invalid_argument(
          std::string("this launcher is rank ") + env(vars->rank).value_or("?") + " of " + *size + " (" + vars->rank +
          ", " + vars->world_size +
          ") with no job id its peers share, so the ranks cannot agree on a rendezvous token; set " +
          kRendezvousTokenVariable +
          " to the same value for every rank, or start the job inside "
          "the launcher (rangereplay profile -- mpiexec ...)");
    }
  }
  return random_rendezvous_token();
}

std::optional<std::string> process_environment(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace rangereplay
