// The folder memrel's temporary files go in: $TMPDIR when set and not empty, else /tmp; and the
// one check of it made before anything needs it, so that a full or missing TMPDIR is said as
// such (docs/inputs.md, "Failures that are not the allocator's") instead of as a failure of
// whatever happened to write there first (the interpreter, a cell, the importer).
#pragma once

#include <string>

namespace memrel {

// $TMPDIR if set and not empty, else "/tmp".
std::string temporary_folder();

// "" when a file can be made in the temporary folder and 64 KiB written to it; else one phrase
// naming it: "TMPDIR (/x): no such folder", "TMPDIR (/x): full (No space left on device)".
std::string temporary_folder_problem();

}  // namespace memrel
