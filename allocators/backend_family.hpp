// A backend family: the backends of one library (CUDA's runtime, glibc, RMM, LibTorch, a user's
// shared library named by a backend file) and everything memrel knows about that library: which
// backends it offers, whether they can run here, the environment their process needs, the
// framework programs it runs and the versions of the runtimes it loaded.
//
// The harness and the results model never name a family: they ask the families through this
// interface (allocators/backend_families.hpp lists them). Adding a family is one folder under
// allocators/ (a class implementing this in <family>_family.cpp, its CMakeLists.txt), its
// add_subdirectory in allocators/CMakeLists.txt and its entry in backend_families.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "allocators/allocator.hpp"
#include "allocators/backend_settings.hpp"
#include "allocators/framework_program.hpp"

namespace memrel {

struct Availability {
  bool available = false;
  std::string reason;  // why not, when unavailable
};

const char* memory_space_name(MemorySpace space);

// One backend as the runner, the cells and `memrel list` see it.
struct BackendInfo {
  std::string name;
  std::string family;       // the family's name (BackendFamily::name), e.g. "cuda", "torch"
  std::string description;  // what it wraps, one line
  std::string release;      // what release() does for it, one line
  MemorySpace space = MemorySpace::kDevice;
  // Environment the cell process must start with, because the allocator reads it once when its
  // library loads (PyTorch's allocator settings). The runner sets these before exec.
  std::map<std::string, std::string> cell_environment;
  // Checked in the parent process, which must not create a CUDA context: looks for a driver and
  // a device through NVML, never through the CUDA runtime.
  std::function<Availability()> availability;
  // Called inside the cell process only.
  std::function<std::unique_ptr<Allocator>()> make;
  // The backend file it comes from; empty for compiled backends.
  std::string file = "";
  // The files a cell of it reads (a backend file and the library it names): a run's output must
  // be none of them (docs/inputs.md, "Outputs").
  std::vector<std::string> input_files = {};
  // Loads what make() would load and resolves its symbols without making an allocator, in a
  // child process before any cell (`memrel cell --check`): throws one line naming the file when
  // it cannot. Empty when there is nothing to check ahead (compiled backends).
  std::function<void()> check_loadable = nullptr;
  // Loads, in a zygote (harness/execution/zygote.hpp), the libraries a cell of this backend
  // would load in make(), so that the cells forked from it find them loaded. Must create no
  // CUDA context and start no thread: the zygote forks afterwards. Never throws: a library
  // that does not load is the cell's to report, as without a zygote. Empty: nothing to load.
  std::function<void()> preload = nullptr;
  // Its settings, canonical (allocators/backend_settings.hpp): recorded in every cell's results.
  // Empty for a backend that runs its library's defaults.
  BackendSettings settings = {};
  // The backend these settings configure (`torch-native` for torch-expandable); empty: itself.
  std::string settings_root = "";
  // What a program of the user's sets to run this configuration, one line (an environment
  // assignment where the library reads one): what `memrel advise` recommends.
  std::string apply_line = "";
};

// A backend file of the backends folder as a family read it.
struct BackendFileEntry {
  std::string file;
  std::string family;                  // the family that reads it
  std::optional<BackendInfo> backend;  // empty when the file is invalid
  std::string error;                   // one line naming the file and the key, when invalid
};

class BackendFamily {
 public:
  virtual ~BackendFamily() = default;

  virtual std::string name() const = 0;

  // The backends compiled into memrel, in the order `memrel list` shows them.
  virtual std::vector<BackendInfo> backends() const = 0;

  // A backend this family makes from something other than its compiled names: a backend file
  // named by `name_or_file` (a name of a file in `backends_dir`, or a path). Empty: not this
  // family's. Throws (one line naming the file and the key) for a file of its that is invalid.
  virtual std::optional<BackendInfo> resolve(const std::string& name_or_file,
                                             const std::string& backends_dir) const {
    (void)name_or_file;
    (void)backends_dir;
    return std::nullopt;
  }

  // Every backend file of `backends_dir` that this family reads, valid or not.
  virtual std::vector<BackendFileEntry> backend_files(const std::string& backends_dir) const {
    (void)backends_dir;
    return {};
  }

  // The settings `root` (one of backends(), a settings_root) takes, as `NAME:KEY=VALUE,...`
  // (allocators/backend_settings.hpp). Empty: it takes none.
  virtual std::vector<BackendSetting> settings(const std::string& root) const {
    (void)root;
    return {};
  }

  // `root` configured with `settings` (canonical, each valid, defaults dropped, never empty): the
  // backend named `backend_spec_name(root.name, settings)`. Throws std::invalid_argument, one
  // line, for settings that are valid alone but not together.
  virtual BackendInfo configure(const BackendInfo& root, const BackendSettings& settings) const;

  // The backend (a name or `NAME:KEY=VALUE,...`) that ran the recorded program, from a trace's
  // provenance (the snapshot's allocator_settings) and its source format; empty: not this
  // family's recording, or nothing recorded.
  virtual std::optional<std::string> recorded_backend(const std::string& source_format,
                                                      const nlohmann::json& provenance) const {
    (void)source_format;
    (void)provenance;
    return std::nullopt;
  }

  // The framework programs this family runs (workload steps {"program": NAME}).
  virtual std::vector<std::string> programs() const { return {}; }

  // Which allocator layer one of programs() would take its memory from in a cell of `backend`
  // (of any family). Throws BackendUnavailable where that backend cannot serve the framework
  // (a host backend and CUDA tensors).
  virtual ProgramPlacement program_placement(const BackendInfo& backend,
                                             const std::string& program) const;

  // Runs one of programs() in a cell of `backend`, its memory coming from `allocator`, the
  // cell's. Throws BackendUnavailable where the framework cannot be loaded.
  virtual void run_program(const BackendInfo& backend, Allocator& allocator,
                           const std::string& program, const std::string& args_json,
                           ProgramContext& context) const;

  // Loads what one of programs() needs before any cell of a backend of another family runs it
  // (a zygote serving such cells: LibTorch, for a torch program over cuda-malloc); no context,
  // no allocator made. Throws where it cannot load: the zygote refuses and its cells exec.
  virtual void preload_program(const std::string& program) const { (void)program; }

  // The versions of the runtimes this family has loaded in this process (a cell process, after
  // make()), e.g. {"torch": "2.11.0"}, for the machine fingerprint. Never loads anything.
  virtual std::map<std::string, std::string> loaded_runtime_versions() const { return {}; }

  // The time this process has spent loading this family's own libraries at run time (dlopen of
  // a framework, with its static initialisation); 0 for libraries linked into memrel, which
  // load with the process. Already loaded by a zygote (preload), they cost a cell nothing.
  virtual std::uint64_t library_load_ns() const { return 0; }
};

}  // namespace memrel
