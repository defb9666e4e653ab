#!/usr/bin/env python3
"""Prints a results file's per-mark tables as Markdown, for a terminal or a closing note.

    scripts/summarize-run.py RESULTS.json [--workload NAME ...]
"""
import argparse
import json
import sys

MIB = 1 << 20


def mib(value):
    return "n/a" if value is None else f"{value / MIB:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results")
    parser.add_argument("--workload", action="append",
                        help="workloads to tabulate (default: single-large, fragmentation)")
    args = parser.parse_args()
    try:
        with open(args.results) as f:
            run = json.load(f)
        if run.get("schema") != "memrel.results/1":
            raise ValueError(f"schema {run.get('schema')!r} is not 'memrel.results/1'")
    except (OSError, ValueError) as e:
        print(f"summarize-run: {args.results}: {e}", file=sys.stderr)
        return 2
    workloads = args.workload or ["single-large", "fragmentation"]
    ctx = run["context"]
    print(f"GPU {ctx.get('gpu')}, driver {ctx.get('driver_version')}, "
          f"CUDA runtime {ctx.get('cuda_runtime_version')}, commit {ctx.get('git_commit')}\n")
    print("| backend | workload | status | context MiB (NVML) | init MiB | peak reserved MiB | release eff. | residual B | median alloc/free/release µs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for c in run["cells"]:
        m, s = c["metrics"], c["setup"]
        lat = m["median_latency_ns"]
        lat_s = "/".join(f"{lat[k] / 1e3:.1f}" if k in lat else "-" for k in ("alloc", "free", "release"))
        eff = m["release_effectiveness"]
        print(f"| {c['backend']} | {c['workload']} | {c['status']} | {mib(s['process_used_after_context'])} | "
              f"{mib(s['backend_init_process_bytes'])} | {mib(m['peak_reserved'])} | "
              f"{'n/a' if eff is None else f'{eff:.3f}'} | {m['residual_bytes']} | {lat_s} |")
    for w in workloads:
        cells = [c for c in run["cells"] if c["workload"] == w and c["marks"]]
        if not cells:
            continue
        print(f"\n### {w} (MiB; device used is the delta from the cell's baseline)\n")
        print("| backend | mark | requested | allocated | reserved | device used | NVML process |")
        print("|---|---|---|---|---|---|---|")
        for c in cells:
            for mark in c["marks"]:
                a = mark["at"]
                print(f"| {c['backend']} | {mark['label']} | {mib(a['requested'])} | {mib(a['allocated'])} | "
                      f"{mib(a['reserved'])} | {mib(a['device_used_delta'])} | {mib(a['process_used'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
