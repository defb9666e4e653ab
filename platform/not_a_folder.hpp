// Where an output's first missing folder would be made, something that is not a folder: a file,
// or a symbolic link to nothing. Each writer said it in its own words, bench and ab the false
// "cannot create the folder (File exists)" (the fifty-first adversarial pass,
// c2-dangling-link-ancestor-wrong-words); now every writer says this.
#pragma once

#include <string>

namespace memrel {

// Why no folder can be made in PATH, in words: "d is not a folder", "d is a symbolic link to
// nowhere/x, which does not exist", "d is a loop of symbolic links". "" when PATH is a folder
// (through links), or is not there.
std::string not_a_folder(const std::string& path);

// PATH, or its nearest ancestor that is there (a link counts, followed or not), as spelled: where
// the first of PATH's missing folders would be made. "." for a relative path none of whose
// folders is there.
std::string where_folders_are_made(const std::string& path);

}  // namespace memrel
