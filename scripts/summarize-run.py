#!/usr/bin/env python3
"""Prints a results file's per-mark tables as Markdown, for a terminal or a closing note.

    scripts/summarize-run.py RESULTS.json [--workload NAME ...]
    scripts/summarize-run.py --traces RESULTS.json [PROVENANCE_DIR]

With --traces: one table per trace (backend, peak reserved / peak requested, utilization, held at
end, ns per event), and how the torch-native replay's peak reserved compares with the peak
reserved recorded with the trace (the trace's own segment events, and PROVENANCE_DIR's
<trace>.provenance.json from scripts/record-traces when given).
"""
import argparse
import json
import sys
from pathlib import Path

MIB = 1 << 20


def mib(value):
    return "n/a" if value is None else f"{value / MIB:.1f}"


def ratio(value):
    return "n/a" if value is None else f"{value:.3f}"


def trace_tables(run, provenance_dir):
    traces = sorted({c["workload"] for c in run["cells"] if c.get("trace")})
    for name in traces:
        cells = [c for c in run["cells"] if c["workload"] == name]
        first = next(c["trace"] for c in cells if c.get("trace"))
        print(f"\n### {name} ({first.get('events')} events, source {first.get('source_format')})\n")
        print("| backend | status | scale | peak requested MiB | peak reserved MiB | reserved / requested | "
              "utilization | held at end MiB | ns per event |")
        print("|---|---|---|---|---|---|---|---|---|")
        for c in cells:
            m, t = c["metrics"], c.get("trace") or {}
            print(f"| {c['backend']} | {c['status']} | {t.get('scale', '-')} | {mib(m.get('peak_requested'))} | "
                  f"{mib(m.get('peak_reserved'))} | {ratio(m.get('overhead_ratio'))} | "
                  f"{ratio(m.get('utilization'))} | {mib(t.get('held_at_end_bytes'))} | "
                  f"{round(t['ns_per_event']) if c['status'] == 'ok' and t.get('ns_per_event') else 'n/a'} |")
        recorded = (first.get("recorded_reserved") or {}).get("bytes") or []
        native = next((c for c in cells if c["backend"] == "torch-native" and c["status"] == "ok"), None)
        references = []
        if recorded:
            references.append(("the trace's segment events", max(recorded)))
        if provenance_dir:
            path = Path(provenance_dir) / f"{name}.provenance.json"
            if path.is_file():
                prov = json.loads(path.read_text())
                references.append((f"torch.cuda.max_memory_reserved() at recording ({prov.get('torch')})",
                                   prov.get("peak_reserved_bytes")))
        for what, value in references:
            if native is None or not value or native["metrics"].get("peak_reserved") is None:
                continue
            got = native["metrics"]["peak_reserved"]
            print(f"\ntorch-native replay peak reserved {mib(got)} MiB vs {what} {mib(value)} MiB: "
                  f"{100 * (got - value) / value:+.2f}%")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--traces":
        if len(sys.argv) not in (3, 4):
            print("summarize-run: --traces RESULTS.json [PROVENANCE_DIR]", file=sys.stderr)
            return 2
        try:
            run = json.loads(Path(sys.argv[2]).read_text())
        except (OSError, ValueError) as e:
            print(f"summarize-run: {sys.argv[2]}: {e}", file=sys.stderr)
            return 2
        trace_tables(run, sys.argv[3] if len(sys.argv) == 4 else None)
        return 0
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
