// The backends of one `bench` or `ab`, each claiming the file its benchmarks go to
// (bench-NAME.json, bench_file_name): two backends whose files are one, or differ only by case
// (collide on a case-insensitive file system, or in a zip of the folder), are refused before any
// work. The same backend twice, by name and by path, or two configurations whose file names
// sanitise alike ran twice into one file, the second over the first, exit 0 (the thirteenth
// adversarial pass, c6-ab-same-backend-twice, c6-ab-safe-name-collision,
// c6-bench-case-only-backends).
#pragma once

#include <map>
#include <string>

namespace memrel::cli {

class BenchFileClaims {
 public:
  // Claims the file of the backend named `name`, given on the command line as `given`; throws
  // std::invalid_argument ("-b GIVEN: ...") when another backend claimed it.
  void claim(const std::string& given, const std::string& name);

 private:
  struct Claim {
    std::string given, file;
  };
  std::map<std::string, Claim> by_folded_file_;  // the file name, ASCII letters folded
};

}  // namespace memrel::cli
