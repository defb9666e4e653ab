// Host memory: glibc's malloc, as a reference a CPU machine can run, in any configuration of its
// settings (host-malloc:KEY=VALUE,...), and null, memrel's own overhead.
#include <malloc.h>

#include <climits>

#include "allocators/availability.hpp"
#include "allocators/backend_family.hpp"
#include "allocators/host/host_backends.hpp"

namespace memrel {
namespace {

// glibc's malloc settings: each is a mallopt parameter in the cell, and a GLIBC_TUNABLES name for
// a program of the user's (glibc reads the tunables once, when the program starts).
struct GlibcSetting {
  BackendSetting setting;
  int mallopt_param;
  const char* tunable;
};

const std::vector<GlibcSetting>& glibc_settings() {
  using T = BackendSetting::Type;
  // mallopt takes an int: sizes stop at INT_MAX. The mmap threshold stops at glibc's
  // HEAP_MAX_SIZE / 2 on 64-bit machines (32 MiB), above which mallopt refuses it.
  static const std::vector<GlibcSetting> settings = {
      {{"arena_max",
        T::kInteger,
        1,
        1024,
        false,
        {},
        "",
        "mallopt(M_ARENA_MAX) in the cell; GLIBC_TUNABLES glibc.malloc.arena_max"},
       M_ARENA_MAX,
       "glibc.malloc.arena_max"},
      {{"mmap_max",
        T::kInteger,
        0,
        INT_MAX,
        false,
        {},
        "",
        "mallopt(M_MMAP_MAX): how many blocks may be mmapped (0: none)"},
       M_MMAP_MAX,
       "glibc.malloc.mmap_max"},
      {{"mmap_threshold",
        T::kBytes,
        0,
        32 << 20,
        false,
        {},
        "",
        "mallopt(M_MMAP_THRESHOLD): blocks from this size are mmapped (fixes it: no longer "
        "dynamic)"},
       M_MMAP_THRESHOLD,
       "glibc.malloc.mmap_threshold"},
      {{"top_pad",
        T::kBytes,
        0,
        INT_MAX,
        false,
        {},
        "",
        "mallopt(M_TOP_PAD): extra bytes asked of the kernel with each heap growth"},
       M_TOP_PAD,
       "glibc.malloc.top_pad"},
      {{"trim_threshold",
        T::kBytes,
        0,
        INT_MAX,
        false,
        {},
        "",
        "mallopt(M_TRIM_THRESHOLD): free heap top above this returns to the kernel at free"},
       M_TRIM_THRESHOLD,
       "glibc.malloc.trim_threshold"},
  };
  return settings;
}

// host-malloc-retain's settings: mmap and automatic trimming off, so that freed memory stays in
// the heap until release() (a cache, like a GPU caching allocator's).
const BackendSettings kRetainSettings = {
    {"mmap_max", "0"}, {"top_pad", "0"}, {"trim_threshold", "2147483647"}};

MalloptSettings mallopt_settings(const BackendSettings& settings) {
  MalloptSettings out;
  for (const GlibcSetting& g : glibc_settings()) {
    auto it = settings.find(g.setting.key);
    if (it != settings.end())
      out.emplace_back(g.mallopt_param, static_cast<int>(setting_number(it->second)));
  }
  return out;
}

std::string tunables_line(const BackendSettings& settings) {
  if (settings.empty()) return "(nothing to set: glibc's defaults)";
  std::string line = "GLIBC_TUNABLES=";
  bool first = true;
  for (const GlibcSetting& g : glibc_settings()) {
    auto it = settings.find(g.setting.key);
    if (it == settings.end()) continue;
    line += (first ? "" : ":") + std::string(g.tunable) + "=" +
            std::to_string(setting_number(it->second));
    first = false;
  }
  return line;
}

class HostFamily : public BackendFamily {
 public:
  std::string name() const override { return "host"; }

  std::vector<BackendInfo> backends() const override {
    const std::string family = name();
    BackendInfo malloc_default = {"host-malloc",
                                  family,
                                  "glibc malloc/free, default settings",
                                  "malloc_trim(0)",
                                  MemorySpace::kHost,
                                  {},
                                  host_backend_availability,
                                  [] { return make_host_malloc({}); }};
    malloc_default.apply_line = tunables_line({});
    BackendInfo retain = configure(malloc_default, kRetainSettings);
    retain.name = "host-malloc-retain";
    retain.description = "glibc malloc with mmap and auto-trim off (caches like a GPU allocator)";
    return {
        malloc_default,
        retain,
        {"null",
         family,
         "addresses in one preallocated block; measures memrel's own overhead",
         "nothing: a no-op",
         MemorySpace::kHost,
         {},
         host_backend_availability,
         make_null},
    };
  }

  std::vector<BackendSetting> settings(const std::string& root) const override {
    if (root != "host-malloc") return {};
    std::vector<BackendSetting> out;
    for (const GlibcSetting& g : glibc_settings()) out.push_back(g.setting);
    return out;
  }

  BackendInfo configure(const BackendInfo& root, const BackendSettings& settings) const override {
    BackendInfo b = root;
    b.name = backend_spec_name(root.name, settings);
    b.description = "glibc malloc/free, " + backend_spec_name("", settings).substr(1);
    b.settings = settings;
    b.settings_root = root.name;
    b.apply_line = tunables_line(settings);
    MalloptSettings mallopts = mallopt_settings(settings);
    b.make = [mallopts] { return make_host_malloc(mallopts); };
    return b;
  }
};

}  // namespace

const BackendFamily& host_family() {
  static const HostFamily family;
  return family;
}

}  // namespace memrel
