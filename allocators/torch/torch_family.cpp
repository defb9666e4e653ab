// PyTorch's CUDA caching allocator in the configurations of variants.hpp and any
// torch-native:KEY=VALUE,... (its settings declared here), and the torch programs
// (real LibTorch work) on any device backend. LibTorch itself is only ever loaded in a cell, by
// the plugin (plugin_loader.hpp).
#include <stdexcept>

#include "allocators/backend_family.hpp"
#include "allocators/torch/plugin_loader.hpp"
#include "allocators/torch/program_names.hpp"
#include "allocators/torch/variants.hpp"

namespace memrel {
namespace {

// PyTorch's allocator settings (PYTORCH_ALLOC_CONF), as torch 2.11 checks them
// (c10/core/AllocatorConfig.cpp, c10/cuda/CUDAAllocatorConfig.cpp), each read when the library
// loads: so a configuration is the cell's environment.
std::vector<BackendSetting> torch_settings() {
  using T = BackendSetting::Type;
  const char* env = "PYTORCH_ALLOC_CONF and PYTORCH_CUDA_ALLOC_CONF in the cell's environment";
  return {
      {"backend", T::kChoice, 0, 0, false, {"native", "cudaMallocAsync"}, "native", env},
      {"expandable_segments", T::kBool, 0, 0, false, {}, "False", env},
      // PyTorch requires 0 < threshold < 1; it acts only with a memory fraction (variants.hpp).
      {"garbage_collection_threshold", T::kFraction, 0, 0.999999, false, {}, "", env},
      // PyTorch refuses 20 MiB and less ("max_split_size_mb too small").
      {"max_split_size_mb", T::kInteger, 21, 1 << 30, false, {}, "", env},
      {"per_process_memory_fraction", T::kFraction, 0, 1, false, {}, "1", env},
      {"roundup_power2_divisions", T::kInteger, 1, 64, true, {}, "", env},
  };
}

std::map<std::string, std::string> configuration_environment(const TorchConfiguration& c) {
  std::map<std::string, std::string> env;
  if (!c.alloc_conf.empty()) {
    env["PYTORCH_ALLOC_CONF"] = c.alloc_conf;
    env["PYTORCH_CUDA_ALLOC_CONF"] = c.alloc_conf;
  }
  return env;
}

std::string apply_line(const TorchConfiguration& c) {
  return c.alloc_conf.empty() ? "(nothing to set: PyTorch's defaults)"
                              : "PYTORCH_CUDA_ALLOC_CONF=" + c.alloc_conf;
}

class TorchFamily : public BackendFamily {
 public:
  std::string name() const override { return "torch"; }

  // A row per variant: its allocator settings go into the cell's environment, since PyTorch
  // reads them when its library loads.
  std::vector<BackendInfo> backends() const override {
    std::vector<BackendInfo> rows;
    for (const TorchVariant& v : kTorchVariants) {
      TorchConfiguration c = *find_torch_configuration(v.name);
      std::string backend = v.name;
      rows.push_back({backend, name(), v.description, v.release, MemorySpace::kDevice,
                      configuration_environment(c), torch_backend_availability,
                      [backend] { return make_torch_allocator(backend); }});
      rows.back().settings = torch_settings_from_text(v.settings);
      if (backend != kTorchRoot) rows.back().settings_root = kTorchRoot;
      rows.back().apply_line = apply_line(c);
      // LibTorch (0.44 s a cell on the H200) loads once per zygote, with the variant's settings
      // already in the zygote's environment: PyTorch reads them when its library loads.
      rows.back().preload = preload_torch_plugin;
    }
    return rows;
  }

  std::vector<BackendSetting> settings(const std::string& root) const override {
    return root == kTorchRoot ? torch_settings() : std::vector<BackendSetting>{};
  }

  BackendInfo configure(const BackendInfo& root, const BackendSettings& settings) const override {
    if (settings.count("backend")) {
      // cudaMallocAsync is the driver's pool: PyTorch ignores the caching allocator's settings
      // there (with a warning), so the configuration would not be what its name says.
      for (const auto& [key, value] : settings) {
        if (key != "backend")
          throw std::invalid_argument("backend=cudaMallocAsync ignores " + key +
                                      " (the caching allocator's setting)");
      }
    }
    if (settings.count("garbage_collection_threshold") &&
        !settings.count("per_process_memory_fraction"))
      throw std::invalid_argument(
          "garbage_collection_threshold does nothing without per_process_memory_fraction (torch "
          "2.11 collects only under a memory limit)");
    const std::string backend = backend_spec_name(root.name, settings);
    TorchConfiguration c = torch_configuration(backend, settings);
    BackendInfo b = root;
    b.name = backend;
    b.description = "PyTorch caching allocator, " + c.alloc_conf;
    b.release = settings.count("backend") ? "emptyCache, which trims the pool" : root.release;
    b.cell_environment = configuration_environment(c);
    b.make = [backend] { return make_torch_allocator(backend); };
    b.settings = settings;
    b.settings_root = root.name;
    b.apply_line = apply_line(c);
    return b;
  }

  // A PyTorch snapshot records its allocator's settings (torch.cuda.memory._snapshot()'s
  // allocator_settings, kept in the trace's provenance by `memrel trace import`).
  std::optional<std::string> recorded_backend(const std::string& source_format,
                                              const nlohmann::json& provenance) const override {
    if (source_format != "torch-snapshot") return std::nullopt;
    const nlohmann::json* recorded = nullptr;
    if (provenance.is_object() && provenance.contains("allocator_settings"))
      recorded = &provenance["allocator_settings"];
    if (recorded == nullptr || !recorded->is_object()) return std::string(kTorchRoot);
    if (recorded->contains("PYTORCH_CUDA_ALLOC_CONF") &&
        !(*recorded)["PYTORCH_CUDA_ALLOC_CONF"].is_string())
      throw std::invalid_argument("allocator_settings.PYTORCH_CUDA_ALLOC_CONF is " +
                                  std::string((*recorded)["PYTORCH_CUDA_ALLOC_CONF"].type_name()) +
                                  ", not text");
    std::string conf = recorded->value("PYTORCH_CUDA_ALLOC_CONF", std::string());
    if (conf.empty() && recorded->value("expandable_segments", false))
      conf = "expandable_segments:True";
    if (conf.empty()) return std::string(kTorchRoot);
    // KEY:VALUE,... as the user set it, into this family's KEY=VALUE,...
    std::string spec = std::string(kTorchRoot) + ":";
    for (char ch : conf) spec += ch == ':' ? '=' : ch;
    return spec;
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
      std::optional<TorchConfiguration> c = find_torch_configuration(backend.name);
      return {name(), c ? c->allocator_name : "native", name()};
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

  // Any torch program runs through the plugin (with the cell's allocator plugged in at run time):
  // loading it is the same for every program.
  void preload_program(const std::string& program) const override {
    (void)program;
    preload_torch_plugin();
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
