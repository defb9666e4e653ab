#include "platform/run_context.hpp"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "platform/build_identity.hpp"
#include "platform/install_layout.hpp"
#include "platform/machine_fingerprint.hpp"
#include "platform/nvml.hpp"
#include "platform/one_line_text.hpp"
#include "platform/program_question.hpp"

#ifdef MEMREL_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace memrel {
namespace {

// How long git may take to answer: a checkout on a hung network file system (or a `git` that
// never answers) held a run, SIGTERM or not, for as long as git liked (the twenty-fourth
// adversarial pass, c8-git-hangs-run-hangs).
constexpr auto kGitAnswerTime = std::chrono::seconds(20);

// What `git --no-optional-locks -C SOURCE ARGS...` prints, "" when it cannot say. Asked as any
// other program memrel asks (platform/program_question): an argv and no shell (popen ran a
// checkout folder's name holding a quote as shell code), git found on PATH's absolute entries only
// (./git of the working folder ran), none of our GIT_* variables (GIT_DIR named another
// repository's commit as memrel's), ended with us, on our stop request and after a while (all the
// twenty-fourth adversarial pass). --no-optional-locks: status refreshes the index and writes it
// back under index.lock when it may; a run killed with its process group mid-write left that lock
// in the checkout, and the developer's next `git commit` failed ("index.lock: File exists": the
// twentieth pass).
std::string git_output(const std::string& source, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "--no-optional-locks", "-C", source};
  argv.insert(argv.end(), args.begin(), args.end());
  ProgramAnswer answer = ask_program(argv, true, kGitAnswerTime, {"GIT_"});
  if (!answer.ended || !WIFEXITED(answer.status) || WEXITSTATUS(answer.status) != 0) return "";
  std::string& text = answer.printed;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

std::string utc_now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

bool starts_with_a_date(const std::string& text) {
  auto digits = [&text](std::size_t from, std::size_t count) {
    for (std::size_t i = from; i < from + count; ++i)
      if (i >= text.size() || text[i] < '0' || text[i] > '9') return false;
    return true;
  };
  if (!digits(0, 4) || text.size() < 10 || text[4] != '-' || !digits(5, 2) || text[7] != '-' ||
      !digits(8, 2))
    return false;
  const int month = (text[5] - '0') * 10 + (text[6] - '0');
  const int day = (text[8] - '0') * 10 + (text[9] - '0');
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 &&
         (text.size() == 10 || text[10] == 'T' || text[10] == ' ');
}

std::string given_commit_problem() {
  const char* given = std::getenv("MEMREL_GIT_COMMIT");
  if (given == nullptr) return "";
  const std::string commit = given;
  if (commit.empty()) return "is empty; unset it or name the commit";
  if (commit.size() > 200)
    return "is " + std::to_string(commit.size()) +
           " bytes; a commit's name "
           "is at most 200";
  if (one_line_text(commit) != commit || commit.find('"') != std::string::npos)
    return "'" + one_line_text(commit) +
           "' holds a control character, a quote or bytes that "
           "are not UTF-8; name the commit";
  return "";
}

nlohmann::json run_context() {
  nlohmann::json c;
  c["started"] = utc_now_iso8601();
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  c["host"] = host;
  struct utsname u {};
  uname(&u);
  c["kernel"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  const MachineFingerprint fingerprint = machine_fingerprint(0);
  c["cpu"] = fingerprint.cpu_model;
  c["cpu_count"] = sysconf(_SC_NPROCESSORS_ONLN);
  c["memrel_version"] = memrel_version();
  // A source tree copied without .git (as to a lent GPU machine) names its commit this way.
  const char* given_commit = std::getenv("MEMREL_GIT_COMMIT");
  const std::string source = install_layout().source_dir;
  std::string commit;
  bool dirty = false;
  if (!source.empty()) {
    // A build tree: its checkout now, which a build after each commit keeps equal to the binary.
    commit = given_commit != nullptr ? given_commit : git_output(source, {"rev-parse", "HEAD"});
    // An object name (SHA-1 or SHA-256) or nothing: a git wrapper's escape sequences and lines
    // were recorded as the commit (the twenty-fourth adversarial pass, c8-git-*).
    if (given_commit == nullptr &&
        ((commit.size() != 40 && commit.size() != 64) ||
         commit.find_first_not_of("0123456789abcdef") != std::string::npos))
      commit.clear();
    dirty = !git_output(source, {"status", "--porcelain", "--untracked-files=no"}).empty();
  } else if (given_commit != nullptr) {
    commit = given_commit;
  } else {
    // Installed: no checkout to ask (and none to trust); the commit fixed when it was built.
    commit = memrel_build_commit();
    const std::string suffix = "-dirty";
    if (commit.size() > suffix.size() &&
        commit.compare(commit.size() - suffix.size(), suffix.size(), suffix) == 0) {
      commit.resize(commit.size() - suffix.size());
      dirty = true;
    }
    if (commit == "unknown") commit.clear();
  }
  c["git_commit"] = commit.empty() ? nlohmann::json() : nlohmann::json(commit);
  c["git_dirty"] = dirty;
  nvml::Loaded nvml = nvml::query_system();
  if (nvml.system) {
    c["driver_version"] = nvml.system->driver_version;
    c["cuda_driver_version"] = nvml.system->cuda_driver_version;
    c["gpus"] = nlohmann::json::array();
    for (const auto& g : nvml.system->gpus) {
      c["gpus"].push_back({{"name", g.name}, {"uuid", g.uuid}, {"total_bytes", g.total_bytes}});
    }
    c["gpu"] =
        nvml.system->gpus.empty() ? nlohmann::json() : nlohmann::json(nvml.system->gpus[0].name);
  } else {
    c["gpu"] = nullptr;
    c["gpus"] = nlohmann::json::array();
    c["gpu_note"] = nvml.error;
  }
#ifdef MEMREL_HAVE_CUDA
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);  // a constant of the linked runtime: creates no context
  c["cuda_runtime_version"] = runtime;
#else
  c["cuda_runtime_version"] = nullptr;
#endif
  // What a latency figure depends on besides the code (docs/results-schema.md): the gate judges
  // latency only between runs with equal fingerprints.
  c["fingerprint"] = to_json(fingerprint);
  return c;
}

}  // namespace memrel
