// The Allocator over a user's shared library (pluggable_allocator.hpp): dlopen in the cell,
// dlsym of the symbols the backend file names, and the calls memrel makes with them.
//
// Calls: alloc(size, 0, nullptr) and free(ptr, size, 0, nullptr): device 0, the device the cell
// probes, and the null stream, i.e. CUDA's legacy default stream, which orders itself against
// every other blocking stream, so a library that frees in stream order sees memrel's fills and
// probes in order without memrel creating a stream of its own.
// Release: the library's release(0) if it exports one, else nothing (the backend's release line
// says so). Usage: allocated(0) and reserved(0) where exported, else empty.
// Synchronize: the library's synchronize(0) if exported; else, for device memory,
// cudaDeviceSynchronize, so that stream-ordered frees are visible before a probe.
#include "allocators/pluggable/pluggable_allocator.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <new>

#include "allocators/availability.hpp"

#ifdef MEMREL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "platform/cuda_error.hpp"
#endif

namespace memrel {
namespace {

constexpr int kDevice = 0;

template <typename Fn>
Fn resolve(void* handle, const BackendFile& b, const std::string& symbol,
           const std::string& loaded_path) {
  if (symbol.empty()) return nullptr;
  dlerror();
  void* address = dlsym(handle, symbol.c_str());
  if (address == nullptr) {
    throw BackendFileError(b.file, "", "symbol \"" + symbol + "\" not found in " + loaded_path);
  }
  return reinterpret_cast<Fn>(address);
}

class PluggableAllocator : public Allocator {
 public:
  explicit PluggableAllocator(const BackendFile& backend)
      : backend_(backend), fn_(load_pluggable_library(backend)) {}
  // Let go of at the end of a cell as an RMM pool is, whose destructor returns what it cached:
  // the library's release(0), after every figure was taken. Without it the example's cache of a
  // del-without-release cell (360 MiB) outlived the process, a leak to compute-sanitizer.
  ~PluggableAllocator() override {
    try {
      release();
    } catch (...) {  // a C++ library's exception at the end changes no figure: not thrown on
    }
  }

  void* allocate(std::size_t bytes) override {
    void* p = nullptr;
    try {
      p = fn_.alloc(static_cast<ssize_t>(bytes), kDevice, nullptr);
    } catch (const std::bad_alloc& e) {
      // C++ libraries behind the C interface throw rather than return NULL: RMM's own torch
      // allocator throws rmm::out_of_memory (a std::bad_alloc), as PyTorch lets it (seen on
      // the H200 with a 1 PiB request; the conformance suite, tests/allocators).
      throw OutOfMemory(bytes, backend_.alloc + " threw: " + e.what());
    }
    if (p == nullptr) throw OutOfMemory(bytes, backend_.alloc + " returned NULL");
    return p;
  }
  void deallocate(void* p, std::size_t bytes) override {
    fn_.free(p, static_cast<ssize_t>(bytes), kDevice, nullptr);
  }
  void release() override {
    if (fn_.release != nullptr) fn_.release(kDevice);
  }
  void synchronize() override {
    if (fn_.synchronize != nullptr) {
      fn_.synchronize(kDevice);
      return;
    }
#ifdef MEMREL_HAVE_CUDA
    if (backend_.space == MemorySpace::kDevice)
      check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#endif
  }
  void fill(void* p, std::size_t bytes) override {
    if (backend_.space == MemorySpace::kHost) {
      std::memset(p, 0x5a, bytes);
      return;
    }
#ifdef MEMREL_HAVE_CUDA
    check_cuda(cudaMemset(p, 0x5a, bytes), "cudaMemset");
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#else
    (void)p;
    throw BackendUnavailable(
        "memrel was built without the CUDA toolkit: cannot fill device memory");
#endif
  }
  Usage usage() const override {
    Usage u;
    if (fn_.allocated != nullptr) u.allocated = fn_.allocated(kDevice);
    if (fn_.reserved != nullptr) u.reserved = fn_.reserved(kDevice);
    return u;
  }
  MemorySpace space() const override { return backend_.space; }

 private:
  BackendFile backend_;
  PluggableSymbols fn_;
};

std::string release_line(const BackendFile& b) {
  if (b.release.empty()) return "none exported: a no-op";
  if (!b.release_note.empty()) return b.release_note;
  return b.release + "(0)";
}

}  // namespace

PluggableSymbols load_pluggable_library(const BackendFile& b) {
  // RTLD_LOCAL: the library's symbols stay out of the global namespace. Never unloaded: its
  // code and its static state back the allocator for the rest of the process.
  void* handle = dlopen(b.library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    throw BackendFileError(
        b.file, "library",
        "cannot load " + b.library_path + " (" + (err ? err : "unknown dlopen error") + ")");
  }
  PluggableSymbols s;
  s.loaded_path = b.library_path;
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
      *map->l_name != '\0') {
    s.loaded_path = map->l_name;
  }
  s.alloc = resolve<PluggableAllocFn>(handle, b, b.alloc, s.loaded_path);
  s.free = resolve<PluggableFreeFn>(handle, b, b.free, s.loaded_path);
  s.release = resolve<PluggableReleaseFn>(handle, b, b.release, s.loaded_path);
  s.allocated = resolve<PluggableBytesFn>(handle, b, b.allocated, s.loaded_path);
  s.reserved = resolve<PluggableBytesFn>(handle, b, b.reserved, s.loaded_path);
  s.synchronize = resolve<PluggableSynchronizeFn>(handle, b, b.synchronize, s.loaded_path);
  return s;
}

std::unique_ptr<Allocator> make_pluggable_allocator(const BackendFile& backend) {
  return std::make_unique<PluggableAllocator>(backend);
}

BackendInfo pluggable_backend(const BackendFile& b, const std::string& family) {
  auto availability = [b]() -> Availability {
    if (b.space == MemorySpace::kDevice) {
      Availability device = device_backend_availability();
      if (!device.available) return device;
    }
    std::string missing = library_not_found_reason(b);
    if (!missing.empty()) return {false, missing};
    return {true, ""};
  };
  BackendInfo info{
      b.name,  family,        b.description, release_line(b),
      b.space, b.environment, availability,  [b] { return make_pluggable_allocator(b); }};
  info.file = b.file;
  info.input_files = {b.file};
  // A bare name found through LD_LIBRARY_PATH or a system folder is an input too: left out, a
  // --resume or merge took cells of another (or a rebuilt) library of that name (the
  // twenty-fourth adversarial pass, c5-resume-*-bare-name-library).
  if (std::string found = library_file_found(b); !found.empty()) info.input_files.push_back(found);
  info.check_loadable = [b] { load_pluggable_library(b); };
  return info;
}

}  // namespace memrel
