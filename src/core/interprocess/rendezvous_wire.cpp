// The rendezvous messages as lines, and rank 0's agreement rule.
#include "core/interprocess/rendezvous_wire.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <vector>

namespace rangereplay {
namespace {

constexpr std::string_view kNoReason = "-";
constexpr std::size_t kQuotedLineBytes = 60;  // how much of a malformed line an error shows
constexpr std::size_t kMaxNumberDigits = 10;

bool is_text_byte(unsigned char c) { return c > ' ' && c <= '~' && c != '%'; }

std::string encode_text(std::string_view raw) {
  const std::string text = cut_rendezvous_text(raw);
  if (text.empty()) return "%";
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_text_byte(c)) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> decode_text(std::string_view field) {
  if (field == "%") return std::string();
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '%') {
      out.push_back(field[i]);
      continue;
    }
    if (i + 2 >= field.size()) return std::nullopt;
    const int hi = hex_value(field[i + 1]);
    const int lo = hex_value(field[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  if (out.size() > kMaxRendezvousTextBytes) return std::nullopt;
  return out;
}

std::optional<std::uint32_t> parse_number(std::string_view field, std::uint32_t max) {
  if (field.empty() || field.size() > kMaxNumberDigits) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || value > max) return std::nullopt;
  return static_cast<std::uint32_t>(value);
}

// The start of `line`, every byte outside ' '..'~' shown as '?', for error messages.
std::string quoted_start(std::string_view line) {
  std::string shown(line.substr(0, kQuotedLineBytes));
  for (char& c : shown)
    if (c < ' ' || c > '~') c = '?';
  return "'" + shown + (line.size() > kQuotedLineBytes ? "...'" : "'");
}

Status malformed(std::string_view line, std::string_view why) {
  return invalid_argument("rendezvous: malformed message " + quoted_start(line) + ": " + std::string(why) +
                          "; every rank must run the same rangereplay version");
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t space = line.find(' ', start);
    fields.push_back(line.substr(start, space == std::string_view::npos ? std::string_view::npos : space - start));
    if (space == std::string_view::npos) return fields;
    start = space + 1;
  }
}

std::string line_of(std::initializer_list<std::string_view> fields) {
  std::string line;
  for (const std::string_view f : fields) {
    if (!line.empty()) line.push_back(' ');
    line.append(f);
  }
  line.push_back('\n');
  return line;
}

std::string number(std::uint32_t n) { return std::to_string(n); }

std::string encode_agreement(const Agreement& a) {
  if (a.replays()) return line_of({"outcome", "replay", number(a.pass_count)});
  const std::string reason(a.reason ? decline_reason_name(*a.reason) : kNoReason);
  return line_of({"outcome", agreement_kind_name(a.kind), number(static_cast<std::uint32_t>(a.rank < 0 ? 0 : a.rank)),
                  reason, encode_text(a.detail)});
}

std::optional<AgreementKind> agreement_kind_from_name(std::string_view name) {
  for (const AgreementKind k : {AgreementKind::kReplay, AgreementKind::kRankDeclined, AgreementKind::kRangeKeysDiffer,
                                AgreementKind::kPassCountsDiffer})
    if (agreement_kind_name(k) == name) return k;
  return std::nullopt;
}

StatusOr<RendezvousMessage> parse_propose(std::string_view line, const std::vector<std::string_view>& f) {
  if (f.size() < 4) return malformed(line, "propose needs a key and a verdict");
  std::optional<std::string> key = decode_text(f[1]);
  if (!key) return malformed(line, "bad range key encoding");
  if (f[2] == "replay") {
    if (f.size() != 4) return malformed(line, "propose replay takes a pass count only");
    std::optional<std::uint32_t> passes = parse_number(f[3], kMaxRendezvousPassCount);
    if (!passes || *passes == 0) return malformed(line, "bad pass count");
    return RendezvousMessage(ProposeMessage{*key, RangeVerdict::replay(*passes)});
  }
  if (f[2] != "decline" || f.size() != 5)
    return malformed(line, "propose takes 'replay <passes>' or 'decline <reason> <detail>'");
  const std::optional<DeclineReason> reason = decline_reason_from_name(f[3]);
  if (!reason) return malformed(line, "unknown decline reason '" + std::string(f[3].substr(0, 40)) + "'");
  std::optional<std::string> detail = decode_text(f[4]);
  if (!detail) return malformed(line, "bad detail encoding");
  return RendezvousMessage(ProposeMessage{*key, RangeVerdict::declined(Decline{*reason, *detail})});
}

StatusOr<RendezvousMessage> parse_outcome(std::string_view line, const std::vector<std::string_view>& f) {
  if (f.size() < 3) return malformed(line, "outcome needs a kind");
  const std::optional<AgreementKind> kind = agreement_kind_from_name(f[1]);
  if (!kind) return malformed(line, "unknown outcome kind");
  Agreement a;
  a.kind = *kind;
  if (*kind == AgreementKind::kReplay) {
    if (f.size() != 3) return malformed(line, "outcome replay takes a pass count only");
    std::optional<std::uint32_t> passes = parse_number(f[2], kMaxRendezvousPassCount);
    if (!passes || *passes == 0) return malformed(line, "bad pass count");
    a.pass_count = *passes;
    return RendezvousMessage(OutcomeMessage{a});
  }
  if (f.size() != 5) return malformed(line, "a declining outcome takes a rank, a reason and a detail");
  std::optional<std::uint32_t> rank = parse_number(f[2], kMaxRendezvousWorldSize - 1);
  if (!rank) return malformed(line, "bad rank");
  a.rank = static_cast<int>(*rank);
  if (*kind == AgreementKind::kRankDeclined) {
    a.reason = decline_reason_from_name(f[3]);
    if (!a.reason) return malformed(line, "unknown decline reason '" + std::string(f[3].substr(0, 40)) + "'");
  } else if (f[3] != kNoReason) {
    return malformed(line, "only rank_declined names a reason");
  }
  std::optional<std::string> detail = decode_text(f[4]);
  if (!detail) return malformed(line, "bad detail encoding");
  a.detail = std::move(*detail);
  return RendezvousMessage(OutcomeMessage{std::move(a)});
}

// A verb followed by exactly one number no larger than `max`.
std::optional<std::uint32_t> single_number(const std::vector<std::string_view>& f, std::uint32_t max) {
  if (f.size() != 2) return std::nullopt;
  return parse_number(f[1], max);
}

}  // namespace

std::string_view agreement_kind_name(AgreementKind kind) {
  switch (kind) {
    case AgreementKind::kReplay: return "replay";
    case AgreementKind::kRankDeclined: return "rank_declined";
    case AgreementKind::kRangeKeysDiffer: return "range_keys_differ";
    case AgreementKind::kPassCountsDiffer: return "pass_counts_differ";
  }
  return "replay";
}

Agreement decide_agreement(std::span<const RankProposal> proposals) {
  assert(!proposals.empty());
  const RankProposal& root = proposals.front();
  for (const RankProposal& p : proposals) {
    if (p.verdict.replays()) continue;
    const Decline& d = *p.verdict.decline;
    std::string detail = "rank " + std::to_string(p.rank) + " declined range '" + p.range_key + "' (" +
                         std::string(decline_reason_name(d.reason)) + ")";
    if (!d.detail.empty()) detail += ": " + d.detail;
    return Agreement{AgreementKind::kRankDeclined, 0, p.rank, d.reason, std::move(detail)};
  }
  for (const RankProposal& p : proposals) {
    if (p.range_key == root.range_key) continue;
    return Agreement{AgreementKind::kRangeKeysDiffer, 0, p.rank, std::nullopt,
                     "rank " + std::to_string(p.rank) + " proposed range '" + p.range_key + "' where rank " +
                         std::to_string(root.rank) + " has '" + root.range_key + "'"};
  }
  for (const RankProposal& p : proposals) {
    if (p.verdict.pass_count == root.verdict.pass_count) continue;
    return Agreement{AgreementKind::kPassCountsDiffer, 0, p.rank, std::nullopt,
                     "rank " + std::to_string(p.rank) + " needs " + std::to_string(p.verdict.pass_count) +
                         " passes for range '" + p.range_key + "' where rank " + std::to_string(root.rank) + " needs " +
                         std::to_string(root.verdict.pass_count)};
  }
  return Agreement{AgreementKind::kReplay, root.verdict.pass_count, -1, std::nullopt, ""};
}

std::string_view rendezvous_verb(const RendezvousMessage& message) {
  static constexpr std::string_view kVerbs[] = {"hello", "welcome", "propose", "outcome", "arrive", "release", "error"};
  return kVerbs[message.index()];
}

std::string cut_rendezvous_text(std::string_view text) {
  if (text.size() <= kMaxRendezvousTextBytes) return std::string(text);
  std::size_t end = kMaxRendezvousTextBytes;
  // Back off continuation bytes (10xxxxxx) so a character is not split.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end));
}

std::string escape_rendezvous_text(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= ' ' && c <= '~') {
      out.push_back(ch);
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

bool rendezvous_tokens_equal(std::string_view a, std::string_view b) {
  // Every byte of the longer one is compared, the shorter read cyclically;
  // the differences are OR-ed together, so no branch depends on the bytes.
  const std::size_t n = std::max(a.size(), b.size());
  unsigned difference = a.size() == b.size() ? 0u : 1u;
  for (std::size_t i = 0; i < n; ++i) {
    const auto x = a.empty() ? 0u : static_cast<unsigned char>(a[i % a.size()]);
    const auto y = b.empty() ? 0u : static_cast<unsigned char>(b[i % b.size()]);
    difference |= x ^ y;
  }
  // Read through a volatile so the compiler cannot stop at the first difference.
  volatile unsigned result = difference;
  return result == 0;
}

std::string encode_rendezvous_message(const RendezvousMessage& message) {
  struct Encoder {
    std::string operator()(const HelloMessage& m) const {
      return line_of({"hello", number(m.version), number(m.rank), number(m.world_size), encode_text(m.token)});
    }
    std::string operator()(const WelcomeMessage& m) const { return line_of({"welcome", number(m.world_size)}); }
    std::string operator()(const ProposeMessage& m) const {
      if (m.verdict.replays())
        return line_of({"propose", encode_text(m.range_key), "replay", number(m.verdict.pass_count)});
      return line_of({"propose", encode_text(m.range_key), "decline", decline_reason_name(m.verdict.decline->reason),
                      encode_text(m.verdict.decline->detail)});
    }
    std::string operator()(const OutcomeMessage& m) const { return encode_agreement(m.agreement); }
    std::string operator()(const ArriveMessage& m) const { return line_of({"arrive", number(m.pass_index)}); }
    std::string operator()(const ReleaseMessage& m) const { return line_of({"release", number(m.pass_index)}); }
    std::string operator()(const ErrorMessage& m) const { return line_of({"error", encode_text(m.text)}); }
  };
  return std::visit(Encoder{}, message);
}

StatusOr<RendezvousMessage> parse_rendezvous_message(std::string_view line) {
  if (line.size() + 1 > kMaxRendezvousLineBytes)
    return malformed(line, "longer than " + std::to_string(kMaxRendezvousLineBytes) + " bytes");
  for (const char c : line)
    if (c < ' ' || c > '~') return malformed(line, "a byte that is not printable ASCII");
  const std::vector<std::string_view> f = split_fields(line);
  for (const std::string_view field : f)
    if (field.empty()) return malformed(line, "an empty field (fields are separated by one space)");
  const std::string_view verb = f.front();
  constexpr std::uint32_t kMaxIndex = 0xFFFFFFFFu;
  if (verb == "hello") {
    std::optional<std::uint32_t> version = f.size() >= 2 ? parse_number(f[1], kMaxIndex) : std::nullopt;
    if (!version) return malformed(line, "hello takes a version first");
    // Another version may lay out its hello otherwise: its version is enough to refuse it.
    if (*version != kRendezvousProtocolVersion) return RendezvousMessage(HelloMessage{*version, 0, 0, ""});
    if (f.size() != 5) return malformed(line, "hello takes a version, a rank, a world size and a token");
    std::optional<std::uint32_t> rank = parse_number(f[2], kMaxIndex);
    std::optional<std::uint32_t> world = parse_number(f[3], kMaxIndex);
    if (!rank || !world) return malformed(line, "hello's rank and world size are numbers");
    std::optional<std::string> token = decode_text(f[4]);
    if (!token || token->size() > kMaxRendezvousTokenBytes) return malformed(line, "bad token encoding");
    return RendezvousMessage(HelloMessage{*version, *rank, *world, std::move(*token)});
  }
  if (verb == "welcome") {
    std::optional<std::uint32_t> world = single_number(f, kMaxRendezvousWorldSize);
    if (!world) return malformed(line, "welcome takes a world size");
    return RendezvousMessage(WelcomeMessage{*world});
  }
  if (verb == "propose") return parse_propose(line, f);
  if (verb == "outcome") return parse_outcome(line, f);
  if (verb == "arrive" || verb == "release") {
    std::optional<std::uint32_t> pass = single_number(f, kMaxIndex);
    if (!pass) return malformed(line, std::string(verb) + " takes a pass index");
    if (verb == "arrive") return RendezvousMessage(ArriveMessage{*pass});
    return RendezvousMessage(ReleaseMessage{*pass});
  }
  if (verb == "error") {
    std::optional<std::string> text = f.size() == 2 ? decode_text(f[1]) : std::nullopt;
    if (!text) return malformed(line, "error takes one encoded text");
    return RendezvousMessage(ErrorMessage{*text});
  }
  return malformed(line, "unknown verb");
}

}  // namespace rangereplay
