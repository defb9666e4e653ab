"""memrel's report: a self-contained static site (index.html answers first, drill-down pages,
CSV/JSON downloads, report.md for CI) from results files.

Reads the documented `memrel.results/1` format (docs/results-schema.md) and, optionally, Google
Benchmark JSON from memrel_bench and the verdicts of `memrel compare --json`
(`memrel.gate-verdicts/1`). Usage and the plots are described in docs/report.md; the command line
is `python3 -m memrel_report --help`.

Modules, one concept each:
  input_rules  the rules every input file is read by, and InputError (one line: FILE: what)
  load      read and validate the results and benchmark files
  gbench    the memrel gbench reading rule: Google Benchmark JSON to series
  gate_verdict  read the gate's verdicts (memrel compare --json)
  prepare   pure functions from what was read to what is drawn or tabulated (tested directly)
  units     bytes -> MiB, ns -> µs, and their text forms
  tables    the report's tables as rows of text
  verdicts  the answer: one figure per backend per question, host and device apart, best marked
  site_data what the pages show beyond prepare: reason groups, trace curves, the latency scale
  site      the pages and what each holds
  plots     one function per plot, each writing PNG and SVG
  compare_plots  the charts that compare backends: verdicts, latency on one scale, traces
  layout    colour-blind-safe palette, line styles, the check that no labels touch
  downloads the numbers beside the pictures: CSV and JSON in data/
  document  the report as blocks, rendered to Markdown and to HTML
  report    builds the report: the pages, the plots (in worker processes), HTML and Markdown
  folder    writes the folder whole: a temporary folder renamed over the old one
"""

SCHEMA = "memrel.results/1"
CELL_SCHEMA = "memrel.cell/1"
