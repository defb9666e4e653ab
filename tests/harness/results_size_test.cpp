// Results memrel's own readers would refuse are never written: told before the first cell (an
// estimate from below), and checked again on what is about to be written.
#include "harness/execution/results_size.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "harness/results/results.hpp"
#include "harness/workload/trace_file.hpp"

namespace memrel {
namespace {

TEST(ResultsSize, ATracesMarksCountInEveryCell) {
  Trace few, many;
  many.marks.resize(246000);
  EXPECT_GT(cell_results_bytes(many), cell_results_bytes(few) + 246000u * 80);
  // Six cells of it: about 127 MiB from below, under the cap; a seventh passes it.
  EXPECT_EQ(results_too_large(6 * cell_results_bytes(many)), "");
  EXPECT_NE(results_too_large(7 * cell_results_bytes(many)).find("128 MiB"), std::string::npos);
}

TEST(ResultsSize, WhatIsAboutToBeWrittenPastTheCapIsRefused) {
  EXPECT_NO_THROW(refuse_results_past_the_cap("-o", "r.json", std::string(1000, ' '), ""));
  const std::string past(kMaxResultsFileBytes + 1, ' ');
  try {
    refuse_results_past_the_cap("-o", "m.json", past, "the cells are in r.json.journal");
    FAIL() << "results past the cap were let through";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("-o m.json: the results are 128 MiB", 0), 0u) << what;
    EXPECT_NE(what.find("not written (the cells are in r.json.journal)"), std::string::npos);
  }
}

}  // namespace
}  // namespace memrel
