// PyTorch's CUDA caching allocator in the configurations of variants.hpp, and the torch programs
// (real LibTorch work) on any device backend. LibTorch itself is only ever loaded in a cell, by
// the plugin (plugin_loader.hpp).
#include "allocators/backend_family.hpp"
#include "allocators/torch/plugin_loader.hpp"
#include "allocators/torch/program_names.hpp"
#include "allocators/torch/variants.hpp"

namespace memrel {
namespace {

class TorchFamily : public BackendFamily {
 public:
  std::string name() const override { return "torch"; }

  // A row per variant: its allocator settings go into the cell's environment, since PyTorch
  // reads them when its library loads.
  std::vector<BackendInfo> backends() const override {
    std::vector<BackendInfo> rows;
    for (const TorchVariant& v : kTorchVariants) {
      std::map<std::string, std::string> env;
      if (*v.alloc_conf != '\0') {
        env["PYTORCH_ALLOC_CONF"] = v.alloc_conf;
        env["PYTORCH_CUDA_ALLOC_CONF"] = v.alloc_conf;
      }
      std::string backend = v.name;
      BackendInfo row{backend,
                      name(),
                      v.description,
                      v.release,
                      MemorySpace::kDevice,
                      env,
                      torch_backend_availability,
                      [backend] { return make_torch_allocator(backend); }};
      // LibTorch (0.44 s a cell on the H200) loads once per zygote, with the variant's settings
      // already in the zygote's environment: PyTorch reads them when its library loads.
      row.preload = preload_torch_plugin;
      rows.push_back(std::move(row));
    }
    return rows;
  }

  std::vector<std::string> programs() const override {
    return {std::begin(kTorchProgramNames), std::end(kTorchProgramNames)};
  }

  // On torch's own caching allocator in a torch cell; over the cell's backend through PyTorch's
  // pluggable-allocator interface in any other device cell; host backends cannot hold CUDA
  // tensors.
  ProgramPlacement program_placement(const BackendInfo& backend,
                                     const std::string& program) const override {
    if (backend.family == name()) {
      const TorchVariant* v = find_torch_variant(backend.name);
      return {name(), v ? v->allocator_name : "native", name()};
    }
    if (backend.space != MemorySpace::kDevice) {
      throw BackendUnavailable("torch program '" + program +
                               "' makes CUDA tensors, which a host backend cannot hold");
    }
    return {name(), "pluggable", "backend"};
  }

  void run_program(const BackendInfo& backend, Allocator& allocator, const std::string& program,
                   const std::string& args_json, ProgramContext& context) const override {
    if (backend.family == name()) {
      run_torch_program_native(allocator, program, args_json, context);
      return;
    }
    try {
      run_torch_program_on(allocator, program, args_json, context);
    } catch (const BackendUnavailable& e) {
      throw BackendUnavailable("torch program '" + program + "' over " + backend.name +
                               " needs LibTorch: " + e.what());
    }
  }

  std::uint64_t library_load_ns() const override { return torch_plugin_load_ns(); }

  std::map<std::string, std::string> loaded_runtime_versions() const override {
    if (auto version = loaded_torch_version()) return {{"torch", *version}};
    return {};
  }
};

}  // namespace

const BackendFamily& torch_family() {
  static const TorchFamily family;
  return family;
}

}  // namespace memrel
