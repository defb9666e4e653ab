// The torch programs' names, read on both sides of the plugin boundary: the torch family (no
// libtorch) says which programs it runs, and the plugin's table (programs.cpp) runs them.
// Header-only on purpose, as variants.hpp is.
#pragma once

namespace memrel {

inline constexpr const char* kTorchProgramNames[] = {
    "linear-stack",
    "temp-then-delete",
    "to-host-then-delete",
    "seed-000",
};

}  // namespace memrel
