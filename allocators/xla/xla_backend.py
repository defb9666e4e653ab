"""XLA's GPU allocators, as JAX users choose them, run as memrel backends inside the cell's
embedded interpreter (the protocol: allocators/embedded_python/python_allocator.hpp).

The allocator is chosen by the cell's environment (XLA_PYTHON_CLIENT_PREALLOCATE,
XLA_PYTHON_CLIENT_MEM_FRACTION, XLA_PYTHON_CLIENT_ALLOCATOR, set by allocators/xla/xla_family.cpp)
before jax loads, as a JAX program would set it. JAX's public Python API has no allocation of
uninitialised device memory (jnp.empty is zeros), so an allocation of n bytes runs a compiled
`zeros((n,), uint8)`:
one fill kernel per allocation, and one XLA compile the first time a size is asked for (cached
per size; its cost is measured apart by benchmarks/frameworks/python_overhead.py). A free is the
array's delete(), which hands its buffer back to XLA's allocator at once, as `del` of the last
reference would.
"""

import importlib.metadata
import os

import jax
import jax.numpy as jnp

SETTINGS = ("XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION",
            "XLA_PYTHON_CLIENT_ALLOCATOR")


def is_out_of_memory_text(text):
    return "RESOURCE_EXHAUSTED" in text or "Out of memory" in text or "out of memory" in text


class XlaBackend:
    def __init__(self, name):
        missing = [s for s in SETTINGS if s not in os.environ]
        if missing:
            raise RuntimeError(f"{name} runs only in its cell's environment; {', '.join(missing)} unset")
        self.name = name
        self.device = jax.devices()[0]
        if self.device.platform != "gpu":
            raise RuntimeError(f"{name}: jax's first device is {self.device.platform}, not a GPU "
                               f"(JAX_PLATFORMS={os.environ.get('JAX_PLATFORMS', '(unset)')})")
        self._executables = {}  # n -> compiled zeros((n,), uint8)
        # synchronize() waits on a scalar made and deleted at once: an array kept for it would
        # count in XLA's bytes in use (seen on the H200: 256 bytes left "allocated" after every
        # block was freed).
        self._scalar = jax.jit(lambda: jnp.zeros((), jnp.uint8)).lower().compile()
        self.synchronize()
        # XLA's cuda_async allocator reports bytes in use but pool_bytes 0 (jax 0.11.2 on the
        # H200): what its pool holds is not reported, so reserved is unknown here, not 0; the
        # cell's device-level figures still show what the process holds.
        self._reserved_reported = os.environ["XLA_PYTHON_CLIENT_ALLOCATOR"] != "cuda_async"
        # Whether XLA keeps statistics for this allocator is decided once, so that usage()
        # reports the same figures at every reading; where it keeps none, memrel counts the
        # live arrays' bytes itself.
        stats = self.device.memory_stats() or {}
        self._own_count = "bytes_in_use" not in stats
        self._live_bytes = 0

    def _zeros(self, n):
        executable = self._executables.get(n)
        if executable is None:
            executable = jax.jit(lambda: jnp.zeros((n,), jnp.uint8)).lower().compile()
            self._executables[n] = executable
        return executable

    def allocate(self, n):
        array = self._zeros(n)()
        # XLA runs the allocation asynchronously: a request it cannot satisfy (1 PiB) still
        # returns an array, and RESOURCE_EXHAUSTED surfaces only when it is waited on.
        array.block_until_ready()
        self._live_bytes += n
        return array, array.unsafe_buffer_pointer()

    def free(self, array):
        self._live_bytes -= array.nbytes
        array.delete()

    def release(self):
        # XLA offers no call that hands cached device memory back while its client lives (BFC
        # keeps its pool, the cuda_async allocator its memory pool); the platform allocator
        # caches nothing.
        pass

    def synchronize(self):
        scalar = self._scalar()
        scalar.block_until_ready()
        scalar.delete()

    def fill(self, array, pointer, n):
        # The allocation's zeros kernel wrote every byte: wait for it.
        array.block_until_ready()

    def usage(self):
        if self._own_count:
            return self._live_bytes, self._live_bytes
        stats = self.device.memory_stats() or {}
        reserved = stats.get("pool_bytes", stats.get("bytes_reserved"))
        return stats.get("bytes_in_use"), reserved if self._reserved_reported else None

    def is_out_of_memory(self, exception):
        return is_out_of_memory_text(str(exception))

    def versions(self):
        found = {"jax": jax.__version__}
        for package in ("jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt", "jax-cuda12-plugin"):
            try:
                found[package] = importlib.metadata.version(package)
            except importlib.metadata.PackageNotFoundError:
                pass
        return found


def make_backend(name):
    return XlaBackend(name)
