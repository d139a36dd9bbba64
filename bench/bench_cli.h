// Command lines of the GPU benchmarks, parsed with CLI11 like the launcher's
// (tools/cli): size options read by core's parse_byte_size ("512MiB", "6GB",
// "4096") plus the benchmarks' own shorthand, a lone K, M, G or T meaning
// KiB, MiB, GiB, TiB ("256M", "4G"), so scripts/gpu-check.sh's
// COPY_BENCH_ARGS="--max-bytes 4G" keeps its meaning. --help prints on stdout
// and exits 0; a bad command line prints one line on stderr naming the option
// and the fix and exits 2. main() parses first, so both end before any CUDA
// call and work on a machine without a GPU.
//
//   CLI::App app{"digest_bench: ...", "digest_bench"};
//   add_common_options(app, o.json_path, o.max_bytes);  // [out.json] --max-bytes
//   add_size_option(app, "--chunk-bytes", o.chunk_bytes, "Digest chunk size in bytes");
//   parse_or_exit(app, argc, argv);
#pragma once

#include <CLI/CLI.hpp>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "core/snapshot/storage/byte_size.h"
#include "report/format_helpers.h"

namespace rangereplay::bench {

/// The size forms the benchmarks accept, for --help.
inline constexpr const char* kSizeForms =
    "SIZE: bytes (4096) or a number with a unit: 256M, 4G, 1.5G (a lone K, M, G, T is KiB, MiB, GiB, TiB), "
    "512MiB, 6GB (KB, MB, GB, TB are powers of 1000)";

/// Bytes from `text`: storage::parse_byte_size, after a lone trailing K, M, G
/// or T (either case, after a digit or a space) is read as KiB, MiB, GiB, TiB
/// ("256M" = 256 MiB, "1.5g" = 1.5 GiB). Errors: those of parse_byte_size
/// (invalid_argument for malformed text, out_of_range past 2^64 - 1).
/// Pure and thread-safe.
inline StatusOr<std::uint64_t> parse_bench_bytes(std::string_view text) {
  std::string s(text);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  if (s.size() >= 2) {
    const char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(s.back())));
    const char before = s[s.size() - 2];
    const bool lone_unit = unit == 'k' || unit == 'm' || unit == 'g' || unit == 't';
    if (lone_unit && (std::isdigit(static_cast<unsigned char>(before)) || before == ' ' || before == '\t')) {
      s += "iB";
    }
  }
  return storage::parse_byte_size(s);
}

/// Adds `name` (e.g. "--max-bytes") taking a SIZE (parse_bench_bytes) into
/// `target`, up to the largest T. The help line shows `description` and the
/// default (the value `target` holds now: bytes, or binary units from 1 MiB,
/// "4.0 GiB"); the help's footer lists the accepted forms (kSizeForms).
/// Given twice, both values are checked and the last one counts. A bad value
/// fails parsing with one line naming the option, the text and the accepted
/// forms.
template <typename T>
CLI::Option* add_size_option(CLI::App& app, const std::string& name, T& target, const std::string& description) {
  const bool whole_mib = target > 0 && target % (std::uint64_t{1} << 20) == 0;
  const std::string default_text = whole_mib ? report::format_bytes(target) : std::to_string(target);
  // Every value given is checked (CLI11 prefixes the option name); the last
  // one is stored.
  CLI::Validator is_size(
      [](std::string& text) -> std::string {
        StatusOr<std::uint64_t> bytes = parse_bench_bytes(text);
        if (!bytes.ok()) {
          const bool malformed = bytes.status().code() == StatusCode::kInvalidArgument;
          return bytes.status().message() + (malformed ? "; a lone K, M, G or T means KiB, MiB, GiB, TiB (4G)" : "");
        }
        if (*bytes > std::numeric_limits<T>::max()) {
          return "'" + text + "' is above the largest value, " + std::to_string(std::numeric_limits<T>::max()) +
                 " bytes";
        }
        return "";
      },
      "");
  app.footer(kSizeForms);
  return app
      .add_option_function<std::string>(
          name, [&target](const std::string& text) { target = static_cast<T>(*parse_bench_bytes(text)); }, description)
      ->type_name("SIZE")
      ->check(is_size)
      ->default_str(default_text)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

/// Adds what every GPU benchmark takes: the optional positional output path
/// ("out.json", raw numbers as JSON; left empty when not given) and
/// --max-bytes (largest footprint timed; larger rows are skipped).
inline void add_common_options(CLI::App& app, std::string& json_path, std::uint64_t& max_bytes) {
  app.add_option("out.json", json_path, "Where to write the raw numbers as JSON (left out: table only)")
      ->type_name("PATH");
  add_size_option(app, "--max-bytes", max_bytes, "Largest footprint timed, in bytes; larger rows are skipped");
}

/// Parses argv into the options added to `app`. --help / -h: prints the help
/// on stdout, exits 0. A parse error (unknown option, missing value, bad
/// size, second positional): prints "<app name>: <one line>" on stderr,
/// naming the option and the fix, and exits 2. Returns only on success.
inline void parse_or_exit(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    std::exit(0);
  } catch (const CLI::ParseError& e) {
    std::string line = e.what();
    for (char& c : line) {
      if (c == '\n') c = ' ';
    }
    // Size errors name the accepted forms already; the rest point at --help.
    if (dynamic_cast<const CLI::ValidationError*>(&e) == nullptr) line += "; see '" + app.get_name() + " --help'";
    std::fprintf(stderr, "%s: %s\n", app.get_name().c_str(), line.c_str());
    std::exit(2);
  }
}

}  // namespace rangereplay::bench
