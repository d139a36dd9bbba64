// The rendezvous protocol's messages and the decision rank 0 makes from the
// ranks' proposals: everything of core/interprocess/rendezvous.h that is not a socket, so
// that encoding, parsing and agreement are tested as pure functions.
//
// Wire format (protocol version kRendezvousProtocolVersion). Every message is
// one line: fields separated by single spaces, ended by '\n', at most
// kMaxRendezvousLineBytes bytes with the '\n', printable ASCII only (0x20 to
// 0x7e). The first field is the verb. Numbers are unsigned decimal (at most
// 10 digits). Text fields (a range key, a decline detail, an error) are
// percent-encoded: '%' and every byte outside '!'..'~' is written as %XX
// (uppercase hex), so a text never holds a space; the empty text is a lone
// "%". Texts are cut to kMaxRendezvousTextBytes bytes (at a UTF-8 boundary)
// before they are encoded, range keys included: keys that agree in their
// first 1024 bytes are the same key.
//
//   from a rank to rank 0            rank 0's answer, to every rank
//   hello <version> <rank> <world> <token>
//                                    welcome <world>
//   propose <key> replay <passes>    outcome replay <passes>
//   propose <key> decline <reason> <detail>
//                                    outcome <kind> <rank> <reason or -> <detail>
//                                      kind: rank_declined, range_keys_differ, pass_counts_differ
//   arrive <pass>                    release <pass>
//   error <text>                     error <text>   (either side: its session failed; it then closes)
//
// <token> is the job's token (a text field; core/interprocess/rendezvous.h says why and
// rendezvous_endpoint.h where it comes from). A hello of another version is
// parsed as far as its version, so that rank 0 can name the version.
// <reason> is a DeclineReason's name (core/base/decline_reason.h). A line that
// breaks any of these rules, an unknown verb (a newer peer) or an unknown
// reason name is a protocol error (invalid_argument), never a crash.
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "core/base/decline.h"
#include "core/base/status.h"

namespace rangereplay {

inline constexpr std::uint32_t kRendezvousProtocolVersion = 2;
/// Longest line, '\n' included, in bytes.
inline constexpr std::size_t kMaxRendezvousLineBytes = 8192;
/// Longest text field before encoding, in bytes (encoded, up to 3 times as long).
inline constexpr std::size_t kMaxRendezvousTextBytes = 1024;
/// Largest world size and pass count a message may carry.
inline constexpr std::uint32_t kMaxRendezvousWorldSize = 65536;
inline constexpr std::uint32_t kMaxRendezvousPassCount = 1000000;
/// Longest job token, in bytes.
inline constexpr std::size_t kMaxRendezvousTokenBytes = 256;

/// What one rank proposes for the range it has reached: replay it with
/// `pass_count` passes (pass 0 included), or decline it.
struct RangeVerdict {
  std::uint32_t pass_count = 0;  // replay: 1 to kMaxRendezvousPassCount
  std::optional<Decline> decline;

  static RangeVerdict replay(std::uint32_t pass_count) { return {pass_count, std::nullopt}; }
  static RangeVerdict declined(Decline decline) { return {0, std::move(decline)}; }
  bool replays() const { return !decline.has_value(); }
  friend bool operator==(const RangeVerdict&, const RangeVerdict&) = default;
};

enum class AgreementKind : std::uint8_t {
  kReplay,            // every rank proposed replay, of the same range, with the same pass count
  kRankDeclined,      // a rank declined the range
  kRangeKeysDiffer,   // a rank reached another range than rank 0
  kPassCountsDiffer,  // a rank needs another pass count than rank 0
};

/// "replay", "rank_declined", "range_keys_differ", "pass_counts_differ".
std::string_view agreement_kind_name(AgreementKind kind);

/// The outcome every rank gets from one agreement, identical on every rank.
struct Agreement {
  AgreementKind kind = AgreementKind::kReplay;
  std::uint32_t pass_count = 0;         // kReplay: the agreed pass count
  int rank = -1;                        // otherwise: the rank named (the lowest declining or differing one)
  std::optional<DeclineReason> reason;  // kRankDeclined: that rank's reason
  std::string detail;                   // otherwise: one line naming the rank and what it proposed

  bool replays() const { return kind == AgreementKind::kReplay; }
  friend bool operator==(const Agreement&, const Agreement&) = default;
};

/// One rank's proposal, as rank 0 holds it (the key already cut to length).
struct RankProposal {
  int rank = 0;
  std::string range_key;
  RangeVerdict verdict;
};

/// Rank 0's decision over every rank's proposal, `proposals[r]` being rank
/// r's (rank 0 first). In order: the lowest rank that declined ("rank 2
/// declined range 'step #3' (free_in_range): <its detail>"); the lowest rank
/// whose key differs from rank 0's ("rank 2 proposed range 'step #3' where
/// rank 0 has 'step #4'"); the lowest rank whose pass count differs ("rank 2
/// needs 5 passes for range 'step #3' where rank 0 needs 4"); else replay.
/// `proposals` must not be empty. Thread-safe (pure).
Agreement decide_agreement(std::span<const RankProposal> proposals);

// The messages, one struct per verb.
struct HelloMessage {
  std::uint32_t version = kRendezvousProtocolVersion;
  std::uint32_t rank = 0;        // 0 when `version` is another protocol's
  std::uint32_t world_size = 0;  // likewise
  std::string token;             // likewise empty
  friend bool operator==(const HelloMessage&, const HelloMessage&) = default;
};
struct WelcomeMessage {
  std::uint32_t world_size = 0;
  friend bool operator==(const WelcomeMessage&, const WelcomeMessage&) = default;
};
struct ProposeMessage {
  std::string range_key;
  RangeVerdict verdict;
  friend bool operator==(const ProposeMessage&, const ProposeMessage&) = default;
};
struct OutcomeMessage {
  Agreement agreement;
  friend bool operator==(const OutcomeMessage&, const OutcomeMessage&) = default;
};
struct ArriveMessage {
  std::uint32_t pass_index = 0;
  friend bool operator==(const ArriveMessage&, const ArriveMessage&) = default;
};
struct ReleaseMessage {
  std::uint32_t pass_index = 0;
  friend bool operator==(const ReleaseMessage&, const ReleaseMessage&) = default;
};
struct ErrorMessage {
  std::string text;
  friend bool operator==(const ErrorMessage&, const ErrorMessage&) = default;
};

using RendezvousMessage = std::variant<HelloMessage, WelcomeMessage, ProposeMessage, OutcomeMessage, ArriveMessage,
                                       ReleaseMessage, ErrorMessage>;

/// The message's verb: "hello", "welcome", "propose", "outcome", "arrive",
/// "release" or "error".
std::string_view rendezvous_verb(const RendezvousMessage& message);

/// `text` cut to at most kMaxRendezvousTextBytes bytes, at a UTF-8 boundary.
std::string cut_rendezvous_text(std::string_view text);

/// The message as one line, '\n' included; texts cut and encoded, so the
/// line is never longer than kMaxRendezvousLineBytes. Thread-safe (pure).
std::string encode_rendezvous_message(const RendezvousMessage& message);

/// `text` for a terminal: every byte outside ' '..'~' (control bytes,
/// escape sequences, bytes of UTF-8) written as \xNN, and '\\' as \\.
/// Thread-safe (pure).
std::string escape_rendezvous_text(std::string_view text);

/// Whether `a` and `b` are equal, in a time that depends on their lengths
/// only, not on where they first differ (for the job token). Thread-safe.
bool rendezvous_tokens_equal(std::string_view a, std::string_view b);

/// Parses one line, without its '\n'. Errors (invalid_argument, one line
/// naming the fault and the line's start): any breach of the format above.
/// Thread-safe (pure).
StatusOr<RendezvousMessage> parse_rendezvous_message(std::string_view line);

}  // namespace rangereplay
