#!/usr/bin/env python3
"""The seeds' questions asked of JAX and CuPy on a GPU (docs/frameworks.md):

  what does the device (nvidia-smi) show after the first array, after `del` / `.delete()`, after
  the framework's release; and what can a second process still allocate after each phase?

Each configuration runs in a worker process of its own (XLA reads its settings once), which
stops at each phase; meanwhile this process reads nvidia-smi (the worker's used memory and the
device's) and starts a neighbour process that allocates 256 MiB blocks with plain cudaMalloc
(through CuPy without a pool) until the device refuses, then frees them. Writes one JSON file.

    python3 scripts/frameworks/seeds_questions.py -o OUT.json [--mib 360] [--only NAME,...]

Run it with the Python that has jax and cupy (the H200: /opt/torch/.venv/bin/python3).
"""

import argparse
import json
import os
import subprocess
import sys
import time

# name -> (framework, environment); the XLA ones as the xla-* backends set them.
CONFIGS = {
    "jax-bfc": ("jax", {"XLA_PYTHON_CLIENT_PREALLOCATE": "true",
                        "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.75",
                        "XLA_PYTHON_CLIENT_ALLOCATOR": "default"}),
    "jax-bfc-nopre": ("jax", {"XLA_PYTHON_CLIENT_PREALLOCATE": "false",
                              "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.75",
                              "XLA_PYTHON_CLIENT_ALLOCATOR": "default"}),
    "jax-platform": ("jax", {"XLA_PYTHON_CLIENT_PREALLOCATE": "false",
                             "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.75",
                             "XLA_PYTHON_CLIENT_ALLOCATOR": "platform"}),
    "jax-cuda-async": ("jax", {"XLA_PYTHON_CLIENT_PREALLOCATE": "false",
                               "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.75",
                               "XLA_PYTHON_CLIENT_ALLOCATOR": "cuda_async"}),
    "cupy-pool": ("cupy", {}),
    "cupy-async-pool": ("cupy", {}),
    "cupy-nopool": ("cupy", {}),
}
MiB = 1 << 20
NEIGHBOUR_BLOCK = 256 * MiB

NEIGHBOUR = r"""
import cupy, json
cupy.cuda.set_allocator(None)
blocks = []
try:
    while True:
        blocks.append(cupy.cuda.runtime.malloc(%d))
except cupy.cuda.runtime.CUDARuntimeError:
    pass
for b in blocks:
    cupy.cuda.runtime.free(b)
print(json.dumps({"bytes": len(blocks) * %d}))
""" % (NEIGHBOUR_BLOCK, NEIGHBOUR_BLOCK)


# ---- the worker: one configuration, stopping at each phase -------------------------------------

def worker(name, mib):
    framework = CONFIGS[name][0]
    n = mib * MiB

    def phase(label, stats, note=""):
        print(json.dumps({"phase": label, "stats": stats, "note": note}), flush=True)
        sys.stdin.readline()  # the parent has measured

    if framework == "jax":
        import jax
        import jax.numpy as jnp
        device = jax.devices()[0]
        stats = lambda: {k: v for k, v in (device.memory_stats() or {}).items()
                         if k in ("bytes_in_use", "pool_bytes", "peak_bytes_in_use",
                                  "bytes_limit", "bytes_reserved")}
        jnp.zeros((1,), jnp.uint8).block_until_ready()
        phase("client-started", stats(), "jax imported, one 1-byte array made (and dropped)")
        a = jnp.zeros((n,), jnp.uint8).block_until_ready()
        phase("first-array", stats(), f"jnp.zeros({mib} MiB)")
        a.delete()
        del a
        phase("after-delete", stats(), ".delete() and del")
        phase("after-release", stats(), "XLA offers no release call while the client lives")
    else:
        import cupy
        cupy.cuda.Device(0).use()
        if name == "cupy-pool":
            pool = cupy.get_default_memory_pool()
            cupy.cuda.set_allocator(pool.malloc)
        elif name == "cupy-async-pool":
            pool = cupy.cuda.MemoryAsyncPool()
            cupy.cuda.set_allocator(pool.malloc)
        else:
            pool = None
            cupy.cuda.set_allocator(None)
        stats = lambda: ({"used_bytes": pool.used_bytes(), "total_bytes": pool.total_bytes()}
                         if pool is not None else {})
        cupy.zeros((1,), cupy.uint8)
        cupy.cuda.runtime.deviceSynchronize()
        phase("client-started", stats(), "cupy imported, one 1-byte array made")
        a = cupy.zeros((n,), cupy.uint8)
        cupy.cuda.runtime.deviceSynchronize()
        phase("first-array", stats(), f"cupy.zeros({mib} MiB)")
        del a
        cupy.cuda.runtime.deviceSynchronize()
        phase("after-delete", stats(), "del")
        if pool is not None:
            pool.free_all_blocks()
        cupy.cuda.runtime.deviceSynchronize()
        phase("after-release", stats(),
              "free_all_blocks()" if pool is not None else "nothing to release")


# ---- the parent: nvidia-smi and the neighbour at each phase --------------------------------------

def smi(query, *extra):
    out = subprocess.run(["nvidia-smi", f"--query-{query}", "--format=csv,noheader,nounits",
                          *extra], capture_output=True, text=True, check=True).stdout
    return [line.split(", ") for line in out.strip().splitlines() if line.strip()]


def compute_apps():
    """Every process nvidia-smi lists on the device, as {pid: MiB} (in a container the pids may
    be the host's, so the whole list is kept beside the worker's own figure)."""
    return {row[0].strip(): int(row[1]) for row in smi("compute-apps=pid,used_memory")
            if len(row) == 2}


def process_used_mib(pid, apps):
    return apps.get(str(pid), 0)


def device_used_mib():
    return int(smi("gpu=memory.used", "-i", "0")[0][0])


def neighbour_bytes():
    env = {k: v for k, v in os.environ.items() if not k.startswith("XLA_")}
    out = subprocess.run([sys.executable, "-c", NEIGHBOUR], capture_output=True, text=True,
                         env=env, timeout=300)
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])["bytes"]
    except (IndexError, ValueError, KeyError):
        return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1]}


def run_config(name, mib):
    env = dict(os.environ, **CONFIGS[name][1])
    env["JAX_PLATFORMS"] = "cuda"
    child = subprocess.Popen([sys.executable, __file__, "--worker", name, "--mib", str(mib)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    phases = [{"phase": "before", "stats": {}, "note": "no worker process yet",
               "process_used_mib": 0, "device_used_mib": device_used_mib(),
               "neighbour_can_allocate_bytes": neighbour_bytes()}]
    for line in child.stdout:
        if not line.startswith("{"):
            continue  # a framework's own output, not a phase
        record = json.loads(line)
        time.sleep(0.2)  # NVML's per-process figure lags a moment behind the driver
        record["compute_apps_mib"] = compute_apps()
        record["process_used_mib"] = process_used_mib(child.pid, record["compute_apps_mib"])
        record["device_used_mib"] = device_used_mib()
        record["neighbour_can_allocate_bytes"] = neighbour_bytes()
        phases.append(record)
        print(f"{name:16} {record['phase']:15} process {record['process_used_mib']:>7} MiB, "
              f"device {record['device_used_mib']:>7} MiB, neighbour "
              f"{record['neighbour_can_allocate_bytes']}", file=sys.stderr)
        child.stdin.write("\n")
        child.stdin.flush()
    child.wait()
    return {"environment": CONFIGS[name][1], "returncode": child.returncode, "phases": phases}


def versions():
    found = {}
    import importlib.metadata as md
    for package in ("jax", "jaxlib", "jax-cuda13-plugin", "jax-cuda13-pjrt", "cupy-cuda13x"):
        try:
            found[package] = md.version(package)
        except md.PackageNotFoundError:
            pass
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--out", help="the JSON file to write")
    parser.add_argument("--mib", type=int, default=360, help="the first array's size (360: the seeds')")
    parser.add_argument("--only", default="", help="comma-separated configurations (default all)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.mib)
        return 0
    if not args.out:
        parser.error("-o OUT.json is required")
    names = [n for n in args.only.split(",") if n] or list(CONFIGS)
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        parser.error(f"--only: unknown configuration {unknown[0]} (known: {', '.join(CONFIGS)})")
    total = int(smi("gpu=memory.total", "-i", "0")[0][0])
    result = {"format": "memrel.framework-seeds/1", "python": sys.executable,
              "versions": versions(), "device_total_mib": total, "array_mib": args.mib,
              "neighbour_block_bytes": NEIGHBOUR_BLOCK, "configs": {}}
    for name in names:
        result["configs"][name] = run_config(name, args.mib)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
