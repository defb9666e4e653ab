// null: hands out addresses inside one preallocated block and never touches the system.
//
// It exists to measure memrel itself: the time a benchmark or a cell spends around an
// allocation that costs nothing is the harness's overhead, to subtract from every other backend.
// Release: nothing. Usage: allocated = reserved = bytes live, counted here.
#include <cstdlib>

#include "allocators/host/host_backends.hpp"

namespace memrel {
namespace {

class NullAllocator : public Allocator {
 public:
  void* allocate(std::size_t bytes) override {
    live_bytes_ += bytes;
    // Every block aliases the same small buffer: nothing ever reads or writes it.
    return block_;
  }
  void deallocate(void*, std::size_t bytes) override { live_bytes_ -= bytes; }
  void release() override {}
  void fill(void*, std::size_t) override {}
  Usage usage() const override { return {live_bytes_, live_bytes_}; }
  MemorySpace space() const override { return MemorySpace::kHost; }
  bool blocks_are_real() const override { return false; }

 private:
  alignas(256) char block_[256] = {};
  std::uint64_t live_bytes_ = 0;
};

}  // namespace

std::unique_ptr<Allocator> make_null() { return std::make_unique<NullAllocator>(); }

}  // namespace memrel
