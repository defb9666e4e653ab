#include "platform/folders_made_here.hpp"

#include <exception>
#include <stdexcept>
#include <system_error>

#include "platform/not_a_folder.hpp"
#include "platform/replace_barrier.hpp"

namespace memrel {

namespace fs = std::filesystem;

namespace {

bool absent(const fs::path& p) {
  std::error_code ec;  // a path that cannot be looked at (a parent missing) is not there
  return !fs::exists(fs::symlink_status(p, ec));
}

// "a/.." and "a/." spell a folder that was there before (the parent, the folder itself).
bool names_an_earlier_folder(const fs::path& p) {
  return p.filename() == "." || p.filename() == "..";
}

}  // namespace

FoldersMadeHere::FoldersMadeHere() : exceptions_at_start_(std::uncaught_exceptions()) {}

FoldersMadeHere::~FoldersMadeHere() {
  if (std::uncaught_exceptions() > exceptions_at_start_) remove_empty();
}

void FoldersMadeHere::make(const std::string& option, const std::string& dir) {
  std::error_code ec;
  // Climbed as spelled, not lexically normalised: the system resolves "a/../b" through a, so
  // the same spellings are checked, made and removed.
  std::vector<fs::path> missing;
  for (fs::path p = fs::absolute(dir, ec); !ec && !p.empty() && absent(p); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  // The first folder is made in an existing one that keeps what is made in it (chattr +a, +i):
  // it could not be removed again when the command fails or is stopped, so it is refused before
  // any work, as every writer's probe refuses such a folder (the fiftieth adversarial pass,
  // c2-bench-ab-appendonly-grandparent-folder-left, c2-bench-logs-appendonly-grandparent).
  if (!missing.empty()) {
    const fs::path parent = missing.back().parent_path();
    if (std::string barrier = replace_barrier(parent.string()); !barrier.empty())
      throw std::invalid_argument(option + " " + dir + ": " + parent.string() + " " + barrier +
                                  ": a folder made in it could not be removed again; write the "
                                  "output elsewhere");
  }
  // Made under a file or a link to nothing, create_directories said "File exists" of a folder
  // that is not there (c2-dangling-link-ancestor-wrong-words): said as every writer says it.
  if (std::string why = not_a_folder(where_folders_are_made(dir)); !why.empty())
    throw std::invalid_argument(option + " " + dir + ": cannot create the folder (" + why + ")");
  fs::create_directories(dir, ec);
  // Recorded even when making failed half-way: what was made goes again with the rest. Ahead of
  // the folders made before, which may hold these (ab makes OUT/rounds, then OUT/reference): in
  // the order made, OUT came before OUT/reference and stayed, not empty when its turn came (the
  // forty-sixth adversarial pass, c8-ab-emfile-leaves-skeleton).
  std::vector<fs::path> made_now;
  for (const fs::path& p : missing)
    if (!absent(p)) made_now.push_back(p);
  made_.insert(made_.begin(), made_now.begin(), made_now.end());
  if (ec || !fs::is_directory(dir)) {
    std::string why = ec ? " (" + ec.message() + ")" : "";
    // Said as the other commands say it (cli's filesystem_error handler, the twenty-fifth
    // adversarial pass, c2-*-under-symlink-loop).
    if (ec == std::errc::too_many_symbolic_link_levels) why += " (a loop of symbolic links)";
    throw std::invalid_argument(option + " " + dir + ": cannot create the folder" + why);
  }
}

void FoldersMadeHere::remove_empty() noexcept {
  std::error_code ec;
  for (const fs::path& p : made_)  // a folder that is not empty stays
    if (!names_an_earlier_folder(p)) fs::remove(p, ec);
  made_.clear();
}

void FoldersMadeHere::remove_with_contents() noexcept {
  std::error_code ec;
  for (const fs::path& p : made_)
    if (!names_an_earlier_folder(p)) fs::remove_all(p, ec);
  made_.clear();
}

}  // namespace memrel
