// Whole-file writes that a reader never sees half done, and the one rule every output path obeys
// (docs/inputs.md, "Outputs"): what is there already is absent or a regular file (never a
// symbolic link, FIFO, device, socket or folder), and it is none of the command's inputs, told by
// identity (st_dev, st_ino), not by spelling.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "platform/nul_escaped.hpp"

namespace memrel {

// An output path that breaks the rule: an invalid_argument, so the command line exits 2 with its
// one line ("PATH: is a symbolic link, ...").
class OutputError : public std::invalid_argument {
 public:
  explicit OutputError(const std::string& what) : std::invalid_argument(nul_escaped(what)) {}
};

// The files memrel itself runs, inputs of every command (docs/inputs.md, "Outputs"): the running
// program (/proc/self/exe), memrel_bench and the plugins beside it, the folder of its Python
// parts, its own data, and the interpreters it runs them with ($MEMREL_PYTHON or python3 on PATH,
// $MEMREL_HISTORY_PYTHON, $MEMREL_PYTHON_PLUGIN). check_output_file and check_output_folder check
// them always.
std::vector<std::string> program_inputs();

// The identities of program_inputs()'s files and of every file below a folder it names, as
// "DEV:INO DEV:INO ...": what memrel passes its Python parts (MEMREL_PROGRAM_FILES), so that
// scripts/memrel_outputs refuses the same files by one definition.
std::string program_identities();

// Whether two output paths name one file, by the path as the system resolves it (neither need
// exist yet): two outputs of one command must be two files.
bool same_output_path(const std::string& a, const std::string& b);

// Whether the output path INNER lies below OUTER (OUTER a folder on its way), by the paths as the
// system resolves them (neither need exist yet): a file output there cannot also be a folder
// holding another (`compare --json Z --markdown Z/a.md` wrote Z/a.md, then failed "Z: is a
// folder" with one output written: the forty-seventh adversarial pass, c2-*-under-*).
bool output_path_under(const std::string& inner, const std::string& outer);

// The one of FOLDERS (each an existing folder, told by identity) that the output PATH would lie
// directly in, or "" when none: a folder a command reads every *.json of takes no new one
// (compare's input folders, the workloads and backends folders).
std::string folder_holding_output(const std::string& path, const std::vector<std::string>& folders);

// The longest suffix memrel adds to an output's name for a file beside it (`.journal`,
// `.tmp.PID`, SQLite's `-journal`): each name of an output's path leaves this much room under the
// file system's limit (check_output_file, check_output_folder; scripts/memrel_outputs too).
inline constexpr std::size_t kOutputSuffixBytes = 16;

// Throws OutputError unless PATH is absent or a regular file (lstat: a symbolic link is refused,
// not followed), and is not one of INPUTS by identity. An input that is a folder (compare's
// folder of results) holds inputs: an existing *.json directly inside it (or a hard link of one) is
// refused too. `option` ("-o", "--markdown") starts the message when given.
void check_output_file(const std::string& path, const std::vector<std::string>& inputs = {},
                       const std::string& option = "");

// Throws OutputError unless a file can be made in PATH's folder, probed by making one and removing
// it at once (a read-only file system says so only then): part of "checked before any work"
// for an output whose folder memrel does not create. "--markdown /sys/x.md: cannot write in its
// folder (Permission denied)".
void check_output_writable(const std::string& path, const std::string& option = "");

// check_output_writable for a folder output that memrel creates with its parents when absent:
// the probe is made in FOLDER, or else in its nearest existing ancestor, where the first folder
// will be made ("--out /sys/od: cannot write in /sys (Permission denied)"). `shown` names the
// output in the message when it is a file in FOLDER (merge's -o).
void check_output_folder_writable(const std::string& folder, const std::string& option = "",
                                  const std::string& shown = "");

// Throws OutputError unless FOLDER is absent or a real folder (not a symbolic link), and no
// input is FOLDER or lies anywhere under it (by identity of each ancestor of the input's real
// path), nor is any existing file below it an input or a file memrel runs by identity (a hard
// link): a folder output is replaced whole, so an input inside it would be lost.
void check_output_folder(const std::string& folder, const std::vector<std::string>& inputs,
                         const std::string& option = "");

// Writes to a fresh PATH.tmp.PID (O_EXCL, never through a link), fsyncs it, renames it over PATH
// and fsyncs the folder, so a reader never sees half a file, an interrupted write leaves the
// previous file intact and a power cut leaves one or the other. Checks PATH by
// check_output_file (no inputs) first: OutputError. Other failures: std::runtime_error naming
// the file.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace memrel
