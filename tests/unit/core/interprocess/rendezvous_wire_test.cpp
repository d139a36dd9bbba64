// The rendezvous messages as lines (round trips, exact encodings, garbled
// lines refused) and rank 0's agreement rule as a decision table.
#include "core/interprocess/rendezvous_wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rangereplay {
namespace {

RendezvousMessage round_trip(const RendezvousMessage& m) {
  const std::string line = encode_rendezvous_message(m);
  EXPECT_EQ(line.back(), '\n');
  StatusOr<RendezvousMessage> parsed = parse_rendezvous_message(std::string_view(line).substr(0, line.size() - 1));
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? *parsed : RendezvousMessage(ErrorMessage{"parse failed"});
}

TEST(RendezvousWire, every_message_is_one_documented_line) {
  EXPECT_EQ(encode_rendezvous_message(HelloMessage{2, 2, 4, "job 7"}), "hello 2 2 4 job%207\n");
  EXPECT_EQ(encode_rendezvous_message(HelloMessage{2, 2, 4, ""}), "hello 2 2 4 %\n");
  EXPECT_EQ(encode_rendezvous_message(WelcomeMessage{4}), "welcome 4\n");
  EXPECT_EQ(encode_rendezvous_message(ProposeMessage{"step #3", RangeVerdict::replay(5)}),
            "propose step%20#3 replay 5\n");
  EXPECT_EQ(encode_rendezvous_message(
                ProposeMessage{"step", RangeVerdict::declined({DeclineReason::kFreeInRange, "cuMemFree 100%"})}),
            "propose step decline free_in_range cuMemFree%20100%25\n");
  EXPECT_EQ(encode_rendezvous_message(OutcomeMessage{Agreement{AgreementKind::kReplay, 7, -1, std::nullopt, ""}}),
            "outcome replay 7\n");
  EXPECT_EQ(encode_rendezvous_message(OutcomeMessage{
                Agreement{AgreementKind::kRankDeclined, 0, 2, DeclineReason::kCollectiveInRange, "rank 2 declined"}}),
            "outcome rank_declined 2 collective_in_range rank%202%20declined\n");
  EXPECT_EQ(encode_rendezvous_message(
                OutcomeMessage{Agreement{AgreementKind::kPassCountsDiffer, 0, 1, std::nullopt, "differ"}}),
            "outcome pass_counts_differ 1 - differ\n");
  EXPECT_EQ(encode_rendezvous_message(ArriveMessage{3}), "arrive 3\n");
  EXPECT_EQ(encode_rendezvous_message(ReleaseMessage{4294967295u}), "release 4294967295\n");
  EXPECT_EQ(encode_rendezvous_message(ErrorMessage{""}), "error %\n");
}

TEST(RendezvousWire, messages_survive_a_round_trip) {
  const std::vector<RendezvousMessage> messages = {
      HelloMessage{2, 7, 8, "SLURM_JOB_ID=123.0"},
      HelloMessage{2, 7, 8, ""},
      WelcomeMessage{8},
      ProposeMessage{"", RangeVerdict::replay(1)},
      ProposeMessage{"layer/attn \xc3\xa9 %20\t\n", RangeVerdict::replay(kMaxRendezvousPassCount)},
      ProposeMessage{"k", RangeVerdict::declined({DeclineReason::kReplayFailed, ""})},
      OutcomeMessage{Agreement{AgreementKind::kRangeKeysDiffer, 0, 65535, std::nullopt, "rank 3 proposed ..."}},
      OutcomeMessage{Agreement{AgreementKind::kRankDeclined, 0, 1, DeclineReason::kUnsupportedApi, ""}},
      ArriveMessage{0},
      ReleaseMessage{12},
      ErrorMessage{"rank 2 closed its connection"},
  };
  for (const RendezvousMessage& m : messages) EXPECT_EQ(round_trip(m), m) << encode_rendezvous_message(m);
}

TEST(RendezvousWire, long_texts_are_cut_at_a_character_boundary_and_lines_stay_under_the_limit) {
  // 1023 ASCII bytes then a 2-byte character that would straddle the limit.
  const std::string key = std::string(1023, 'k') + "\xc3\xa9" + std::string(5000, 'x');
  EXPECT_EQ(cut_rendezvous_text(key), std::string(1023, 'k'));
  EXPECT_EQ(cut_rendezvous_text("short"), "short");
  const std::string worst(5000, '\x01');  // every byte encoded as %01
  const std::string line =
      encode_rendezvous_message(ProposeMessage{worst, RangeVerdict::declined({DeclineReason::kUnsupportedApi, worst})});
  EXPECT_LE(line.size(), kMaxRendezvousLineBytes);
  const auto parsed = round_trip(ProposeMessage{worst, RangeVerdict::replay(2)});
  EXPECT_EQ(std::get<ProposeMessage>(parsed).range_key, std::string(kMaxRendezvousTextBytes, '\x01'));
}

TEST(RendezvousWire, garbled_and_future_lines_are_protocol_errors_naming_the_fault) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "rendezvous: malformed message '': an empty field (fields are separated by one space)"},
      {"hello 2 2 4",
       "rendezvous: malformed message 'hello 2 2 4': hello takes a version, a rank, a world size and "
       "a token"},
      {"hello 2 -2 4 t", "rendezvous: malformed message 'hello 2 -2 4 t': hello's rank and world size are numbers"},
      {"hello 2 1 2 t%zz", "rendezvous: malformed message 'hello 2 1 2 t%zz': bad token encoding"},
      {"hello 2 1 2 " + std::string(257, 't'),
       "rendezvous: malformed message 'hello 2 1 2 " + std::string(48, 't') + "...': bad token encoding"},
      {"hello x", "rendezvous: malformed message 'hello x': hello takes a version first"},
      {"hello  1 2 4",
       "rendezvous: malformed message 'hello  1 2 4': an empty field (fields are separated by one "
       "space)"},
      {"welcome 4 ", "rendezvous: malformed message 'welcome 4 ': an empty field (fields are separated by one space)"},
      {"welcome 70000", "rendezvous: malformed message 'welcome 70000': welcome takes a world size"},
      {"propose k replay 0", "rendezvous: malformed message 'propose k replay 0': bad pass count"},
      {"propose k replay 12345678901", "rendezvous: malformed message 'propose k replay 12345678901': bad pass count"},
      {"propose k%2 replay 3", "rendezvous: malformed message 'propose k%2 replay 3': bad range key encoding"},
      {"propose k%zz replay 3", "rendezvous: malformed message 'propose k%zz replay 3': bad range key encoding"},
      {"propose k decline no_such_reason x",
       "rendezvous: malformed message 'propose k decline no_such_reason x': unknown decline reason 'no_such_reason'"},
      {"propose k maybe 3",
       "rendezvous: malformed message 'propose k maybe 3': propose takes 'replay <passes>' or "
       "'decline <reason> <detail>'"},
      {"outcome banana 3", "rendezvous: malformed message 'outcome banana 3': unknown outcome kind"},
      {"outcome range_keys_differ 1 free_in_range x",
       "rendezvous: malformed message 'outcome range_keys_differ 1 free_in_range x': only rank_declined names a "
       "reason"},
      {"arrive", "rendezvous: malformed message 'arrive': arrive takes a pass index"},
      {"release x", "rendezvous: malformed message 'release x': release takes a pass index"},
      {"error a b", "rendezvous: malformed message 'error a b': error takes one encoded text"},
      {"resume 3", "rendezvous: malformed message 'resume 3': unknown verb"},
      {"GET / HTTP/1.1\r", "rendezvous: malformed message 'GET / HTTP/1.1?': a byte that is not printable ASCII"},
  };
  for (const auto& [line, message] : bad) {
    StatusOr<RendezvousMessage> m = parse_rendezvous_message(line);
    ASSERT_FALSE(m.ok()) << line;
    EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument) << line;
    EXPECT_EQ(m.status().message(), message + "; every rank must run the same rangereplay version") << line;
  }
  // A hello of another version is read as far as its version.
  StatusOr<RendezvousMessage> v1 = parse_rendezvous_message("hello 1 1 2");
  ASSERT_TRUE(v1.ok()) << v1.status().message();
  EXPECT_EQ(std::get<HelloMessage>(*v1), (HelloMessage{1, 0, 0, ""}));
  StatusOr<RendezvousMessage> huge = parse_rendezvous_message(std::string(kMaxRendezvousLineBytes, 'a'));
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("longer than 8192 bytes"), std::string::npos) << huge.status().message();
  EXPECT_NE(huge.status().message().find(std::string(60, 'a') + "...'"), std::string::npos);
}

TEST(RendezvousWire, escaped_text_holds_no_control_byte) {
  EXPECT_EQ(escape_rendezvous_text("plain text"), "plain text");
  EXPECT_EQ(escape_rendezvous_text("\x1b]0;pwned\x07 \\ \r\n\xc3\xa9"), "\\x1b]0;pwned\\x07 \\\\ \\x0d\\x0a\\xc3\\xa9");
  // A decoded error text of every byte comes out printable.
  std::string every;
  for (int c = 0; c < 256; ++c) every.push_back(static_cast<char>(c));
  for (const char c : escape_rendezvous_text(every)) EXPECT_TRUE(c >= ' ' && c <= '~') << static_cast<int>(c);
}

TEST(RendezvousWire, tokens_compare_equal_only_when_every_byte_and_the_length_agree) {
  EXPECT_TRUE(rendezvous_tokens_equal("abc123", "abc123"));
  EXPECT_TRUE(rendezvous_tokens_equal("", ""));
  EXPECT_FALSE(rendezvous_tokens_equal("abc123", "abc124"));
  EXPECT_FALSE(rendezvous_tokens_equal("abc123", "bbc123"));
  EXPECT_FALSE(rendezvous_tokens_equal("abc", "abcabc"));  // the shorter read cyclically still differs by length
  EXPECT_FALSE(rendezvous_tokens_equal("", "a"));
  EXPECT_FALSE(rendezvous_tokens_equal("a", ""));
}

RankProposal replay(int rank, std::string key, std::uint32_t passes) {
  return RankProposal{rank, std::move(key), RangeVerdict::replay(passes)};
}
RankProposal decline(int rank, std::string key, DeclineReason reason, std::string detail) {
  return RankProposal{rank, std::move(key), RangeVerdict::declined({reason, std::move(detail)})};
}

TEST(DecideAgreement, same_key_and_pass_count_everywhere_replays) {
  const std::vector<RankProposal> p = {replay(0, "step #3", 5), replay(1, "step #3", 5), replay(2, "step #3", 5)};
  EXPECT_EQ(decide_agreement(p), (Agreement{AgreementKind::kReplay, 5, -1, std::nullopt, ""}));
  EXPECT_EQ(decide_agreement(std::vector<RankProposal>{replay(0, "solo", 1)}),
            (Agreement{AgreementKind::kReplay, 1, -1, std::nullopt, ""}));
}

TEST(DecideAgreement, first_declining_rank_wins_over_later_declines_and_mismatches) {
  const std::vector<RankProposal> p = {replay(0, "step #3", 5), replay(1, "step #9", 2),
                                       decline(2, "step #3", DeclineReason::kFreeInRange, "cuMemFree_v2 in the range"),
                                       decline(3, "step #3", DeclineReason::kUnsupportedApi, "cuMemcpyPeer")};
  EXPECT_EQ(decide_agreement(p), (Agreement{AgreementKind::kRankDeclined, 0, 2, DeclineReason::kFreeInRange,
                                            "rank 2 declined range 'step #3' (free_in_range): cuMemFree_v2 in the "
                                            "range"}));
  const std::vector<RankProposal> root = {decline(0, "r", DeclineReason::kCollectiveInRange, ""), replay(1, "r", 2)};
  EXPECT_EQ(decide_agreement(root), (Agreement{AgreementKind::kRankDeclined, 0, 0, DeclineReason::kCollectiveInRange,
                                               "rank 0 declined range 'r' (collective_in_range)"}));
}

TEST(DecideAgreement, a_different_range_key_is_named_before_a_different_pass_count) {
  const std::vector<RankProposal> p = {replay(0, "step #4", 5), replay(1, "step #4", 6), replay(2, "step #3", 5)};
  EXPECT_EQ(decide_agreement(p), (Agreement{AgreementKind::kRangeKeysDiffer, 0, 2, std::nullopt,
                                            "rank 2 proposed range 'step #3' where rank 0 has 'step #4'"}));
}

TEST(DecideAgreement, a_different_pass_count_names_both_counts) {
  const std::vector<RankProposal> p = {replay(0, "step #3", 4), replay(1, "step #3", 4), replay(2, "step #3", 5)};
  EXPECT_EQ(decide_agreement(p), (Agreement{AgreementKind::kPassCountsDiffer, 0, 2, std::nullopt,
                                            "rank 2 needs 5 passes for range 'step #3' where rank 0 needs 4"}));
}

}  // namespace
}  // namespace rangereplay
