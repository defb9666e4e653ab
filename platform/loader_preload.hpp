// What the dynamic loader (glibc's ld.so) does with a library it is told to preload (LD_PRELOAD,
// LD_AUDIT) and cannot load: it skips it, warns on the started program's standard error, and runs
// the program without it. A mistyped preload in a backend file or an `ab` side measured the
// allocator it was meant to replace, recorded as applied, and `ab` passed (the seventy-second
// adversarial pass, c8-backend-file-ld-preload-missing-run-ok,
// c8-ab-candidate-env-ld-preload-missing-passes). memrel asks the loader itself, with the same
// environment, rather than guessing its search (a bare name is looked for as it looks for it).
#pragma once

#include <map>
#include <string>

namespace memrel {

// What a refusal says before the loader's words: one wording for the library check of a backend
// file and the start of memrel under an `ab` side's settings.
inline constexpr const char* kLoaderSkipsPreload =
    "the dynamic loader skips a library it is told to preload: ";

// The loader's words for the first library it skipped, from a started program's standard error
// ("object '/x.so' from LD_PRELOAD cannot be preloaded (cannot open shared object file)", its
// "ERROR: ld.so: " and "ignored" left out); "" when it skipped none.
std::string skipped_preload(const std::string& standard_error);

// Whether ENVIRONMENT (settings added to this process's) has the loader preload anything.
bool sets_preload(const std::map<std::string, std::string>& environment);

// This program started (--version) with ENVIRONMENT added: skipped_preload of what it said, the
// library memrel's children would run without; "" when none, or when it cannot be asked.
std::string preload_skipped_under(const std::map<std::string, std::string>& environment);

}  // namespace memrel
