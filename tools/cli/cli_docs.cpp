// Man page and shell completions from a CLI11 option table (see cli_docs.h).
#include "cli/cli_docs.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace rangereplay::cli {
namespace {

std::vector<const CLI::Option*> visible_options(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); });
}

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
}

bool takes_value(const CLI::Option& o) { return o.get_items_expected_max() > 0; }
bool repeats(const CLI::Option& o) { return o.get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll; }

// The option's names as typed: "-o", "--output".
std::vector<std::string> names_of(const CLI::Option& o) {
  std::vector<std::string> names;
  for (const std::string& s : o.get_snames()) names.push_back("-" + s);
  for (const std::string& l : o.get_lnames()) names.push_back("--" + l);
  return names;
}

// "a|b|c" -> {a, b, c}; a type name without '|' has no choices, nor has one
// with a placeholder among them ("N|off": a number or off), whose values the
// shell cannot list.
std::vector<std::string> choices_of(const CLI::Option& o) {
  const std::string type = o.get_type_name();
  std::vector<std::string> out;
  if (type.find('|') == std::string::npos) return out;
  std::size_t start = 0;
  while (start <= type.size()) {
    const std::size_t bar = std::min(type.find('|', start), type.size());
    if (bar > start) out.push_back(type.substr(start, bar - start));
    start = bar + 1;
  }
  const auto placeholder = [](const std::string& word) {
    return std::none_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  };
  if (std::any_of(out.begin(), out.end(), placeholder)) out.clear();
  return out;
}

bool names_a_file(const CLI::Option& o) { return o.get_type_name().find("PATH") != std::string::npos; }

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string joined(const std::vector<std::string>& words, const std::string& separator) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

// The app's description without a leading "<name>: ", its lines joined.
std::string description_of(const CLI::App& app) {
  std::string text = app.get_description();
  const std::string prefix = app.get_name() + ": ";
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  for (char& c : text) c = c == '\n' ? ' ' : c;
  return text;
}

// --- man page ---

// Text for roff: '\' and '-' escaped, a line starting with '.' or '\'' kept
// from being read as a request.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

std::string man_options(const CLI::App& app) {
  std::string out;
  for (const CLI::Option* o : visible_options(app)) {
    if (o->get_positional()) continue;
    std::string head;
    for (const std::string& n : names_of(*o)) head += (head.empty() ? "" : ", ") + ("\\fB" + roff(n) + "\\fR");
    if (takes_value(*o)) head += " \\fI" + roff(o->get_type_name()) + "\\fR";
    const bool say_repeats = repeats(*o) && o->get_description().find("repeatable") == std::string::npos;
    out += ".TP\n" + head + "\n" + roff(o->get_description()) + (say_repeats ? " (repeatable)" : "") + "\n";
  }
  for (const CLI::Option* o : visible_options(app)) {
    if (!o->get_positional()) continue;
    out += ".TP\n\\fI" + roff(o->get_name(true)) + "\\fR\n" + roff(o->get_description()) + "\n";
  }
  return out;
}

std::string man_footer(const CLI::App& app) {
  const std::string footer = app.get_footer();
  if (footer.empty()) return "";
  return ".PP\n.nf\n" + roff(footer) + (footer.back() == '\n' ? "" : "\n") + ".fi\n";
}

std::string synopsis_line(const CLI::App& app, const std::string& program) {
  std::string line = "\\fB" + roff(program) + "\\fR \\fB" + roff(app.get_name()) + "\\fR";
  if (!visible_options(app).empty()) line += " [\\fIoptions\\fR]";
  for (const CLI::Option* o : visible_options(app)) {
    if (!o->get_positional()) continue;
    line += " \\fI" + roff(o->get_name(true)) + "\\fR" + (o->get_expected_max() > 1 ? " ..." : "");
  }
  if (app.get_prefix_command()) line += " [\\fB\\-\\-\\fR] \\fIcommand\\fR [\\fIargs\\fR]";
  return line + "\n";
}

// --- shell words ---

// `text` inside single quotes for a shell.
std::string single_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shell_function_name(const std::string& program) {
  std::string out = "_";
  for (char c : program) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

// --- zsh ---

// Text inside an _arguments spec's [description] or :message: field.
std::string zsh_field(const std::string& text) {
  std::string out;
  for (char c : first_line(text)) {
    if (c == '\\' || c == '[' || c == ']' || c == ':') out += '\\';
    out += c;
  }
  return out;
}

std::string zsh_action(const CLI::Option& o) {
  const std::vector<std::string> choices = choices_of(o);
  if (!choices.empty()) return "(" + joined(choices, " ") + ")";
  return names_a_file(o) ? "_files" : " ";
}

// The _arguments specs of `app`'s options and positionals, each single-quoted.
std::vector<std::string> zsh_specs(const CLI::App& app) {
  std::vector<std::string> specs;
  int position = 0;
  for (const CLI::Option* o : visible_options(app)) {
    const std::string description = "[" + zsh_field(o->get_description()) + "]";
    if (o->get_positional()) {
      const std::string name = zsh_field(o->get_name(true));
      specs.push_back(single_quoted((o->get_expected_max() > 1 ? std::string("*") : std::to_string(++position)) + ":" +
                                    name + ":_files"));
      continue;
    }
    for (const std::string& n : names_of(*o)) {
      std::string spec = repeats(*o) ? "*" : "";
      spec += n;
      if (takes_value(*o)) {
        spec += (n.size() == 2 ? "+" : "=") + description + ":" + zsh_field(o->get_type_name()) + ":" + zsh_action(*o);
      } else {
        spec += description;
      }
      specs.push_back(single_quoted(spec));
    }
  }
  if (app.get_prefix_command()) {
    specs.push_back(single_quoted("(-)1:command:_command_names -e"));
    specs.push_back(single_quoted("*::arguments:_normal"));
  }
  return specs;
}

std::string continued(const std::vector<std::string>& specs, const std::string& indent) {
  std::string out;
  for (const std::string& s : specs) out += " \\\n" + indent + s;
  return out;
}

}  // namespace

std::string man_page(const CLI::App& app, std::string_view version) {
  const std::string program = app.get_name();
  std::string upper;
  for (char c : program) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string description = description_of(app);
  const std::string summary = description.substr(0, description.find(". "));
  std::string out = ".\\\" Generated from the program's option table by '" + roff(program) + " \\-\\-help\\-man'.\n";
  out += ".TH " + upper + " 1 \"\" \"" + roff(std::string(version)) + "\" \"User Commands\"\n";
  out += ".SH NAME\n" + roff(program) + " \\- " + roff(summary) + "\n";
  out += ".SH SYNOPSIS\n.nf\n\\fB" + roff(program) + "\\fR [\\fIoptions\\fR]\n";
  for (const CLI::App* sub : visible_subcommands(app)) out += synopsis_line(*sub, program);
  out += ".fi\n.SH DESCRIPTION\n" + roff(description) + "\n" + man_footer(app);
  out += ".SH OPTIONS\n" + man_options(app);
  out += ".SH COMMANDS\n";
  for (const CLI::App* sub : visible_subcommands(app)) {
    out += ".SS " + roff(sub->get_name()) + "\n" + roff(sub->get_description()) + "\n";
    out += man_options(*sub) + man_footer(*sub);
  }
  return out;
}

std::string bash_completion(const CLI::App& app) {
  const std::string program = app.get_name();
  const std::string fn = shell_function_name(program);
  std::vector<std::string> sub_names, prefix_subs;
  for (const CLI::App* sub : visible_subcommands(app)) {
    sub_names.push_back(sub->get_name());
    if (sub->get_prefix_command()) prefix_subs.push_back(sub->get_name());
  }
  // The case arms for an option's value, each command's option words, and
  // every "<command> <option>" that takes a value.
  std::string value_arms, option_words;
  std::vector<std::string> value_patterns;
  auto add_app = [&](const CLI::App& a, const std::string& key) {
    std::vector<std::string> words;
    for (const CLI::Option* o : visible_options(a)) {
      if (o->get_positional()) continue;
      for (const std::string& n : names_of(*o)) words.push_back(n);
      if (!takes_value(*o)) continue;
      std::vector<std::string> patterns;
      for (const std::string& n : names_of(*o)) patterns.push_back(single_quoted(key + " " + n));
      value_patterns.insert(value_patterns.end(), patterns.begin(), patterns.end());
      const std::vector<std::string> choices = choices_of(*o);
      std::string action = !choices.empty()
                               ? "COMPREPLY=($(compgen -W " + single_quoted(joined(choices, " ")) + " -- \"$cur\"))"
                           : names_a_file(*o) ? "COMPREPLY=($(compgen -f -- \"$cur\"))"
                                              : "compopt +o default 2>/dev/null";
      value_arms += "    " + joined(patterns, " | ") + ") " + action + "; return 0 ;;\n";
    }
    option_words += "    " + single_quoted(key) + ") words=" + single_quoted(joined(words, " ")) + " ;;\n";
  };
  add_app(app, "");
  for (const CLI::App* sub : visible_subcommands(app)) add_app(*sub, sub->get_name());

  std::string out = "# bash completion for " + program + ", generated from its option table by '" + program +
                    " --completion bash'.\n";
  // Whether word $2 of command $1 takes a value: the application's command
  // cannot start right after it.
  out += fn + "_takes_value() {\n  case \"$1 $2\" in\n";
  if (!value_patterns.empty()) out += "    " + joined(value_patterns, " | ") + ") return 0 ;;\n";
  out += "  esac\n  return 1\n}\n\n";
  out += fn + "() {\n";
  out += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cmd='' words='' i w\n";
  out += "  # '--opt=value': bash splits the '=' into a word of its own.\n";
  out += "  if [[ $cur == = ]]; then cur=''; elif [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD - 2]}; fi\n";
  out += "  for ((i = 1; i < COMP_CWORD; i++)); do\n";
  out += "    w=${COMP_WORDS[i]}\n";
  out += "    if [[ -z $cmd ]]; then\n";
  out +=
      "      case $w in " + (sub_names.empty() ? std::string("''") : joined(sub_names, " | ")) + ") cmd=$w ;; esac\n";
  out += "      continue\n    fi\n";
  out += "    # After '--' the words are the application's: bash's own completion.\n";
  out += "    [[ $w == -- ]] && return 0\n";
  if (!prefix_subs.empty()) {
    out += "    # The first word that is neither an option nor an option's value starts the application.\n";
    out += "    case $cmd in " + joined(prefix_subs, " | ") + ")\n";
    out += "      if [[ $w != -* && $w != = && ${COMP_WORDS[i - 1]} != = ]] && ! " + fn +
           "_takes_value \"$cmd\" \"${COMP_WORDS[i - 1]}\"; then return 0; fi ;;\n";
    out += "    esac\n";
  }
  out += "  done\n";
  out += "  case \"$cmd $prev\" in\n" + value_arms + "  esac\n";
  out += "  case $cmd in\n" + option_words + "  esac\n";
  out += "  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n";
  out += "  elif [[ -z $cmd ]]; then\n    COMPREPLY=($(compgen -W " + single_quoted(joined(sub_names, " ")) +
         " -- \"$cur\"))\n";
  out += "  fi\n  # Otherwise a file or the application: bash's own completion (-o default).\n  return 0\n}\n";
  out += "complete -o bashdefault -o default -F " + fn + " " + program + "\n";
  return out;
}

std::string zsh_completion(const CLI::App& app) {
  const std::string program = app.get_name();
  const std::string fn = shell_function_name(program);
  std::string out = "#compdef " + program + "\n";
  out +=
      "# zsh completion for " + program + ", generated from its option table by '" + program + " --completion zsh'.\n";
  out += fn + "() {\n  local curcontext=$curcontext state line ret=1\n  typeset -A opt_args\n";
  std::vector<std::string> top = zsh_specs(app);
  top.push_back(single_quoted("1: :->command"));
  top.push_back(single_quoted("*:: :->args"));
  out += "  _arguments -C" + continued(top, "    ") + " && ret=0\n";
  out += "  case $state in\n    command)\n      local -a commands=(\n";
  for (const CLI::App* sub : visible_subcommands(app)) {
    std::string entry = sub->get_name() + ":" + first_line(sub->get_description());
    out += "        " + single_quoted(entry) + "\n";
  }
  out += "      )\n      _describe -t commands " + single_quoted(program + " command") + " commands && ret=0 ;;\n";
  out += "    args)\n      curcontext=${curcontext%:*:*}:" + program + "-$line[1]:\n      case $line[1] in\n";
  for (const CLI::App* sub : visible_subcommands(app)) {
    const std::vector<std::string> specs = zsh_specs(*sub);
    out += "        " + sub->get_name() + ")\n          _arguments" + (sub->get_prefix_command() ? " -S" : "") +
           continued(specs, "            ") + " && ret=0 ;;\n";
  }
  out += "      esac ;;\n  esac\n  return ret\n}\n\n" + fn + " \"$@\"\n";
  return out;
}

}  // namespace rangereplay::cli
