"""The report's answer (verdicts.py) against the cells it came from, and the legibility of every
comparison chart: no two labels touch, none sticks out of its figure (layout.py)."""

import os
import statistics

import pytest
from conftest import HOST_RUN, REAL_RUNS, ROOT, TRACE_RUN, bench_files, read_json
from memrel_report import compare_plots, layout, load, prepare, site_data, verdicts


def inputs(path):
    runs = [load.load_results(path)]
    cells = load.collect_cells(runs)
    return runs, cells, verdicts.backend_spaces(runs, cells)


def figure(cell, field):
    """A cell's figure for a verdict. Release effectiveness counts only the releases of at least
    the gate's 2 MiB byte tolerance (Σ returned / Σ releasable over them): below it the gate
    calls the bytes unchanged, so a ratio of them means nothing."""
    if field != "release_effectiveness":
        return cell["metrics"][field]
    seen = [r for r in cell["metrics"]["releases"] if r["releasable"] >= 2 << 20]
    return sum(r["returned"] for r in seen) / sum(r["releasable"] for r in seen) if seen else None


@pytest.mark.parametrize("path", REAL_RUNS)
def test_each_figure_is_the_median_over_the_workloads_every_backend_of_its_space_finished(path):
    runs, cells, spaces = inputs(path)
    doc = read_json(path)
    for verdict, field in ((verdicts.release_effectiveness(cells, spaces), "release_effectiveness"),
                           (verdicts.residual(cells, spaces), "residual_bytes"),
                           (verdicts.overhead(cells, spaces), "overhead_ratio")):
        for space in verdict.spaces():
            mine = [c for c in doc["cells"] if c["setup"]["memory_space"] == space and "trace" not in c]
            ran = {}
            for c in mine:
                if c["status"] == "ok":
                    ran.setdefault(c["backend"], set()).add(c["workload"])
            common = set.intersection(*ran.values())
            for entry in (e for e in verdict.entries if e.space == space):
                values = [figure(c, field) for c in mine if c["backend"] == entry.backend
                          and c["status"] == "ok" and c["workload"] in common and figure(c, field) is not None]
                if values:
                    assert entry.value == statistics.median(values), (verdict.key, entry.backend)
                    assert (entry.low, entry.high) == (min(values), max(values))
                else:  # not applicable is said, never drawn as 0
                    assert entry.value is None and entry.note.startswith("n/a"), (verdict.key, entry.backend)


@pytest.mark.parametrize("path", REAL_RUNS)
def test_the_best_is_the_best_of_its_own_space_and_never_the_reference(path):
    runs, cells, spaces = inputs(path)
    for verdict in verdicts.all_verdicts(cells, spaces, []):
        for space in verdict.spaces():
            ranked = [e for e in verdict.entries if e.space == space and e.value is not None
                      and e.backend not in verdicts.REFERENCE_BACKENDS]
            best = verdict.best(space)
            if len(ranked) < 2:
                assert not best
                continue
            assert best
            pick = max if verdict.better == "higher" else min
            assert pick(e.value for e in ranked) in [e.value for e in best]
            assert all(e.backend != "null" for e in best)
            for e in verdict.entries:
                assert e.space == spaces.get(e.backend, e.space)  # host and device never mixed


def test_latency_is_the_geometric_mean_over_the_sizes_every_backend_measured():
    runs, cells, spaces = inputs(HOST_RUN)
    points, _ = prepare.latency_points([load.load_bench(p) for p in bench_files()])
    for verdict in verdicts.latency_verdicts(points, spaces):
        for e in verdict.entries:
            operation = "churn" if verdict.key == "churn" else "pair"
            mode = "cold" if verdict.key == "latency-cold" else "warm"
            mine = [p.us for p in points if (p.backend, p.operation, p.mode) == (e.backend, operation, mode)]
            assert e.count >= 1 and e.low >= min(mine) and e.high <= max(mine)
            assert e.low <= e.value <= e.high


def test_a_trace_verdict_counts_ooms_and_a_trace_chart_draws_the_series():
    doc = read_json(TRACE_RUN)
    runs, cells, spaces = inputs(TRACE_RUN)
    verdict = verdicts.trace_replay(cells, spaces)
    by_backend = {e.backend: e for e in verdict.entries}
    for c in doc["cells"]:
        if "trace" in c and c["status"] in ("ok", "oom"):
            assert by_backend[c["backend"]].value == c["metrics"]["overhead_ratio"]
            if c["trace"]["ooms"]:
                assert f"{c['trace']['ooms']:,} OOMs" in by_backend[c["backend"]].note
    trace = next(c["workload"] for c in doc["cells"] if "trace" in c)
    chart = site_data.trace_chart(cells, trace)
    for panel in chart.panels:
        for line in panel.lines:
            raw = next(c for c in doc["cells"] if c["backend"] == line.backend and c["workload"] == trace)
            assert line.values == raw["trace"]["series"][line.series]
    fig = compare_plots.draw_trace(chart)
    assert layout.text_overlaps(fig) == [] and layout.outside_figure(fig) == []


def _all_verdicts(path):
    runs, cells, spaces = inputs(path)
    points = []
    if path == HOST_RUN:
        points, _ = prepare.latency_points([load.load_bench(p) for p in bench_files()])
    return verdicts.all_verdicts(cells, spaces, points), points, spaces


BASELINES = [pytest.param(os.path.join(ROOT, "results", "baselines", kind), id=f"baseline-{kind}",
                          marks=pytest.mark.skipif(not os.path.isdir(os.path.join(ROOT, "results", "baselines", kind)),
                                                   reason=f"no results/baselines/{kind}"))
             for kind in ("h200", "host")]


def _baseline_verdicts(folder):
    runs = [load.load_results(os.path.join(folder, "suite.json"))]
    cells = load.collect_cells(runs)
    spaces = verdicts.backend_spaces(runs, cells)
    bench = [load.load_bench(os.path.join(folder, n)) for n in sorted(os.listdir(folder)) if n.startswith("bench-")]
    points, _ = prepare.latency_points(bench)
    return verdicts.all_verdicts(cells, spaces, points), points, spaces


@pytest.mark.parametrize("folder", BASELINES)
def test_no_label_of_a_chart_of_the_committed_baselines_touches_another(folder):
    """The real figures the published reports are made from: the H200 one spans 0 to 64 GiB."""
    items, points, spaces = _baseline_verdicts(folder)
    for verdict in items:
        fig = compare_plots.draw_verdict(verdict)
        assert layout.text_overlaps(fig) == [], verdict.key
        assert layout.outside_figure(fig) == [], verdict.key
    for space, series in site_data.latency_by_space(points, spaces).items():
        fig = compare_plots.draw_latency_compare(space, series, site_data.latency_range(points))
        assert layout.text_overlaps(fig) == [], space


@pytest.mark.parametrize("path", REAL_RUNS)
def test_no_label_of_a_verdict_chart_touches_another_or_leaves_the_figure(path):
    items, _, _ = _all_verdicts(path)
    assert items
    for verdict in items:
        fig = compare_plots.draw_verdict(verdict)
        assert layout.text_overlaps(fig) == [], verdict.key
        assert layout.outside_figure(fig) == [], verdict.key


def test_no_label_of_a_latency_chart_touches_another():
    _, points, spaces = _all_verdicts(HOST_RUN)
    for space, series in site_data.latency_by_space(points, spaces).items():
        fig = compare_plots.draw_latency_compare(space, series, site_data.latency_range(points))
        assert layout.text_overlaps(fig) == [], space


def test_the_overlap_check_sees_touching_labels():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2))
    ax = fig.subplots()
    ax.text(0.5, 0.5, "a long label here")
    ax.text(0.52, 0.5, "another label")
    assert layout.text_overlaps(fig)
    fig.text(1.2, 0.5, "off the edge")
    assert "off the edge" in layout.outside_figure(fig)


def test_line_styles_are_distinct_for_many_backends():
    styles = layout.line_styles([f"b{i}" for i in range(20)])
    assert len(set(styles.values())) == 20


def test_release_effectiveness_below_the_gates_tolerance_is_na_with_the_reason():
    """In the host run, host-malloc's releases are 0.02-0.17 MiB except temp-then-delete-x100's
    4 MiB ones: a ratio of the small ones is noise the gate ignores, so its figure comes from that
    workload alone, and without it the verdict says n/a and why instead of ranking it."""
    runs, cells, spaces = inputs(HOST_RUN)
    entry = next(e for e in verdicts.release_effectiveness(cells, spaces).entries
                 if e.backend == "host-malloc")
    assert entry.count == 1 and entry.value > 0.9, entry
    small = [c for c in cells if c.workload in ("huge", "single-large", "paired-large", "temp-then-delete")]
    entry = next(e for e in verdicts.release_effectiveness(small, spaces).entries
                 if e.backend == "host-malloc")
    assert entry.value is None and not entry.best
    assert entry.note.startswith("n/a: 0.0") and "below the gate's 2 MiB tolerance" in entry.note, entry.note


def test_trace_replay_shows_the_frontier_where_reservation_and_time_trade_off():
    runs, cells, spaces = inputs(TRACE_RUN)
    v = verdicts.trace_replay(cells, spaces)
    ranked = [e for e in v.entries if e.value is not None and e.backend not in verdicts.REFERENCE_BACKENDS]
    assert all(e.cost is not None and e.cost > 0 for e in ranked)
    for e in ranked:  # best = on the frontier: no other at most as large on both axes
        beaten = any(o is not e and o.value <= e.value and o.cost <= e.cost
                     and (o.value, o.cost) != (e.value, e.cost) for o in ranked)
        assert e.best == (not beaten) or round(e.value, 2) == min(round(o.value, 2) for o in ranked), e
    if len([e for e in ranked if e.best]) > 1:
        assert v.tradeoff == "µs per event"


def test_a_frontier_of_two_is_a_trade_off_not_a_winner():
    exact = verdicts.Entry("cuda-malloc", "device", 1.0, cost=60.0)
    pool = verdicts.Entry("cuda-async", "device", 1.3, cost=2.0)
    worse = verdicts.Entry("slow-pool", "device", 1.4, cost=3.0)
    v = verdicts.Verdict("trace-replay", "q", "a", "ratio", "lower", False, "m", "d",
                         entries=[exact, pool, worse])
    verdicts._mark_best(v, 2)
    verdicts._mark_frontier(v, 2)
    assert (exact.best, pool.best, worse.best) == (True, True, False)
    assert v.tradeoff
    from memrel_report import site
    text = site._best_text(v, "device")
    assert text.startswith("trade-off: cuda-async 1.30 at 2 µs per event; cuda-malloc 1.00 at 60"), text
