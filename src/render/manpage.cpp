#include "render/manpage.hpp"

#include <fmt/format.h>

#include "output/exit_codes.hpp"
#include "render/display.hpp"
#include "tpcost/version.hpp"

namespace tpcost::cli {

namespace {

/// Text safe for roff: backslashes and hyphen-minus escaped (so flags copy and paste as
/// ASCII), and no line starting with a control character.
std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) {
      out += "\\&";
    }
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

std::string option_heading(const option_info& o) {
  std::string out;
  for (std::size_t i = 0; i < o.names.size(); ++i) {
    out += (i == 0 ? "" : ", ") + fmt::format("\\fB{}\\fR", roff(o.names[i]));
  }
  if (o.takes_value) {
    // A long list of choices ({A100-SXM4-80GB,...}) may break after each comma (\: is a
    // zero-width break point), or troff cannot fit the tag line.
    std::string value;
    for (const char c : roff(o.value_name)) {
      value += c;
      if (c == ',') {
        value += "\\:";
      }
    }
    out += fmt::format(" \\fI{}\\fR", value);
  }
  return out;
}

void options_section(const std::vector<option_info>& options, std::string& out) {
  std::string group;
  for (const auto& o : options) {
    if (o.group != group) {
      group = o.group;
      out += fmt::format(".PP\n\\fI{}\\fR\n", roff(group));
    }
    out += fmt::format(".TP\n{}\n{}", option_heading(o), roff(o.description));
    if (!o.default_value.empty()) {
      out += fmt::format(" (default: {})", roff(o.default_value));
    }
    out += "\n";
  }
}

/// A help footer ("Examples:\n  tpcost ...") as a literal block.
void footer_section(const std::string& footer, std::string& out) {
  if (footer.empty()) {
    return;
  }
  out += ".PP\n.nf\n" + roff(footer);
  if (footer.back() != '\n') {
    out += "\n";
  }
  out += ".fi\n";
}

/// A subcommand and, recursively, its own subcommands: one .SS section each.
void command_sections(const command_info& cmd, const std::string& path, std::string& out) {
  const auto full = path + " " + cmd.name;
  out += fmt::format(".SS \"{} [options]\"\n{}\n", roff(full), roff(cmd.description));
  options_section(cmd.options, out);
  footer_section(cmd.footer, out);
  for (const auto* sub : visible_subcommands(cmd)) {
    command_sections(*sub, full, out);
  }
}

}  // namespace

std::string manpage(const command_info& root) {
  const auto& name = root.name;
  std::string summary = root.description;
  if (const auto colon = summary.find(": ");
      summary.rfind(name, 0) == 0 && colon != std::string::npos) {
    summary = summary.substr(colon + 2);
  }
  std::string out;
  out += fmt::format(".TH {} 1 \"\" \"{} {}\" \"User Commands\"\n", "TPCOST", name, TPCOST_VERSION);
  out += ".nh\n.ad l\n";  // no hyphenation or justification: flags stay whole and copyable
  out += fmt::format(".SH NAME\n{} \\- {}\n", name, roff(summary));
  out += fmt::format(
      ".SH SYNOPSIS\n.B {}\n.I command\n.RI [ options ]\n.br\n.B {}\n"
      ".RB [ \\-\\-help | \\-\\-version ]\n",
      name, name);
  out += ".SH DESCRIPTION\n";
  out += fmt::format(
      "\\fB{}\\fR computes how much of a GPU's time goes to communication when a transformer "
      "is split with tensor parallelism (TP), from the model of its seed article: per-layer "
      "all-reduce bytes, compute FLOPs, the comm/compute ratio R, the efficiency E(t) = 1/(1+R) "
      "and the critical degree t* where E = 50%.\n"
      ".PP\n"
      "Values take units: a bare number is SI (bytes, bytes/s, FLOP/s); k, M, G, T, P, E are "
      "powers of 10 and Ki, Mi, Gi, Ti, Pi, Ei powers of 2; in a rate B is a byte and b a bit.\n",
      roff(name));
  out += ".SH COMMANDS\n";
  for (const auto* sub : visible_subcommands(root)) {
    command_sections(*sub, name, out);
  }
  out += ".SH OPTIONS\n";
  options_section(root.options, out);
  out += ".SH SHELL COMPLETION\n";
  for (const auto& sub : root.subcommands) {
    if (!sub.hidden) {
      continue;
    }
    std::string args;
    for (const auto& p : sub.positionals) {
      args += " " + (p.choices.empty() ? p.positional_name : p.value_name);
    }
    out += fmt::format(".TP\n\\fB{} {}\\fR{}\n{}\n", roff(name), roff(sub.name), roff(args),
                       roff(sub.description));
  }
  out += fmt::format(
      ".PP\n\\fB{0} completion\\fR prints a completion script, and \\fB{0} manpage\\fR this "
      "page (COMMANDS above). The scripts are generated from the same definitions as "
      "\\fB\\-\\-help\\fR, so they complete every command and flag. Packages install them; to "
      "load one by hand:\n"
      ".PP\n.nf\n"
      "source <({0} completion bash)      # bash, e.g. in ~/.bashrc\n"
      "source <({0} completion zsh)       # zsh, after compinit\n"
      "{0} completion fish | source       # fish\n"
      ".fi\n",
      roff(name));
  out += ".SH EXIT STATUS\n";
  for (const auto& e : exit_code_docs) {
    out += fmt::format(".TP\n.B {}\n{}\n", e.code, roff(e.meaning));
  }
  out += ".SH ENVIRONMENT\n";
  for (const auto& e : environment_docs) {
    out += fmt::format(".TP\n.B {}\n{}\n", e.name, roff(e.meaning));
  }
  out += ".SH SEE ALSO\n.BR gnuplot (1)\n";
  return out;
}

}  // namespace tpcost::cli
