"""prepare.py: what each plot draws equals what the results file says."""

import math

import pytest

import synthetic
from conftest import REAL_RUNS, SYNTHETIC_BENCH, bench_files, load_cells, read_json
from memrel_report import load, prepare, tables
from memrel_report.units import to_us


@pytest.fixture(params=REAL_RUNS)
def real(request):
    return request.param, read_json(request.param), load_cells(request.param)


@pytest.fixture
def device(tmp_path):
    path = tmp_path / "synthetic-device-run.json"
    import json

    path.write_text(json.dumps(synthetic.device_run()))
    return str(path), read_json(str(path)), load_cells(str(path))


def _by_pair(doc):
    return {(c["backend"], c["workload"]): c for c in doc["cells"]}


def _check_heatmap(doc, cells):
    heat = prepare.effectiveness_heatmap(cells)
    pairs = _by_pair(doc)
    assert sorted(heat.rows) == sorted({c["backend"] for c in doc["cells"]})
    assert sorted(heat.cols) == sorted({c["workload"] for c in doc["cells"]})
    for i, backend in enumerate(heat.rows):
        for j, workload in enumerate(heat.cols):
            cell = pairs.get((backend, workload))
            if cell is None:
                assert heat.kinds[i][j] == "none"
                continue
            value = cell["metrics"]["release_effectiveness"]
            assert heat.values[i][j] == value
            assert heat.statuses[i][j] == cell["status"]
            if cell["status"] != "ok":
                assert heat.kinds[i][j] == "status"
            elif value is None:
                assert heat.kinds[i][j] == "na"  # undefined stays undefined, never 0
            else:
                assert heat.kinds[i][j] == "value"


def test_heatmap_is_the_release_effectiveness_of_each_cell(real):
    _, doc, cells = real
    _check_heatmap(doc, cells)


def test_heatmap_of_device_cells(device):
    _, doc, cells = device
    _check_heatmap(doc, cells)
    heat = prepare.effectiveness_heatmap(cells)
    kinds = {(r, c): heat.kinds[i][j] for i, r in enumerate(heat.rows) for j, c in enumerate(heat.cols)}
    assert kinds[("cuda-async", "single-large")] == "status"
    assert kinds[("cuda-malloc", "huge")] == "status"
    assert kinds[("torch-caching", "huge")] == "none"


def test_host_run_has_undefined_effectiveness_shown_as_na():
    from conftest import HOST_RUN

    heat = prepare.effectiveness_heatmap(load_cells(HOST_RUN))
    j = heat.cols.index("del-without-release")
    assert [heat.kinds[i][j] for i in range(len(heat.rows))] == ["na", "na"]


def _check_timelines(doc, cells):
    for cell, raw in zip(cells, doc["cells"]):
        tl = prepare.timeline(cell)
        assert tl.steps == list(range(len(raw["steps"])))
        for name in prepare.TIMELINE_SERIES:
            assert tl.series[name] == [s["after"][name] for s in raw["steps"]]
        assert tl.marks == [(m["step"], m["label"]) for m in raw["marks"]]
        assert tl.releases == [i for i, s in enumerate(raw["steps"]) if s["op"] == "release"]
        assert tl.ooms == [i for i, s in enumerate(raw["steps"]) if s["outcome"] == "oom"]
        for step, label in tl.marks:
            # A workload mark's x is its own step in steps[]; a program's marks sit on the
            # program step that made them.
            s = raw["steps"][step]
            assert (s["op"] == "mark" and s["id"] == label) or s["op"] == "program"


def test_timeline_is_steps_after(real):
    _, doc, cells = real
    _check_timelines(doc, cells)


def test_timeline_of_device_cells(device):
    _, doc, cells = device
    _check_timelines(doc, cells)
    assert prepare.timeline(next(c for c in cells if c.status == "oom")).ooms == [2]


def _check_phases(doc, cells):
    for workload in prepare.workloads(cells):
        chart = prepare.phase_chart(cells, workload)
        raws = [c for c in doc["cells"] if c["workload"] == workload]
        with_marks = [c for c in raws if c["marks"]]
        assert [p.label for p in chart.panels] == [c["backend"] for c in with_marks]
        assert [n[0] for n in chart.not_shown] == [c["backend"] for c in raws if not c["marks"]]
        for panel, raw in zip(chart.panels, with_marks):
            assert panel.marks == [m["label"] for m in raw["marks"]]
            for name in prepare.PHASE_SERIES:
                assert panel.series[name] == [m["at"][name] for m in raw["marks"]]
            assert panel.context_bytes == raw["setup"]["process_used_after_context"]
            assert panel.memory_space == raw["setup"]["memory_space"]
            if panel.memory_space == "host":
                assert panel.context_bytes is None  # host: no CUDA context


def test_phase_chart_is_the_marks(real):
    _, doc, cells = real
    _check_phases(doc, cells)


def test_phase_chart_of_device_cells(device):
    _, doc, cells = device
    _check_phases(doc, cells)
    chart = prepare.phase_chart(cells, "single-large")
    assert chart.not_shown == [("cuda-async", "unavailable", "no CUDA device (synthetic)")]
    assert chart.panels[0].context_bytes == synthetic.CONTEXT


def _check_attribution(cells):
    for cell in prepare.torch_cells(cells):
        panel = prepare.attribution(cell)
        setup = cell.raw["setup"]
        for i, mark in enumerate(cell.raw["marks"]):
            at = mark["at"]
            if at["process_used"] is None:
                assert all(panel.segments[n][i] is None for n in prepare.ATTRIBUTION_SEGMENTS)
                continue
            seg = {n: panel.segments[n][i] for n in prepare.ATTRIBUTION_SEGMENTS}
            assert sum(seg.values()) == at["process_used"]  # the parts add up to NVML, exactly
            assert seg["context"] == (setup["process_used_after_context"] or 0)
            assert seg["framework_init"] == (setup["backend_init_process_bytes"] or 0)
            assert seg["live"] == (at["allocated"] or 0)
            assert seg["cache"] == at["reserved"] - (at["allocated"] or 0)


def test_attribution_of_real_torch_cells(real):
    _, _, cells = real
    if not prepare.torch_cells(cells):
        pytest.skip("no torch cells in this results file")
    _check_attribution(cells)


def test_attribution_of_synthetic_torch_cells(device):
    _, _, cells = device
    torch = prepare.torch_cells(cells)
    assert [c.backend for c in torch] == ["torch-caching", "torch-expandable"]
    _check_attribution(cells)
    caching = prepare.attribution(torch[0])
    assert caching.segments["framework_init"] == [synthetic.TORCH_INIT] * 3
    assert caching.segments["remainder"] == [0, 0, 0]
    squeezed = prepare.attribution(torch[1])
    assert squeezed.segments["remainder"][0] < 0  # NVML below the sum of the parts: kept negative


def test_no_torch_cells_in_the_host_run():
    from conftest import HOST_RUN

    assert prepare.torch_cells(load_cells(HOST_RUN)) == []


@pytest.mark.parametrize("name, parsed", [
    ("pair/host-malloc/warm/4096", ("pair", "host-malloc", "warm", 4096)),
    ("churn/cuda-async/seed42/1048576/real_time", ("churn", "cuda-async", "seed42", 1048576)),
    ("churn/cuda-async/warm/1048576/manual_time", ("churn", "cuda-async", "warm", 1048576)),
    ("free/cuda-malloc/cold/512/repeats:3/threads:1", ("free", "cuda-malloc", "cold", 512)),
    ("BM_SomethingElse", None),
    ("pair/host-malloc/warm/4KiB", None),
    ("pair//warm/4096", None),
])
def test_bench_names(name, parsed):
    assert prepare.parse_bench_name(name) == parsed


def test_latency_takes_the_median_of_the_repetitions():
    # The rule itself is tested on its own fixture (test_gbench_reading.py); here, that the
    # synthetic file's median aggregates agree with it.
    bench = load.load_bench(SYNTHETIC_BENCH)
    points, skipped = prepare.latency_points([bench])
    by_name = {p.name: p for p in points}
    entries = read_json(SYNTHETIC_BENCH)["benchmarks"]
    medians = {e["run_name"]: e for e in entries if e.get("aggregate_name") == "median"}
    for name, entry in medians.items():
        assert by_name[name].us == pytest.approx(to_us(entry["real_time"], entry["time_unit"]))
        assert by_name[name].source == f"median of {entry['repetitions']}"
    # no aggregates: the median of the iterations, here a single one
    single = by_name["pair/synthetic-host/warm/8192/real_time"]
    its = [e for e in entries if e["run_name"] == single.name]
    assert len(its) == 1
    assert single.us == pytest.approx(to_us(its[0]["real_time"], its[0]["time_unit"]))
    assert single.source == "median of 1"
    # units: 1300-1450 ns -> about 1.39 µs; 0.92 ms -> 920 µs
    assert by_name["pair/cuda-async/warm/512"].us == pytest.approx(1.39)
    assert by_name["release/cuda-async/warm/8192"].us == pytest.approx(920.0)
    reasons = dict(skipped)
    assert reasons["pair/cuda-malloc/warm/4294967296"] == "skipped: out of memory (synthetic)"
    assert "not operation/backend/mode/bytes" in reasons["BM_SomethingElse"]


def test_latency_series_are_sorted_by_size_and_grouped():
    points, _ = prepare.latency_points([load.load_bench(p) for p in bench_files()])
    series = prepare.latency_series(points)
    for backend, lines in series.items():
        for line in lines:
            assert line.bytes == sorted(line.bytes)
            expected = sorted((p.bytes, p.us) for p in points
                              if (p.backend, p.operation, p.mode) == (backend, line.operation, line.mode))
            assert list(zip(line.bytes, line.us)) == expected


def test_a_benchmark_given_twice_is_taken_once():
    bench = load.load_bench(SYNTHETIC_BENCH)
    once, _ = prepare.latency_points([bench])
    twice, skipped = prepare.latency_points([bench, bench])
    assert len(twice) == len(once)
    assert sum("already given" in why for _, why in skipped) == len(once)


def test_mark_table_has_exact_bytes(real):
    path, doc, cells = real
    for workload in prepare.workloads(cells):
        table = tables.marks(cells, workload)
        marks = [m for c in doc["cells"] if c["workload"] == workload for m in c["marks"]]
        assert len(table.rows) == len(marks)
        for row, mark in zip(table.rows, marks):
            assert row[1] == mark["label"]
            requested = row[3]
            assert requested.sub == f"{mark['at']['requested']:,} B"


def test_metrics_table_has_a_row_per_cell(real):
    _, doc, cells = real
    table = tables.metrics(cells)
    assert len(table.rows) == len(doc["cells"])
    col = table.headers.index("release effectiveness")
    for row, raw in zip(table.rows, doc["cells"]):
        value = raw["metrics"]["release_effectiveness"]
        assert row[col] == ("n/a" if value is None else f"{value:.3f}")


def test_spread_labels_keeps_order_gap_and_bounds():
    from memrel_report.plots import spread_labels

    spots = spread_labels([0, 300, 302, 304], 0, 306, 10)
    assert spots == sorted(spots)
    assert all(b - a >= 10 - 1e-9 for a, b in zip(spots, spots[1:]))
    assert 0 <= spots[0] and spots[-1] <= 306
    assert spread_labels([5, 50], 0, 100, 10) == [5, 50]  # far apart: left where they are


def test_axis_ticks_cover_the_data():
    from memrel_report.plots import size_ticks, time_ticks

    for low, high in [(1.2, 1100), (0.019, 0.042), (85, 270), (5, 5), (0.01, 1e6)]:
        ticks = time_ticks(low, high)
        assert ticks[0] < low and ticks[-1] > high and len(ticks) <= 12
    assert size_ticks(512, 512 << 20) == [2.0 ** k for k in range(9, 30, 4)]
    assert size_ticks(512, 4 << 30)[-1] == 4 << 30  # the largest size measured is labelled
    assert math.log2(size_ticks(4096, 4096)[0]) == 12


def test_real_host_bench():
    """tests/data/host-bench.json: memrel_bench --backend host-malloc --quick (a real run)."""
    from conftest import HOST_BENCH
    import os

    if not os.path.exists(HOST_BENCH):
        pytest.skip("tests/data/host-bench.json absent")
    entries = read_json(HOST_BENCH)["benchmarks"]
    points, skipped = prepare.latency_points([load.load_bench(HOST_BENCH)])
    assert skipped == []  # every name is operation/backend/mode/bytes (+ Google Benchmark's suffixes)
    medians = {e["run_name"]: e for e in entries if e.get("aggregate_name") == "median"}
    assert {p.name for p in points} == set(medians)
    for p in points:
        entry = medians[p.name]
        if p.operation == "churn":  # per step, not per whole sequence
            assert p.us == pytest.approx(entry["ns_per_op"] / 1000)
        else:
            assert p.us == pytest.approx(to_us(entry["real_time"], entry["time_unit"]))
    assert {p.mode for p in points} >= {"warm", "cold"}


def test_heatmap_puts_device_backends_above_host_ones(device):
    from conftest import HOST_RUN
    from memrel_report import load

    path, doc, _ = device
    cells = load.collect_cells([load.load_results(HOST_RUN), load.load_results(path)])
    spaces = {c.label: c.raw["setup"]["memory_space"] for c in cells}
    assert set(spaces.values()) == {"host", "device"}
    heat = prepare.effectiveness_heatmap(cells, spaces)
    assert heat.row_spaces == [spaces[r] for r in heat.rows]
    assert heat.row_spaces == sorted(heat.row_spaces, key=lambda s: s != "device")  # device first
