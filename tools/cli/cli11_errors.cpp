// CLI11's parse errors in one line (see cli11_errors.h).
#include "cli/cli11_errors.h"

#include "core/base/closest_names.h"

namespace rangereplay::cli {

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

const CLI::Option* option_named(const CLI::App& app, const std::string& word) {
  if (word.size() < 2 || word[0] != '-') return nullptr;
  const std::string name = word.substr(0, word.find('='));
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->check_name(name)) return opt;
  }
  return nullptr;
}

std::string unknown_option_line(const CLI::App& app, const std::string& word, const std::string& help) {
  const std::string name = word.substr(0, word.find('='));
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
  }
  const std::vector<std::string> close = closest_names(name, names, 1, plausible_typo_distance(name.size()));
  return "unknown option '" + word + "'" + (close.empty() ? "" : " (did you mean " + close.front() + "?)") + "; see '" +
         help + "'";
}

std::string cli11_error_line(const CLI::ParseError& error, const std::vector<const CLI::App*>& apps,
                             const std::vector<std::string>& words, const std::string& help,
                             const ValueHint& value_hint) {
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    // CLI11's wording ("The following arguments were not expected: step/
    // --nvtx-include") names neither cause nor fix.
    const std::vector<std::string> extras = apps.empty() ? std::vector<std::string>{} : apps.front()->remaining();
    for (const std::string& x : extras) {
      if (x.starts_with("-")) return unknown_option_line(*apps.front(), x, help);
    }
    return "unexpected '" + (extras.empty() ? std::string() : extras.front()) + "'; see '" + help + "'";
  }
  const std::string what = error.what();
  // "--verify=maybe" ("Could not convert: --verify = maybe"): a flag given a value.
  for (std::size_t i = 1; i < words.size(); ++i) {
    const CLI::Option* opt = nullptr;
    for (const CLI::App* app : apps) {
      if (opt == nullptr) opt = option_named(*app, words[i]);
    }
    if (opt != nullptr && opt->get_expected_max() == 0 && words[i].find('=') != std::string::npos) {
      return opt->get_name() + " takes no value; write " + opt->get_name() + " alone";
    }
  }
  // "--restore: 1 required full|differential missing" (no value before the
  // next option or the end), and "--metrics=", which CLI11 reads the same way.
  // CLI11 leaves the name out for some options (": 1 required bash|zsh
  // missing"): the last option word on the line is the one left without a value.
  if (const std::size_t colon = what.find(':'); colon != std::string::npos && (what.starts_with("--") || colon == 0) &&
                                                what.ends_with(" missing") &&
                                                what.find(" required ") != std::string::npos) {
    std::string option = what.substr(0, colon);
    for (std::size_t i = words.size(); option.empty() && i > 1; --i) {
      if (words[i - 1].starts_with("--")) option = words[i - 1].substr(0, words[i - 1].find('='));
    }
    if (!option.empty()) return value_hint ? value_hint(option) : option + " needs a value";
  }
  // "--set: At Most 1 required but received 2": an option that takes one
  // value was given twice.
  constexpr std::string_view kAtMostOne = ": At Most 1 required but received ";
  if (const std::size_t at = what.find(kAtMostOne); at != std::string::npos && what.starts_with("--")) {
    const std::string times = one_line(what.substr(at + kAtMostOne.size()));
    return what.substr(0, at) + " was given " + times + " times; give it once (see '" + help + "')";
  }
  return one_line(what) + "; see '" + help + "'";
}

std::optional<int> parse_or_exit(CLI::App& app, const std::vector<std::string>& words, const std::string& program,
                                 std::ostream& out, std::ostream& err) {
  if (words.size() <= 1) {
    err << app.help() << std::flush;
    return kExitUsageError;
  }
  std::vector<const char*> argv;
  for (const std::string& w : words) argv.push_back(w.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    out << app.help() << std::flush;
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All) << std::flush;
    return 0;
  } catch (const CLI::ParseError& e) {
    err << program << ": " << cli11_error_line(e, {&app}, words, program + " --help") << std::endl;
    return kExitUsageError;
  }
  return std::nullopt;
}

}  // namespace rangereplay::cli
