#include "gate/print/junit.hpp"

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gate/format.hpp"
#include "gate/print/change_column.hpp"
#include "platform/one_line_text.hpp"

namespace memrel {
namespace {

// XML 1.0 text and attribute values: control characters, bytes that are not UTF-8 and direction
// controls said as every error line and the Markdown say them (platform/one_line_text.hpp: a
// right-to-left override from a benchmark's name turned the text after it around in a CI
// viewer, the thirteenth adversarial pass, c9-junit-bidi-*), then the five escapes.
std::string xml(const std::string& raw) {
  const std::string s = one_line_text(raw);
  std::string out;
  for (unsigned char ch : s) {
    if (const char* entity = format::markup_entity(static_cast<char>(ch))) {
      out += entity;
      continue;
    }
    switch (ch) {
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
          out += '?';
        else
          out += static_cast<char>(ch);
    }
  }
  return out;
}

bool fails(Verdict v) { return v == Verdict::kRegression || v == Verdict::kMissing; }

std::string describe(const Row& r) {
  const std::string change = change_column(r);
  return r.subject + ": baseline " + r.baseline + "; current " + r.current +
         (change.empty() ? "" : "; change " + change) + " (" + verdict_name(r.verdict) + ")";
}

// Jenkins (and tools like it) split a classname at its dots into packages: one dot only, between
// the results file without its extension and the cell, so "suite.json" + "host-malloc/huge" is
// class host-malloc/huge of package suite, not class json.host-malloc/huge of package suite.
std::string classname(const std::string& file, const std::string& subject) {
  std::string stem = file;
  if (const auto dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
  std::string out = stem + "." + subject;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '.' && i != stem.size()) out[i] = '_';
  }
  return out;
}

// Each cell's classname, one per subject: with its dots replaced, "a.b" and "a_b" shared one,
// and a regression of one was reported under the other's name (the twenty-second adversarial
// pass, c6-junit-dot-underscore-workloads-collide). A subject whose name is its classname's as
// written keeps it; one whose dots were replaced into a name another holds gets " (2)", " (3)",
// ... added (its failure message names it as written).
std::map<std::string, std::string> unique_classnames(const std::string& file,
                                                     const std::vector<Row>& rows) {
  std::map<std::string, std::string> of_subject;
  std::set<std::string> taken;
  for (const bool dotted : {false, true}) {
    for (const auto& r : rows) {
      if (of_subject.count(r.subject) || (r.subject.find('.') != std::string::npos) != dotted)
        continue;
      const std::string plain = classname(file, r.subject);
      std::string name = plain;
      for (int n = 2; taken.count(name); ++n) name = plain + " (" + std::to_string(n) + ")";
      taken.insert(name);
      of_subject.emplace(r.subject, name);
    }
  }
  return of_subject;
}

}  // namespace

std::string to_junit_xml(const Report& report) {
  Summary total = report.summary();
  std::size_t tests = 0;
  for (const auto& f : report.files) tests += f.rows.size();
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"memrel compare\" tests=\"" << tests << "\" failures=\""
      << total.regressions + total.missing << "\" skipped=\"" << total.skipped << "\">\n";
  for (const auto& f : report.files) {
    std::size_t failures = 0, skipped = 0;
    for (const auto& r : f.rows) {
      failures += fails(r.verdict);
      skipped += r.verdict == Verdict::kSkipped;
    }
    out << "  <testsuite name=\"" << xml(f.title) << "\" tests=\"" << f.rows.size()
        << "\" failures=\"" << failures << "\" skipped=\"" << skipped << "\">\n";
    const auto classnames = unique_classnames(f.title, f.rows);
    for (const auto& r : f.rows) {
      out << "    <testcase classname=\"" << xml(classnames.at(r.subject)) << "\" name=\""
          << xml(r.metric) << "\"";
      if (fails(r.verdict)) {
        out << ">\n      <failure message=\"" << xml(verdict_name(r.verdict)) << "\">"
            << xml(describe(r)) << "</failure>\n    </testcase>\n";
      } else if (r.verdict == Verdict::kSkipped) {
        out << ">\n      <skipped message=\"" << xml(describe(r)) << "\"/>\n    </testcase>\n";
      } else {
        out << ">\n      <system-out>" << xml(describe(r)) << "</system-out>\n    </testcase>\n";
      }
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace memrel
