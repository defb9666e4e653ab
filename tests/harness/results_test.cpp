#include "harness/results/results.hpp"

#include <gtest/gtest.h>

#include "harness/results/cell_status.hpp"
#include "test_support.hpp"

namespace memrel {
namespace {

const std::string kSample = std::string(MEMREL_TEST_DATA) + "/host-run.json";

TEST(Results, CommittedHostSampleRoundTripsExactly) {
  RunResults run = read_run_file(kSample);
  ASSERT_FALSE(run.cells.empty());
  nlohmann::json original = nlohmann::json::parse(testing::read_text(kSample));
  EXPECT_EQ(to_json(run), original);
}

TEST(Results, CellRoundTripKeepsOptionalsEmpty) {
  CellResult c;
  c.backend = "host-malloc";
  c.workload = "w";
  c.status = "ok";
  MarkRecord m;
  m.label = "a";
  m.at.requested = 7;
  m.at.reserved = 9;
  c.marks.push_back(m);
  CellResult back = cell_from_json(to_json(c));
  EXPECT_EQ(back.marks[0].at.requested, 7u);
  EXPECT_EQ(*back.marks[0].at.reserved, 9u);
  EXPECT_FALSE(back.marks[0].at.allocated.has_value());
  EXPECT_FALSE(back.marks[0].at.process_used.has_value());
}

// The trace object is optional in memrel.cell/1 and its own fields default when absent, so that
// files written before it, and before any field added to it later, stay readable.
TEST(Results, TraceObjectRoundTripsAndItsFieldsAreOptional) {
  CellResult c;
  c.backend = "host-malloc-retain";
  c.workload = "step";
  c.status = "ok";
  TraceReplay& t = c.trace.emplace();
  t.scale = "1/16";
  t.events = 8;
  t.ns_per_event = 0.0;  // allocator_ns / events, as the replay writes it
  t.series.event = {0, 8};
  t.series.requested = {0, 0};
  t.series.allocated = {std::nullopt, 5};
  t.series.reserved = {1, 2};
  t.series.device_used = {3, 4};
  t.series.device_used_delta = {0, -1};
  t.marks.push_back({"oom@4", 4, false});
  nlohmann::json j = to_json(c);
  CellResult back = cell_from_json(j);
  ASSERT_TRUE(back.trace.has_value());
  EXPECT_EQ(back.trace->scale, "1/16");
  EXPECT_FALSE(back.trace->series.allocated[0].has_value());
  EXPECT_EQ(*back.trace->series.allocated[1], 5u);
  EXPECT_EQ(back.trace->series.device_used_delta[1], -1);
  EXPECT_FALSE(back.trace->marks[0].probed);
  EXPECT_FALSE(back.trace->recorded_reserved.has_value());
  EXPECT_EQ(to_json(back), j);

  j["trace"] = {{"events", 3}};  // every other field absent
  EXPECT_EQ(cell_from_json(j).trace->events, 3u);
  j.erase("trace");
  EXPECT_FALSE(cell_from_json(j).trace.has_value());
}

std::string error_reading(const std::string& content) {
  testing::TempDir dir;
  std::string path = dir.file("r.json");
  testing::write_text(path, content);
  try {
    read_run_file(path);
  } catch (const ResultsError& e) {
    return e.what();
  }
  return "";
}

TEST(Results, BadFilesAreOneLineErrorsNamingTheFile) {
  EXPECT_NE(error_reading("").find("r.json: empty file"), std::string::npos);
  EXPECT_NE(error_reading("{\"schema\": ").find("r.json: malformed JSON at byte"),
            std::string::npos);
  EXPECT_NE(error_reading(R"({"schema": "memrel.results/0", "context": {}, "cells": []})")
                .find("is not \"memrel.results/1\""),
            std::string::npos);
  std::string e = error_reading(
      R"({"schema": "memrel.results/1", "context": {}, "cells": [{"schema": "memrel.cell/1", "backend": "x"}]})");
  EXPECT_NE(e.find("r.json: cells[0]: cell record does not match"), std::string::npos) << e;
  EXPECT_NE(error_reading("").find("r.json"), std::string::npos);
  try {
    read_run_file("/nonexistent/r.json");
    ADD_FAILURE();
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/r.json: cannot open"), std::string::npos);
  }
}

// One list of statuses: the schema's enum (docs/schemas/results.schema.json) is the definition;
// the report's list is held to it in tests/python/test_formats.py.
TEST(Results, TheStatusesAreTheSchemasEnum) {
  nlohmann::json schema = nlohmann::json::parse(
      testing::read_text(std::string(MEMREL_SOURCE_DIR) + "/docs/schemas/results.schema.json"));
  EXPECT_EQ(schema["$defs"]["status"]["enum"], nlohmann::json(cell_statuses()));
}

TEST(Results, AStatusOutsideTheListIsRefusedNamingIt) {
  CellResult c;
  c.backend = "host-malloc";
  c.workload = "w";
  for (const auto& status : cell_statuses()) {
    c.status = status;
    EXPECT_EQ(cell_from_json(to_json(c)).status, status);
  }
  c.status = "exploded";
  try {
    cell_from_json(to_json(c));
    ADD_FAILURE() << "an unknown status was read";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("status: \"exploded\" is none of ok, oom,"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace memrel
