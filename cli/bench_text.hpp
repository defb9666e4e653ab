// Text memrel hands memrel_bench to write back: its filter and its output's path go into the JSON
// it writes (the context, Google Benchmark's own), and Google Benchmark's JSON writer leaves a
// control character raw, making a file no JSON reader takes; memrel then said "cut off at byte
// N ... (a full disk?)", exit 4 (the sixteenth adversarial pass, c9-*-control-char-exit4).
// Refused where the command line reads it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace memrel::cli {

inline CLI::Validator no_control_characters() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        for (const char c : text) {
          const auto byte = static_cast<unsigned char>(c);
          if (byte < 0x20 || byte == 0x7F) {
            char code[8];
            std::snprintf(code, sizeof code, "\\x%02x", byte);
            return std::string("holds the control character ") + code +
                   ", which memrel_bench's JSON cannot hold";
          }
        }
        return "";
      },
      "TEXT");
}

}  // namespace memrel::cli
