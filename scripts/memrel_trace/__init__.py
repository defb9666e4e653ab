"""memrel's trace importer: real programs' allocation traces into memrel's own trace format.

Reads a PyTorch memory snapshot (`torch.cuda.memory._dump_snapshot()`, a pickle) or an RMM
`logging_resource_adaptor` CSV log and writes `memrel.trace/1` (docs/traces.md), which
`memrel run -w FILE.memtrace` replays on any backend. The command line is
`python3 -m memrel_trace import FILE -o TRACE [--device N]`, run by `memrel trace import ...`.

Modules, one concept each:
  errors          the one-line input error ("FILE: where: what") and its exit code
  safe_pickle     unpickling that refuses every global: a hostile file runs nothing
  builder         the replay rules shared by both sources: requests, allocated-at-start blocks,
                  deferred frees, marks, the recorded reserved curve, frees at the end
  torch_snapshot  a PyTorch snapshot into the builder
  rmm_log         an RMM log into the builder
  trace_file      the memrel.trace/1 file: written atomically, read back (tests, `show`)
  workloads_folder  the names of the workloads a trace imported into --workloads-dir would join
"""

SCHEMA = "memrel.trace/1"
MAGIC = b"MEMTRACE"
OP_ALLOC = 1
OP_FREE = 2
# The workload format's limit (harness/workload/workload.hpp kMaxRequestBytes): larger is a unit mistake.
MAX_REQUEST_BYTES = 1 << 48
# What the loader accepts of a header (harness/workload/trace_file.hpp kMaxHeaderBytes).
MAX_HEADER_BYTES = 16 << 20
