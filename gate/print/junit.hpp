// The gate's report as JUnit XML, the format CI systems (GitLab, Jenkins, GitHub's test
// reporters) display natively: one <testsuite> per compared file, one <testcase> per row (a
// cell's status or a gated figure), <failure> for a REGRESSION or a missing figure, <skipped>
// for what could not run on either side. Rows that pass carry their change in <system-out>.
#pragma once

#include <string>

#include "gate/verdict.hpp"

namespace memrel {

std::string to_junit_xml(const Report& report);

}  // namespace memrel
