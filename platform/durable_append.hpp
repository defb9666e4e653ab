// A file that only grows, each append on disk before append() returns (write, then fsync), so
// that what was appended survives the writer being killed, even with SIGKILL, and a power cut.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace memrel {

// A file as the kernel knows it: its device and inode. A name can come to mean another file (the
// file removed by hand and a new one made in its place); this says whether it has.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  bool known = false;
};

// Removes PATH only when it is still the file `identity` was taken of; true when it did. What
// another process has made in its place is left alone.
bool remove_if_same_file(const std::string& path, const FileIdentity& identity);

// Another process holds the file (DurableAppendFile's lock).
class FileInUse : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Holds an exclusive flock on the file while open: one writer at a time.
class DurableAppendFile {
 public:
  // Creates PATH holding `first_record`, refusing one that exists, and makes its name durable
  // (fsync of the folder). The file appears with its first record in it, never empty: it is
  // written to an unnamed file (O_TMPFILE) that is then linked in, where the file system allows
  // it (else created, then written).
  static DurableAppendFile create_new(const std::string& path, const std::string& first_record);
  // Opens PATH to append after cutting it to its first keep_bytes (what a reader found whole).
  // Both throw FileInUse, touching nothing, when another process holds the file.
  static DurableAppendFile open_existing(const std::string& path, std::uint64_t keep_bytes);

  DurableAppendFile(DurableAppendFile&& other) noexcept;
  DurableAppendFile& operator=(DurableAppendFile&&) = delete;
  DurableAppendFile(const DurableAppendFile&) = delete;
  ~DurableAppendFile();

  // All of `data` written and synced, or std::runtime_error naming the file.
  void append(const std::string& data);
  const std::string& path() const { return path_; }
  // The file this object writes, whatever name it has now (or none).
  FileIdentity identity() const;

 private:
  DurableAppendFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
};

}  // namespace memrel
