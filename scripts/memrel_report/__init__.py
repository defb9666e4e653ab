"""memrel's report: plots and a self-contained folder (index.html + report.md) from results files.

Reads the documented `memrel.results/1` format (docs/results-schema.md) and, optionally, Google
Benchmark JSON from memrel_bench and the Markdown verdict of `memrel compare`. Usage and the plots
are described in docs/report.md; the command line is `python3 -m memrel_report --help`.

Modules, one concept each:
  load      read and validate the input files (clear, one-line errors)
  prepare   pure functions from what was read to what is drawn or tabulated (tested directly)
  units     bytes -> MiB, ns -> µs, and their text forms
  tables    the report's tables as rows of text
  plots     one function per plot, each writing PNG and SVG
  document  the report as blocks, rendered to Markdown and to HTML
  mdlite    the small Markdown subset the gate verdict uses, to HTML
  report    builds the report: the blocks, the plots (in worker processes), both documents
  folder    writes the folder whole: a temporary folder renamed over the old one
"""

SCHEMA = "memrel.results/1"
CELL_SCHEMA = "memrel.cell/1"
