#include "tools/compare/reports.h"

#include "api/picture/svg.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <sstream>

namespace placer::compare {

namespace {

std::string fixed(double v, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << v;
  return out.str();
}

std::string significant(double v) {
  std::ostringstream out;
  out << std::setprecision(6) << v;
  return out.str();
}

// Markdown table cells hold no pipes or line breaks.
std::string cell(std::string text) {
  for (char& c : text) {
    if (c == '|') c = '/';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// The best value of each model among its successful cases.
std::map<std::string, double> bestValues(const Report& report) {
  std::map<std::string, double> best;
  for (const CaseResult& c : report.cases) {
    if (c.outcome != Outcome::Ok || !c.value) continue;
    auto [it, inserted] = best.emplace(c.model, *c.value);
    if (!inserted) it->second = std::min(it->second, *c.value);
  }
  return best;
}

const CaseResult* findCase(const Report& report, const std::string& model, const std::string& algorithm) {
  for (const CaseResult& c : report.cases) {
    if (c.model == model && c.algorithm == algorithm) return &c;
  }
  return nullptr;
}

std::vector<std::string> baselinesPresent(const Report& report) {
  std::vector<std::string> out;
  for (const char* b : kBaselineAlgorithms) {
    const bool ran = std::any_of(report.cases.begin(), report.cases.end(), [&](const CaseResult& c) {
      return c.algorithm == b && c.outcome == Outcome::Ok;
    });
    if (ran) out.push_back(b);
  }
  return out;
}

std::string summaryLine(const Report& report) {
  int ok = 0, infeasible = 0, failing = 0, interrupted = 0;
  for (const CaseResult& c : report.cases) {
    if (c.outcome == Outcome::Ok) ++ok;
    if (c.outcome == Outcome::Infeasible) ++infeasible;
    if (isFailure(c.outcome)) ++failing;
    if (c.outcome == Outcome::Interrupted) ++interrupted;
  }
  std::ostringstream out;
  out << report.cases.size() << " cases: " << ok << " placed, " << infeasible << " infeasible, " << failing
      << " failing";
  if (interrupted) out << ", " << interrupted << " interrupted";
  return out.str();
}

void writeRunSection(std::ostringstream& md, const Report& report) {
  md << "# onnx-placer compare\n\n";
  md << "- " << summaryLine(report) << "\n";
  md << "- objective: " << report.objective;
  if (report.options.is_object() && !report.options.empty()) {
    md << "; options:";
    for (auto it = report.options.begin(); it != report.options.end(); ++it)
      md << " `--" << it.key() << " " << (it->is_string() ? it->get<std::string>() : it->dump()) << "`";
  }
  md << "\n";
  md << "- " << report.jobs
     << " case(s) at a time, each run single-threaded (`--threads 1`), in its own process"
     << " with a limit of " << significant(report.case_time_limit) << " s";
  if (report.case_memory_mb > 0) md << " and " << significant(report.case_memory_mb) << " MB";
  md << "; " << report.repeat << " run(s) per case (time: the median)\n";
  if (!report.shard.empty()) md << "- shard " << report.shard << " of the cases\n";
  md << "- wall time " << fixed(report.wall_seconds, 1) << " s";
  if (!report.tool_version.empty()) md << ", onnx-placer " << report.tool_version;
  md << "\n\n";
}

void writeComparisonSection(std::ostringstream& md, const Comparison& comparison) {
  md << "## Against the baseline\n\n";
  const auto regressions = std::count_if(comparison.changes.begin(), comparison.changes.end(),
                                         [](const Change& c) { return c.regression; });
  md << (comparison.regressed ? "**" + std::to_string(regressions) + " regression(s).**" : "No regression.")
     << " Marks: `+` worse, `-` better, `!` newly failing or gone, `*` fixed, `x` not comparable.\n\n";
  md << "- " << comparison.time_test << "\n";
  if (!comparison.options.empty()) {
    md << "- the runs differ in their options:";
    for (const std::string& o : comparison.options)
      md << " `" << o << "`";
    md << "\n";
  }
  md << "\n";
  if (comparison.changes.empty()) return;
  md << "| | model | algorithm | change |\n|---|---|---|---|\n";
  for (const Change& c : comparison.changes)
    md << "| `" << c.mark << "` | " << cell(c.model) << " | " << cell(c.algorithm) << " | " << cell(c.what)
       << " |\n";
  md << "\n";
}

void writeResultsTable(std::ostringstream& md, const Report& report) {
  const std::map<std::string, double> best = bestValues(report);
  const std::vector<std::string> baselines = baselinesPresent(report);
  md << "## Results\n\n";
  md << "Value: the objective (" << report.objective
     << ", lower is better); vs best: the value over the model's best; gain over a baseline: the baseline's "
        "value"
     << " over this one (above 1: better than the baseline); certified: the value over the proven lower "
        "bound.\n\n";
  md << "| model | algorithm | value | vs best | time (s) | memory over |";
  for (const std::string& b : baselines)
    md << " gain over " << b << " |";
  md << " certified | answered by |\n|---|---|---:|---:|---:|---:|";
  for (std::size_t i = 0; i < baselines.size(); ++i)
    md << "---:|";
  md << "---:|---|\n";
  for (const CaseResult& c : report.cases) {
    md << "| " << cell(c.model) << " | " << cell(c.algorithm) << " | ";
    if (c.outcome != Outcome::Ok) {
      md << "*" << toString(c.outcome) << "* | | " << fixed(c.time(), 2) << " | |";
      for (std::size_t i = 0; i < baselines.size(); ++i)
        md << " |";
      md << " | |\n";
      continue;
    }
    const double value = *c.value;
    auto b = best.find(c.model);
    md << significant(value) << " | " << (b != best.end() && b->second > 0 ? fixed(value / b->second, 4) : "")
       << " | " << fixed(c.time(), 2) << " | "
       << (c.memory_violation && *c.memory_violation > 0 ? significant(*c.memory_violation) : "") << " |";
    for (const std::string& name : baselines) {
      const CaseResult* base = findCase(report, c.model, name);
      md << " ";
      if (base && base->outcome == Outcome::Ok && base->value && value > 0)
        md << fixed(*base->value / value, 3) << "x";
      md << " |";
    }
    md << " " << (c.ratio ? fixed(*c.ratio, 4) : "") << " | " << cell(c.solver) << " |\n";
  }
  md << "\n";
}

void writeFailures(std::ostringstream& md, const Report& report) {
  bool header = false;
  for (const CaseResult& c : report.cases) {
    if (c.outcome == Outcome::Ok) continue;
    if (!header) {
      md << "## Without a placement\n\n| model | algorithm | outcome | why |\n|---|---|---|---|\n";
      header = true;
    }
    md << "| " << cell(c.model) << " | " << cell(c.algorithm) << " | " << toString(c.outcome) << " | "
       << cell(c.message) << " |\n";
  }
  if (header) md << "\n";
}

std::string junitTime(double seconds) {
  return fixed(std::max(0.0, seconds), 3);
}

std::string caseLine(const CaseResult& c) {
  std::ostringstream out;
  out << c.model << " / " << c.algorithm << ": " << toString(c.outcome);
  if (c.value) out << ", value " << significant(*c.value);
  out << ", time " << fixed(c.time(), 3) << " s";
  if (c.ratio) out << ", certified within " << fixed(*c.ratio, 4);
  if (c.memory_violation && *c.memory_violation > 0)
    out << ", memory over by " << significant(*c.memory_violation);
  if (!c.solver.empty()) out << ", answered by " << c.solver;
  if (!c.status.empty()) out << " (" << c.status << ")";
  if (!c.message.empty()) out << "; " << c.message;
  return out.str();
}

void property(std::ostringstream& xml, const std::string& name, const std::string& value) {
  xml << "      <property name=\"" << xmlEscape(name) << "\" value=\"" << xmlEscape(value) << "\"/>\n";
}

void writeSuite(std::ostringstream& xml, const std::string& model,
                const std::vector<const CaseResult*>& cases,
                const std::map<std::pair<std::string, std::string>, const Change*>& regressions) {
  int failures = 0, errors = 0, skipped = 0;
  double time = 0;
  for (const CaseResult* c : cases) {
    const bool regressed = regressions.count({c->model, c->algorithm}) > 0;
    if (c->outcome == Outcome::Failed || (regressed && !isFailure(c->outcome)))
      ++failures;
    else if (isFailure(c->outcome))
      ++errors;
    else if (c->outcome != Outcome::Ok)
      ++skipped;
    time += c->time();
  }
  xml << "  <testsuite name=\"" << xmlEscape(model) << "\" tests=\"" << cases.size() << "\" failures=\""
      << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\" time=\"" << junitTime(time)
      << "\">\n";
  xml << "    <properties>\n";
  for (const CaseResult* c : cases) {
    const std::string a = c->algorithm + ".";
    property(xml, a + "outcome", toString(c->outcome));
    if (c->value) property(xml, a + "value", significant(*c->value));
    property(xml, a + "time", fixed(c->time(), 3));
    if (c->ratio) property(xml, a + "ratio", significant(*c->ratio));
    if (c->memory_violation) property(xml, a + "memoryViolation", significant(*c->memory_violation));
    if (!c->solver.empty()) property(xml, a + "solver", c->solver);
  }
  xml << "    </properties>\n";
  for (const CaseResult* c : cases) {
    xml << "    <testcase classname=\"" << xmlEscape(c->model) << "\" name=\"" << xmlEscape(c->algorithm)
        << "\" time=\"" << junitTime(c->time()) << "\">\n";
    const std::string message = xmlEscape(c->message);
    if (c->outcome == Outcome::Failed) {
      xml << "      <failure type=\"failed\" message=\"" << message << "\">" << message << "</failure>\n";
    } else if (isFailure(c->outcome)) {
      xml << "      <error type=\"" << toString(c->outcome) << "\" message=\"" << message << "\">" << message
          << "</error>\n";
    } else if (c->outcome != Outcome::Ok) {
      xml << "      <skipped type=\"" << toString(c->outcome) << "\" message=\"" << message << "\"/>\n";
    }
    if (auto r = regressions.find({c->model, c->algorithm});
        r != regressions.end() && !isFailure(c->outcome)) {
      const std::string what = xmlEscape(std::string(1, r->second->mark) + " " + r->second->what);
      xml << "      <failure type=\"regression\" message=\"" << what << "\">" << what << "</failure>\n";
    }
    xml << "      <system-out>" << xmlEscape(caseLine(*c)) << "</system-out>\n";
    xml << "    </testcase>\n";
  }
  xml << "  </testsuite>\n";
}

}  // namespace

std::string xmlEscape(const std::string& text) {
  return picture::xmlEscape(text);
}

std::string markdownReport(const Report& report, const Comparison* comparison) {
  std::ostringstream md;
  writeRunSection(md, report);
  if (comparison) writeComparisonSection(md, *comparison);
  writeResultsTable(md, report);
  writeFailures(md, report);
  return md.str();
}

std::string junitReport(const Report& report, const Comparison* comparison) {
  std::map<std::pair<std::string, std::string>, const Change*> regressions;
  std::vector<const Change*> gone;  // regressions of cases this run does not have (a model that is gone)
  if (comparison) {
    for (const Change& c : comparison->changes) {
      if (!c.regression) continue;
      if (findCase(report, c.model, c.algorithm)) {
        regressions[{c.model, c.algorithm}] = &c;
      } else {
        gone.push_back(&c);
      }
    }
  }
  std::vector<std::string> models;
  std::map<std::string, std::vector<const CaseResult*>> by_model;
  for (const CaseResult& c : report.cases) {
    if (!by_model.count(c.model)) models.push_back(c.model);
    by_model[c.model].push_back(&c);
  }
  int tests = 0, failures = 0, errors = 0;
  for (const CaseResult& c : report.cases) {
    ++tests;
    if (c.outcome == Outcome::Failed || (regressions.count({c.model, c.algorithm}) && !isFailure(c.outcome)))
      ++failures;
    else if (isFailure(c.outcome))
      ++errors;
  }
  tests += static_cast<int>(gone.size());
  failures += static_cast<int>(gone.size());
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml << "<testsuites name=\"onnx-placer compare\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" time=\"" << junitTime(report.wall_seconds) << "\">\n";
  for (const std::string& model : models)
    writeSuite(xml, model, by_model[model], regressions);
  if (!gone.empty()) {
    xml << "  <testsuite name=\"gone since the baseline\" tests=\"" << gone.size() << "\" failures=\""
        << gone.size() << "\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n";
    for (const Change* c : gone) {
      const std::string what = xmlEscape(std::string(1, c->mark) + " " + c->what);
      xml << "    <testcase classname=\"" << xmlEscape(c->model) << "\" name=\"" << xmlEscape(c->algorithm)
          << "\" time=\"0.000\">\n      <failure type=\"regression\" message=\"" << what << "\">" << what
          << "</failure>\n    </testcase>\n";
    }
    xml << "  </testsuite>\n";
  }
  xml << "</testsuites>\n";
  return xml.str();
}

}  // namespace placer::compare
