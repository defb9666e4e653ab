"""Writes the report: plots (PNG + SVG), report.md and index.html, from inputs already read and
validated by load.py, into a folder that folder.py puts in place whole."""

import datetime
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from . import folder, plots, prepare, tables
from .document import Bullets, Heading, Image, Markdown, Para, to_html, to_markdown

TITLE = "memrel report"


@dataclass
class Inputs:
    runs: list                                    # load.Run
    cells: list                                   # load.Cell, labelled
    bench: list = field(default_factory=list)     # load.BenchFile
    verdict: str = None                           # Markdown from `memrel compare`
    verdict_path: str = None
    timelines: list = None                        # "backend/workload" to draw; None: every cell
    jobs: int = 1                                 # processes rendering plots


@dataclass(frozen=True)
class PlotJob:
    """A plot to render: plots.<function>(*args, out_dir). Picklable, so workers can draw it."""

    function: str
    args: tuple


def _render(job, out_dir):
    return getattr(plots, job.function)(*job.args, out_dir)


def render(jobs, out_dir, processes):
    """Renders every job, in worker processes when there are several (matplotlib draws in one
    thread: a report of many cells takes seconds per core). Returns the plots.Plot of each job."""
    processes = max(1, min(processes, len(jobs)))
    if processes == 1:
        return [_render(job, out_dir) for job in jobs]
    # fork: the workers inherit matplotlib already imported (its font cache loaded), and
    # nothing in this process holds threads or locks a child could inherit mid-use.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    try:
        pool = ProcessPoolExecutor(max_workers=processes, mp_context=context)
    except OSError:  # no semaphores here (some containers lack /dev/shm): draw in this process
        return [_render(job, out_dir) for job in jobs]
    with pool:
        return list(pool.map(_render, jobs, [out_dir] * len(jobs)))


def default_jobs():
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(8, cores))


def build(inputs, out_dir):
    """Renders every plot and both documents into out_dir (which must exist and be empty)."""
    cells = inputs.cells
    blocks = []
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    blocks.append(Para(f"Generated {now} from {len(inputs.runs)} results file(s) and "
                       f"{len(inputs.bench)} benchmark file(s). Bytes: MiB = 2^20 B, exact bytes "
                       "with them; times in µs. Metric definitions: docs/metrics.md."))
    blocks.append(Bullets([f"results #{i + 1}: {r.path} ({len(r.cells)} cells)" for i, r in enumerate(inputs.runs)]
                          + [f"benchmarks: {b.path} ({len(b.entries)} entries)" for b in inputs.bench]))

    if inputs.verdict is not None:
        blocks += [Heading(2, "Gate verdict"), Para(f"From {inputs.verdict_path} (memrel compare)."),
                   Markdown(inputs.verdict)]

    blocks.append(Heading(2, "Environment"))
    for i, run in enumerate(inputs.runs):
        if len(inputs.runs) > 1:
            blocks.append(Heading(3, f"Results #{i + 1}"))
        blocks.append(tables.environment(run))

    blocks += [Heading(2, "Cells"), Para(tables.status_summary(cells))]
    failed = tables.non_ok_cells(cells)
    blocks.append(failed if failed else Para("Every cell finished ok."))

    blocks += [Heading(2, "Release effectiveness"),
               Image(PlotJob("effectiveness_heatmap", (prepare.effectiveness_heatmap(cells),)))]

    blocks += [Heading(2, "Metrics per cell"), tables.metrics(cells)]

    blocks.append(Heading(2, "Memory at each mark"))
    for workload in prepare.workloads(cells):
        chart = prepare.phase_chart(cells, workload)
        blocks.append(Heading(3, workload))
        if chart.panels:
            blocks.append(Image(PlotJob("phase_chart", (chart,))))
            blocks.append(tables.marks(cells, workload))
        for label, status, reason in chart.not_shown:
            blocks.append(Para(f"{label}: {status}, no marks recorded" + (f" ({reason})" if reason else "") + "."))

    blocks.append(Heading(2, "Attribution of process memory (torch cells)"))
    torch = prepare.torch_cells(cells)
    if not torch:
        blocks.append(Para("No torch cells in these results: the attribution plot is skipped."))
    else:
        blocks.append(Para("NVML process used = CUDA context + framework init + cache (reserved − allocated) "
                           "+ live (allocated) + remainder, at each mark."))
        for workload in prepare.workloads(torch):
            panels = [prepare.attribution(c) for c in torch if c.workload == workload]
            blocks.append(Image(PlotJob("attribution_chart", (workload, panels))))

    blocks.append(Heading(2, "Latency against size"))
    if not inputs.bench:
        blocks.append(Para("No benchmark JSON given (--bench BENCH.json): no latency plot."))
    else:
        points, skipped = prepare.latency_points(inputs.bench)
        if points:
            blocks.append(Image(PlotJob("latency_chart", (prepare.latency_series(points),))))
            blocks.append(Para("Google Benchmark real time: the median of the repetitions, else the median "
                               "aggregate, else the mean one (docs/benchmark-json.md, the same rule as the "
                               "gate's); churn: time per step (ns_per_op)."))
            blocks.append(tables.latency(points))
        else:
            blocks.append(Para("No benchmark in the given files is named operation/backend/mode/bytes: "
                               "no latency plot."))
        if skipped:
            blocks += [Para(f"{len(skipped)} benchmark entries skipped:"), tables.skipped_benchmarks(skipped)]

    blocks.append(Heading(2, "Memory timelines"))
    chosen = prepare.select_timelines(cells, inputs.timelines)
    if not chosen:
        blocks.append(Para("No cell recorded any step."))
    for cell in chosen:
        blocks.append(Image(PlotJob("timeline_chart", (prepare.timeline(cell),))))

    blocks += [Heading(2, "Setup per cell"), tables.setup(cells)]

    images = [b for b in blocks if isinstance(b, Image)]
    for image, plot in zip(images, render([i.plot for i in images], out_dir, inputs.jobs)):
        image.plot = plot

    with open(os.path.join(out_dir, "report.md"), "w", encoding="utf-8") as f:
        f.write(to_markdown(TITLE, blocks))
    with open(os.path.join(out_dir, "index.html"), "w", encoding="utf-8") as f:
        f.write(to_html(TITLE, blocks))


def write(inputs, out_dir):
    """Builds the report and puts it in place of out_dir (folder.write_atomically)."""
    return folder.write_atomically(out_dir, lambda tmp: build(inputs, tmp))
