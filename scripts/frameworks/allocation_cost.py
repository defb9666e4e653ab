#!/usr/bin/env python3
"""What one allocation costs inside JAX and CuPy themselves, in plain Python, beside the same
allocator called natively (docs/frameworks.md). With `memrel bench` on the xla-* and cupy-*
backends (Python called from C++ through the embedded interpreter) and on cuda-malloc and
cuda-async (the CUDA calls from C++), it splits an allocation's cost into the CUDA call, the
framework's own layer and memrel's C++-to-Python hop.

Each configuration runs in a process of its own (XLA reads its settings once). Per size it
times: the XLA compile of zeros((n,), uint8) (once per size, measured apart), then N rounds of
allocate + free (JAX: the compiled call, unsafe_buffer_pointer, .delete(); CuPy:
cupy.cuda.memory.alloc and dropping it), and for the native reference cupy.cuda.runtime's
malloc/free and mallocAsync/freeAsync (thin Cython wrappers over cudaMalloc and cudaMallocAsync).
Medians in nanoseconds, one JSON file:

    python3 scripts/frameworks/allocation_cost.py -o OUT.json [--rounds 2000]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SIZES = [512, 64 << 10, 2 << 20, 64 << 20]
XLA = {
    "xla-bfc": {"XLA_PYTHON_CLIENT_PREALLOCATE": "true", "XLA_PYTHON_CLIENT_ALLOCATOR": "default"},
    "xla-bfc-nopre": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false",
                      "XLA_PYTHON_CLIENT_ALLOCATOR": "default"},
    "xla-platform": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false",
                     "XLA_PYTHON_CLIENT_ALLOCATOR": "platform"},
    "xla-cuda-async": {"XLA_PYTHON_CLIENT_PREALLOCATE": "false",
                       "XLA_PYTHON_CLIENT_ALLOCATOR": "cuda_async"},
}
CUPY = ["cupy-pool", "cupy-async-pool", "cupy-nopool", "native-cudaMalloc", "native-cudaMallocAsync"]


def median_ns(fn, rounds):
    samples = []
    for _ in range(rounds):
        t = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - t)
    return statistics.median(samples)


def measure(name, rounds):
    out = {}
    if name in XLA:
        import jax
        import jax.numpy as jnp
        for n in SIZES:
            t = time.perf_counter_ns()
            exe = jax.jit(lambda: jnp.zeros((n,), jnp.uint8)).lower().compile()
            compile_ns = time.perf_counter_ns() - t

            def pair():
                a = exe()
                a.unsafe_buffer_pointer()
                a.delete()
            pair()
            out[str(n)] = {"compile_ns": compile_ns, "alloc_free_median_ns": median_ns(pair, rounds)}
        return out
    import cupy
    rt = cupy.cuda.runtime
    if name == "cupy-pool":
        cupy.cuda.set_allocator(cupy.get_default_memory_pool().malloc)
    elif name == "cupy-async-pool":
        cupy.cuda.set_allocator(cupy.cuda.MemoryAsyncPool().malloc)
    elif name == "cupy-nopool":
        cupy.cuda.set_allocator(None)
    alloc = cupy.cuda.memory.alloc
    for n in SIZES:
        if name == "native-cudaMalloc":
            pair = lambda: rt.free(rt.malloc(n))
        elif name == "native-cudaMallocAsync":
            pair = lambda: rt.freeAsync(rt.mallocAsync(n, 0), 0)
        else:
            pair = lambda: alloc(n)  # the MemoryPointer is dropped at once: allocate + free
        pair()
        out[str(n)] = {"alloc_free_median_ns": median_ns(pair, rounds)}
    rt.deviceSynchronize()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--out")
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.rounds)))
        return 0
    if not args.out:
        parser.error("-o OUT.json is required")
    result = {"format": "memrel.framework-allocation-cost/1", "python": sys.executable,
              "rounds": args.rounds, "sizes": SIZES, "configs": {}}
    for name in list(XLA) + CUPY:
        env = dict(os.environ, JAX_PLATFORMS="cuda", XLA_PYTHON_CLIENT_MEM_FRACTION="0.75",
                   **XLA.get(name, {}))
        run = subprocess.run([sys.executable, __file__, "--one", name, "--rounds", str(args.rounds)],
                             capture_output=True, text=True, env=env, timeout=600)
        try:
            result["configs"][name] = json.loads(run.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            result["configs"][name] = {"error": (run.stderr.strip().splitlines() or ["?"])[-1]}
        print(f"{name}: {result['configs'][name]}", file=sys.stderr)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
