#include "platform/input_rules.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <future>

#include "test_support.hpp"

namespace memrel {
namespace {

using memrel::testing::TempDir;
using memrel::testing::write_text;

// The InputError's text, or "" when the call returned.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(InputRules, AFifoIsRefusedWithoutWaitingForAWriter) {
  TempDir dir;
  const std::string fifo = dir.file("w.json");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto reading = std::async(std::launch::async, [&] {
    return error_of([&] { read_input_text(fifo, 1 << 20, "workload"); });
  });
  if (reading.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    int unblock = ::open(fifo.c_str(), O_RDWR);  // lets the blocked open return, then fail
    reading.wait();
    ::close(unblock);
    FAIL() << "opening a FIFO blocked: inputs must be opened without blocking";
  }
  EXPECT_EQ(reading.get(),
            fifo + ": a FIFO, not a regular file: a workload must be a regular file");
}

TEST(InputRules, DevicesAndDirectoriesAreRefusedBeforeAByteIsRead) {
  EXPECT_EQ(error_of([] { read_input_text("/dev/zero", 1 << 20, "results file"); }),
            "/dev/zero: a character device, not a regular file: a results file must be a regular "
            "file");
  TempDir dir;
  EXPECT_NE(error_of([&] {
              read_input_text(dir.path().string(), 1 << 20, "trace");
            }).find("a folder, not a regular file"),
            std::string::npos);
}

TEST(InputRules, AFileOverItsCapIsRefusedByItsSize) {
  TempDir dir;
  const std::string big = dir.file("big.json");
  write_text(big, "");
  ASSERT_EQ(truncate(big.c_str(), 100 << 20), 0);  // sparse: 100 MiB that cost nothing
  EXPECT_EQ(error_of([&] { read_input_text(big, 4 << 20, "workload"); }),
            big + ": 104857600 bytes, more than the 4 MiB a workload may have (docs/inputs.md)");
  write_text(big, "");
  EXPECT_EQ(error_of([&] { read_input_text(big, 4 << 20, "workload"); }), big + ": empty file");
  EXPECT_NE(error_of([&] {
              read_input_text(dir.file("absent"), 4 << 20, "workload");
            }).find("cannot open workload (No such file"),
            std::string::npos);
}

TEST(InputRules, AKeyTwiceInOneObjectIsRefusedAtItsPlace) {
  EXPECT_EQ(error_of([] { parse_input_json(R"({"a": {"b": [1, {"c": 1, "c": 2}]}})", "f.json"); }),
            "f.json: /a/b/1: key \"c\" appears twice in one object: ambiguous, refused");
  EXPECT_EQ(error_of([] { parse_input_json(R"({"x": 1, "x": 1})", "f.json"); }),
            "f.json: /: key \"x\" appears twice in one object: ambiguous, refused");
  EXPECT_EQ(error_of([] { parse_input_json(R"({"a/b": {"k~": {"z": 0, "z": 0}}})", "f.json"); }),
            "f.json: /a~1b/k~0: key \"z\" appears twice in one object: ambiguous, refused");
  // The same key in two objects is not ambiguous.
  EXPECT_EQ(parse_input_json(R"([{"a": 1}, {"a": 2}, {"b": {"a": 3}}])", "f.json")[2]["b"]["a"], 3);
}

// 100,000 levels crashed every reader of a workload or grid (SIGSEGV, the fifth adversarial pass).
TEST(InputRules, NestingDeeperThanTheLimitIsRefused) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(error_of([&] { parse_input_json(deep, "f.json"); }),
            "f.json: nested deeper than 512 levels");
  const std::string within = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(parse_input_json(within, "f.json").is_array());
}

TEST(InputRules, ANumberNoDoubleHoldsIsAnInputErrorAtItsPlace) {
  std::string e =
      error_of([] { parse_input_json(R"({"cells": [0, {"wall_ns": 1e400}]})", "r.json"); });
  EXPECT_EQ(e.rfind("r.json: /cells/1/wall_ns: ", 0), 0u) << e;
  EXPECT_NE(e.find("1e400"), std::string::npos) << e;
  e = error_of([] { parse_input_json("[1, 2, -1e999]", "r.json"); });
  EXPECT_EQ(e.rfind("r.json: /2: ", 0), 0u) << e;
}

TEST(InputRules, MalformedJsonNamesTheByte) {
  std::string e = error_of([] { parse_input_json("{\"a\": ", "f.json"); });
  EXPECT_EQ(e.rfind("f.json: malformed JSON at byte 7", 0), 0u) << e;
}

}  // namespace
}  // namespace memrel
