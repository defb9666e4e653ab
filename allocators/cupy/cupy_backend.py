"""CuPy's device memory allocators run as memrel backends inside the cell's embedded interpreter
(the protocol: allocators/embedded_python/python_allocator.hpp). An allocation of n bytes is
cupy.cuda.memory.alloc(n), what every cupy.ndarray allocates through, with the backend's
allocator set as CuPy's current one; a free drops the MemoryPointer, as `del` of an array does.
"""

import cupy

POOLS = ("cupy-pool", "cupy-async-pool", "cupy-nopool")


class CupyBackend:
    def __init__(self, name):
        if name not in POOLS:
            raise ValueError(f"no CuPy backend named {name}")
        cupy.cuda.Device(0).use()
        self.name = name
        if name == "cupy-pool":
            self.pool = cupy.get_default_memory_pool()
            cupy.cuda.set_allocator(self.pool.malloc)
            self.free = None  # dropping the MemoryPointer returns its block to the pool
        elif name == "cupy-async-pool":
            self.pool = cupy.cuda.MemoryAsyncPool()
            cupy.cuda.set_allocator(self.pool.malloc)
            self.free = None
        else:
            # No pool: each allocation a cudaMalloc through CuPy's Memory, freed at once. CuPy
            # keeps no statistics then: memrel counts the live blocks' bytes.
            self.pool = None
            cupy.cuda.set_allocator(None)
            self.free = self._count_free
        self._alloc = cupy.cuda.memory.alloc
        self._live_bytes = 0

    def allocate(self, n):
        block = self._alloc(n)
        if self.pool is None:
            self._live_bytes += block.mem.size
        return block, block.ptr

    def _count_free(self, block):
        self._live_bytes -= block.mem.size

    def release(self):
        if self.pool is not None:
            self.pool.free_all_blocks()

    def synchronize(self):
        cupy.cuda.runtime.deviceSynchronize()

    def fill(self, block, pointer, n):
        cupy.cuda.runtime.memset(pointer, 0x5A, n)
        cupy.cuda.runtime.deviceSynchronize()

    def usage(self):
        if self.pool is None:
            return self._live_bytes, self._live_bytes
        return self.pool.used_bytes(), self.pool.total_bytes()

    def is_out_of_memory(self, exception):
        if isinstance(exception, cupy.cuda.memory.OutOfMemoryError):
            return True
        text = str(exception)
        return "cudaErrorMemoryAllocation" in text or "out of memory" in text

    def versions(self):
        return {"cupy": cupy.__version__}


def make_backend(name):
    return CupyBackend(name)
