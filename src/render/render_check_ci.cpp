#include "render/render_check_ci.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "render/check_rule_text.hpp"
#include "tpcost/base/quote.hpp"
#include "tpcost/version.hpp"

namespace tpcost::cli {

namespace {

/// `text` for an XML attribute: sanitised (output_safe: well-formed UTF-8 with stray bytes and
/// control bytes as \xNN, which XML 1.0 forbids even as references, U+FFFE/U+FFFF as \uFFFE/
/// \uFFFF), and the five markup characters as entities. A JUnit report a CI server cannot
/// parse loses every verdict in it.
std::string xml_escape(std::string_view text) {
  std::string out;
  for (const char c : output_safe(text)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// A path as a SARIF artifactLocation.uri, a URI reference (SARIF 2.1.0 Sec. 3.4.3, RFC 3986):
/// unreserved bytes and '/' as they are, every other byte percent-encoded.
std::string uri_reference(std::string_view path) {
  static constexpr std::string_view hex = "0123456789ABCDEF";
  std::string out;
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    const bool keep = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
                      u == '-' || u == '.' || u == '_' || u == '~' || u == '/';
    if (keep) {
      out += c;
    } else {
      out += '%';
      out += hex[u >> 4U];
      out += hex[u & 0xFU];
    }
  }
  return out;
}

/// GitHub workflow-command escaping of a property or message, after the output sanitiser (no
/// control byte, ESC included, reaches the runner's log; CR and LF are \xNN already).
std::string gha_escape(std::string_view text, bool property) {
  std::string out;
  for (const char c : output_safe(text)) {
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else if (property && c == ':') {
      out += "%3A";
    } else if (property && c == ',') {
      out += "%2C";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string check_junit(const std::vector<file_check>& files) {
  std::size_t tests = 0;
  std::size_t failures = 0;
  std::size_t errors = 0;
  std::string suites;
  for (const auto& f : files) {
    std::string cases;
    std::size_t suite_failures = 0;
    if (!f.error.empty()) {
      ++errors;
      cases += fmt::format(
          "    <testcase name=\"load\" classname=\"{}\">\n      <error message=\"{}\"/>\n"
          "    </testcase>\n",
          xml_escape(f.source), xml_escape(f.error));
    }
    for (const auto& o : f.outcomes) {
      cases += fmt::format("    <testcase name=\"{}\" classname=\"{}\">", rule_name(o.kind),
                           xml_escape(f.source));
      if (!o.passed) {
        ++suite_failures;
        cases +=
            fmt::format("\n      <failure message=\"{}\"/>\n    ", xml_escape(failure_text(o)));
      }
      cases += "</testcase>\n";
    }
    const std::size_t suite_tests = f.outcomes.size() + (f.error.empty() ? 0 : 1);
    tests += suite_tests;
    failures += suite_failures;
    // The assumed network, where a reader of the CI report sees it (JUnit's <properties>).
    const std::string properties =
        f.assumption.empty()
            ? std::string()
            : fmt::format(
                  "    <properties>\n      <property name=\"assumed\" value=\"{}\"/>\n"
                  "    </properties>\n",
                  xml_escape(f.assumption));
    suites += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n{}{}  "
        "</testsuite>\n",
        xml_escape(f.source), suite_tests, suite_failures, f.error.empty() ? 0 : 1, properties,
        cases);
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"tpcost check\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n{}"
      "</testsuites>\n",
      tests, failures, errors, suites);
}

/// SARIF 2.1.0 (OASIS, https://docs.oasis-open.org/sarif/sarif/v2.1.0/) for GitHub code
/// scanning: one result per failed rule or invalid file. Every string goes through
/// nlohmann::json, which escapes it as JSON requires; messages pass the output sanitiser first
/// (output_safe: no ESC or stray byte reaches a viewer), the uri is percent-encoded.
std::string check_sarif(const std::vector<file_check>& files) {
  nlohmann::json rules = nlohmann::json::array();
  const auto describe = [&](std::string_view id, std::string_view text) {
    rules.push_back({{"id", id},
                     {"shortDescription", {{"text", text}}},
                     {"helpUri", "https://github.com/tpcost/tpcost/blob/main/docs/formats.md"}});
  };
  describe("invalid-config", "the config could not be read or evaluated");
  for (const auto kind :
       {rule_kind::min_efficiency, rule_kind::max_ratio, rule_kind::tp_within_half_critical,
        rule_kind::tp_within_node, rule_kind::min_utilisation, rule_kind::min_mfu,
        rule_kind::min_memory_headroom, rule_kind::max_step_time, rule_kind::fits_memory}) {
    describe(rule_name(kind), fmt::format("tpcost rule {}", rule_name(kind)));
  }
  nlohmann::json results = nlohmann::json::array();
  const auto location = [](const file_check& f) {
    nlohmann::json region = {{"startLine", std::max<std::size_t>(f.line, 1)}};
    return nlohmann::json::array(
        {{{"physicalLocation",
           {{"artifactLocation", {{"uri", f.source == "-" ? "stdin" : uri_reference(f.source)}}},
            {"region", region}}}}});
  };
  // The assumed network of a file: a tool notification (SARIF 2.1.0 Sec. 3.58), not a result.
  nlohmann::json notifications = nlohmann::json::array();
  for (const auto& f : files) {
    if (!f.assumption.empty()) {
      notifications.push_back({{"level", "warning"},
                               {"message", {{"text", output_safe(f.assumption)}}},
                               {"locations", location(f)}});
    }
    if (!f.error.empty()) {
      results.push_back({{"ruleId", "invalid-config"},
                         {"level", "error"},
                         {"message", {{"text", output_safe(f.error)}}},
                         {"locations", location(f)}});
    }
    for (const auto& o : f.outcomes) {
      if (!o.passed) {
        results.push_back({{"ruleId", rule_name(o.kind)},
                           {"level", "error"},
                           {"message", {{"text", failure_text(o)}}},
                           {"locations", location(f)}});
      }
    }
  }
  const nlohmann::json sarif = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       {{{"tool",
          {{"driver",
            {{"name", "tpcost"},
             {"version", TPCOST_VERSION},
             {"informationUri", "https://github.com/tpcost/tpcost"},
             {"rules", rules}}}}},
         {"invocations",
          {{{"executionSuccessful", true}, {"toolExecutionNotifications", notifications}}}},
         {"results", results}}}}};
  return sarif.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_annotations(const std::vector<file_check>& files) {
  std::string out;
  for (const auto& f : files) {
    if (!f.assumption.empty()) {
      out += fmt::format("::warning file={},title=tpcost check::{}\n", gha_escape(f.source, true),
                         gha_escape(f.assumption, false));
    }
    if (!f.error.empty()) {
      out += fmt::format("::error file={},title=tpcost check::{}\n", gha_escape(f.source, true),
                         gha_escape(f.error, false));
    }
    for (const auto& o : f.outcomes) {
      if (!o.passed) {
        out += fmt::format("::error file={},title=tpcost {}::{}\n", gha_escape(f.source, true),
                           rule_name(o.kind), gha_escape(failure_text(o), false));
      }
    }
  }
  return out;
}

}  // namespace tpcost::cli
