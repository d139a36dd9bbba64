// The rendezvous endpoint from text, and the process's place in the job from
// the launchers' variables.
#include "core/interprocess/rendezvous_endpoint.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace rangereplay {
namespace {

EnvironmentLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ParseEndpoint, reads_host_and_port) {
  EXPECT_EQ(*parse_endpoint("127.0.0.1:29501"), (Endpoint{"127.0.0.1", 29501}));
  EXPECT_EQ(*parse_endpoint("node-07.cluster:1"), (Endpoint{"node-07.cluster", 1}));
  EXPECT_EQ(*parse_endpoint("[::1]:65535"), (Endpoint{"::1", 65535}));
  EXPECT_EQ((Endpoint{"::1", 80}).to_string(), "[::1]:80");
  EXPECT_EQ((Endpoint{"node", 80}).to_string(), "node:80");
}

TEST(ParseEndpoint, refuses_bad_endpoints_naming_the_fault) {
  const std::pair<const char*, const char*> bad[] = {
      {"", "no ':port'"},
      {"node", "no ':port'"},
      {":29501", "empty host"},
      {"node:", "bad port"},
      {"node:0", "bad port"},
      {"node:65536", "bad port"},
      {"node:+80", "bad port"},
      {"node:80x", "bad port"},
      {"node: 80", "bad port"},
      {"::1:80", "an IPv6 address needs brackets"},
      {"[::1:80", "'[' without ']'"},
      {"[::1]80", "no ':port' after ']'"},
      {"[]:80", "empty host"},
      {"no de:80", "bad host"},
      {"node]:80", "unbalanced brackets"},
  };
  for (const auto& [text, why] : bad) {
    StatusOr<Endpoint> e = parse_endpoint(text);
    ASSERT_FALSE(e.ok()) << text;
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(e.status().message(), std::string("rendezvous endpoint '") + text + "': " + why +
                                        "; give host:port or [IPv6 address]:port with a port from 1 to 65535");
  }
}

TEST(RendezvousJobFromEnvironment, torchrun_gives_master_port_plus_one) {
  StatusOr<RendezvousJob> job = rendezvous_job_from_environment(
      "", env_of({{"MASTER_ADDR", "10.0.0.5"}, {"MASTER_PORT", "29500"}, {"RANK", "3"}, {"WORLD_SIZE", "8"}}));
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(*job, (RendezvousJob{Endpoint{"10.0.0.5", 29501}, 3, 8}));
}

TEST(RendezvousJobFromEnvironment, an_explicit_endpoint_wins_over_master_addr) {
  StatusOr<RendezvousJob> job = rendezvous_job_from_environment(
      "head:4000", env_of({{"MASTER_ADDR", "10.0.0.5"}, {"MASTER_PORT", "29500"}, {"RANK", "0"}, {"WORLD_SIZE", "2"}}));
  ASSERT_TRUE(job.ok()) << job.status().message();
  EXPECT_EQ(*job, (RendezvousJob{Endpoint{"head", 4000}, 0, 2}));
  StatusOr<RendezvousJob> bad = rendezvous_job_from_environment("head", env_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(
      bad.status().message(),
      "rendezvous endpoint 'head': no ':port'; give host:port or [IPv6 address]:port with a port from 1 to 65535");
}

TEST(RendezvousJobFromEnvironment, open_mpi_pmi_and_slurm_ranks_are_read_in_order) {
  const auto with_master = [](std::map<std::string, std::string> vars) {
    vars["MASTER_ADDR"] = "h";
    vars["MASTER_PORT"] = "100";
    return env_of(std::move(vars));
  };
  EXPECT_EQ(*rendezvous_job_from_environment(
                "", with_master({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"SLURM_PROCID", "9"}})),
            (RendezvousJob{Endpoint{"h", 101}, 1, 4}));
  EXPECT_EQ(*rendezvous_job_from_environment("", with_master({{"PMI_RANK", "2"}, {"PMI_SIZE", "3"}})),
            (RendezvousJob{Endpoint{"h", 101}, 2, 3}));
  EXPECT_EQ(*rendezvous_job_from_environment("", with_master({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}})),
            (RendezvousJob{Endpoint{"h", 101}, 5, 6}));
  // torchrun's RANK first, even where srun set its own too.
  EXPECT_EQ(*rendezvous_job_from_environment(
                "", with_master({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}})),
            (RendezvousJob{Endpoint{"h", 101}, 0, 2}));
}

TEST(JobRankVariables, the_first_launcher_whose_rank_is_set_or_none) {
  EXPECT_EQ(job_rank_variables(env_of({})), nullptr);
  EXPECT_EQ(job_rank_variables(env_of({{"WORLD_SIZE", "2"}})), nullptr);  // a world size alone names no rank
  const RankVariables* slurm = job_rank_variables(env_of({{"SLURM_PROCID", "1"}}));
  ASSERT_NE(slurm, nullptr);
  EXPECT_STREQ(slurm->world_size, "SLURM_NTASKS");
  EXPECT_STREQ(job_rank_variables(env_of({{"RANK", "0"}, {"SLURM_PROCID", "1"}}))->rank, "RANK");
}

TEST(ParseEndpoint, names_what_it_parses) {
  EXPECT_EQ(parse_endpoint("head", "--rendezvous").status().message(),
            "--rendezvous 'head': no ':port'; give host:port or [IPv6 address]:port with a port from 1 to 65535");
}

TEST(RendezvousJobFromEnvironment, missing_or_bad_variables_are_one_line_errors) {
  const std::pair<std::map<std::string, std::string>, std::string> cases[] = {
      {{},
       "no rank: none of RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID is set; run the job under torchrun, "
       "mpirun or srun"},
      {{{"RANK", "1"}}, "WORLD_SIZE is not set; the job's launcher sets RANK and WORLD_SIZE"},
      {{{"RANK", "2"}, {"WORLD_SIZE", "2"}},
       "RANK='2' is not a whole number from 0 to 1; the job's launcher sets RANK and WORLD_SIZE"},
      {{{"RANK", "-1"}, {"WORLD_SIZE", "2"}},
       "RANK='-1' is not a whole number from 0 to 1; the job's launcher sets RANK and WORLD_SIZE"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "0"}},
       "WORLD_SIZE='0' is not a whole number from 1 to 65536; the job's launcher sets RANK and WORLD_SIZE"},
      {{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "many"}},
       "SLURM_NTASKS='many' is not a whole number from 1 to 65536; the job's launcher sets SLURM_PROCID and "
       "SLURM_NTASKS"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}},
       "no rendezvous endpoint: MASTER_ADDR and MASTER_PORT are not both set (torchrun sets them); set them, or give "
       "the endpoint as host:port"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "http"}},
       "MASTER_PORT='http' is not a port from 1 to 65535; set it to rank 0's port"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "65535"}},
       "MASTER_PORT='65535' leaves no port above it for the rendezvous (MASTER_PORT + 1); use a lower MASTER_PORT or "
       "give host:port"},
  };
  for (const auto& [vars, message] : cases) {
    StatusOr<RendezvousJob> job = rendezvous_job_from_environment("", env_of(vars));
    ASSERT_FALSE(job.ok()) << message;
    EXPECT_EQ(job.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(job.status().message(), message);
  }
}

TEST(RendezvousToken, an_explicit_token_comes_first_then_the_job_identity) {
  EXPECT_EQ(
      **rendezvous_token_from_environment(env_of({{"RANGEREPLAY_RENDEZVOUS_TOKEN", "s3cret"}, {"SLURM_JOB_ID", "42"}})),
      (RendezvousToken{"s3cret", "RANGEREPLAY_RENDEZVOUS_TOKEN"}));
  EXPECT_EQ(**rendezvous_token_from_environment(env_of({{"SLURM_JOB_ID", "42"}, {"SLURM_STEP_ID", "3"}})),
            (RendezvousToken{"SLURM_JOB_ID=42.3", "SLURM_JOB_ID"}));
  EXPECT_EQ(**rendezvous_token_from_environment(env_of({{"SLURM_JOB_ID", "42"}})),
            (RendezvousToken{"SLURM_JOB_ID=42", "SLURM_JOB_ID"}));
  // mpirun inside a Slurm allocation: the MPI job's namespace, which two mpiruns of one allocation do not share.
  EXPECT_EQ(**rendezvous_token_from_environment(
                env_of({{"SLURM_JOB_ID", "42"}, {"PMIX_NAMESPACE", "prterun-node1-1234@1"}, {"PMIX_RANK", "0"}})),
            (RendezvousToken{"PMIX_NAMESPACE=prterun-node1-1234@1", "PMIX_NAMESPACE"}));
  EXPECT_EQ(**rendezvous_token_from_environment(env_of({{"OMPI_MCA_ess_base_jobid", "3150577665"}})),
            (RendezvousToken{"OMPI_MCA_ess_base_jobid=3150577665", "OMPI_MCA_ess_base_jobid"}));
  EXPECT_EQ(**rendezvous_token_from_environment(env_of({{"TORCHELASTIC_RUN_ID", "run-9"}, {"SLURM_JOB_ID", ""}})),
            (RendezvousToken{"TORCHELASTIC_RUN_ID=run-9", "TORCHELASTIC_RUN_ID"}));
}

TEST(RendezvousToken, a_launcher_that_is_one_rank_of_several_without_a_job_id_is_refused) {
  // mpiexec (MPICH, Intel MPI) -n 2 rangereplay profile ...: each launcher is a rank.
  StatusOr<RendezvousToken> t = rendezvous_job_token(env_of({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("this launcher is rank 1 of 2 (PMI_RANK, PMI_SIZE)"), std::string::npos)
      << t.status().message();
  EXPECT_NE(t.status().message().find("RANGEREPLAY_RENDEZVOUS_TOKEN"), std::string::npos);
  // One rank of one, or an explicit token: fine.
  EXPECT_EQ(rendezvous_job_token(env_of({{"PMI_RANK", "0"}, {"PMI_SIZE", "1"}}))->source, "random");
  EXPECT_EQ(rendezvous_job_token(env_of({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"RANGEREPLAY_RENDEZVOUS_TOKEN", "s"}}))
                ->value,
            "s");
}

TEST(RendezvousToken, no_job_identity_leaves_the_launcher_to_make_a_random_one) {
  StatusOr<std::optional<RendezvousToken>> none = rendezvous_token_from_environment(env_of({{"RANK", "0"}}));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  StatusOr<RendezvousToken> a = rendezvous_job_token(env_of({}));
  StatusOr<RendezvousToken> b = random_rendezvous_token();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->source, "random");
  EXPECT_EQ(a->value.size(), 32u);
  EXPECT_EQ(a->value.find_first_not_of("0123456789abcdef"), std::string::npos) << a->value;
  EXPECT_NE(a->value, b->value);
  EXPECT_EQ(rendezvous_job_token(env_of({{"SLURM_JOB_ID", "7"}}))->value, "SLURM_JOB_ID=7");
}

TEST(RendezvousToken, an_empty_or_overlong_explicit_token_is_a_one_line_error) {
  EXPECT_EQ(rendezvous_token_from_environment(env_of({{"RANGEREPLAY_RENDEZVOUS_TOKEN", ""}})).status().message(),
            "RANGEREPLAY_RENDEZVOUS_TOKEN has 0 bytes; give it 1 to 256 (the same in every rank's environment)");
  EXPECT_EQ(rendezvous_job_token(env_of({{"RANGEREPLAY_RENDEZVOUS_TOKEN", std::string(257, 'k')}})).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(rendezvous_token_from_environment(env_of({{"SLURM_JOB_ID", std::string(300, '1')}})).status().message(),
            "SLURM_JOB_ID is longer than a rendezvous token may be (256 bytes); set RANGEREPLAY_RENDEZVOUS_TOKEN to "
            "the same value for every rank");
}

}  // namespace
}  // namespace rangereplay
