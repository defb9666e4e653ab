"""The memrel gbench reading rule (docs/benchmark-json.md): gbench.read_series reads
tests/data/gbench-reading/input.json exactly as expected.json, worked out by hand, says. The
gate's C++ reader is tested on the same two files."""

import copy
import json
import os

import pytest

from conftest import DATA, read_json
from memrel_report import gbench, load, prepare

FIXTURE = os.path.join(DATA, "gbench-reading")
INPUT = os.path.join(FIXTURE, "input.json")
EXPECTED = os.path.join(FIXTURE, "expected.json")


def _series():
    return gbench.read_series(read_json(INPUT), INPUT)


def _number(actual, expected):
    assert isinstance(actual, (int, float)) and not isinstance(actual, bool), actual
    return actual == pytest.approx(expected, rel=1e-12, abs=0)


def test_the_fixture_is_this_rule():
    assert read_json(EXPECTED)["rule"] == gbench.RULE


def test_the_fixture_reads_as_expected():
    expected = read_json(EXPECTED)["series"]
    got = _series()
    assert [s.name for s in got] == [e["name"] for e in expected]  # rule 6: first-entry order
    for s, e in zip(got, expected):
        where = s.name
        assert s.skipped == e["skipped"], where
        assert s.repetitions == e["repetitions"], where
        assert s.source == e["source"], where
        if e["figure_ns"] is None:
            assert s.figure_ns is None, where
        else:
            assert _number(s.figure_ns, e["figure_ns"]), (where, s.figure_ns)
        assert sorted(s.counters) == sorted(e["counters"]), where
        for name, value in e["counters"].items():
            if name in gbench.BYTE_COUNTERS:  # rounded: exact integers
                assert type(s.counters[name]) is int and s.counters[name] == value, (where, name)
            else:
                assert _number(s.counters[name], value), (where, name, s.counters[name])


def test_the_fixture_tells_the_rule_from_its_neighbours():
    """The fixture keeps the cases apart that a reader could get wrong: if one of these fails,
    the fixture no longer catches that reader."""
    entries = read_json(INPUT)["benchmarks"]
    expected = {e["name"]: e for e in read_json(EXPECTED)["series"]}

    def its(name, key):
        return [e[key] for e in entries
                if e.get("run_name") == name and e["run_type"] == "iteration"]

    warm = "pair/host-malloc/warm/4096"
    times = its(warm, "real_time")
    counters = expected[warm]["counters"]
    assert sum(times) / len(times) != expected[warm]["figure_ns"]  # the median, not the mean
    assert gbench.median(its(warm, "reserved")) != counters["reserved"]  # the majority value
    assert its(warm, "max_bytes_used")[-1] == counters["max_bytes_used"]  # the last one...
    assert gbench.typical(its(warm, "max_bytes_used")) != counters["max_bytes_used"]  # not typical
    median_aggregate = next(e for e in entries if e["name"] == warm + "_median")
    assert median_aggregate["reserved"] != counters["reserved"]  # iterations over aggregates
    cold = "pair/host-malloc/cold/4096"
    assert len(its(cold, "real_time")) == 4
    assert expected[cold]["figure_ns"] not in [t * 1e3 for t in its(cold, "real_time")]


def _bad(tmp_path, edit):
    doc = copy.deepcopy(read_json(INPUT))
    edit(doc["benchmarks"])
    path = tmp_path / "bad-bench.json"
    path.write_text(json.dumps(doc))
    return str(path), doc


def _set(index, key, value):
    def edit(entries):
        entries[index][key] = value
    return edit


def _drop(index, key):
    def edit(entries):
        del entries[index][key]
    return edit


@pytest.mark.parametrize("edit, what", [
    (_set(0, "time_unit", "fortnights"),
     'benchmarks[0] (pair/host-malloc/warm/4096): unknown time_unit "fortnights"'),
    (_set(11, "time_unit", 1000),
     "benchmarks[11] (release/host-malloc/warm/536870912): unknown time_unit 1000"),
    (_drop(1, "real_time"), 'benchmarks[1] (pair/host-malloc/warm/4096): no numeric "real_time"'),
    (_set(3, "real_time", "58.0"),
     'benchmarks[3] (pair/host-malloc/warm/4096): no numeric "real_time"'),
    (_drop(19, "real_time"),  # a median aggregate is read
     'benchmarks[19] (free/host-malloc/warm/4096_median): no numeric "real_time"'),
    # iterations: a whole number from 1 (the sixth pass: -5 and 1.5 were read)
    (_set(0, "iterations", -5),
     "benchmarks[0] (pair/host-malloc/warm/4096): iterations -5 is impossible "
     "(a whole number from 1 to 2^53)"),
    (_set(0, "iterations", 1.5),
     "benchmarks[0] (pair/host-malloc/warm/4096): iterations 1.5 is impossible "
     "(a whole number from 1 to 2^53)"),
    (_set(0, "iterations", 0),
     "benchmarks[0] (pair/host-malloc/warm/4096): iterations 0 is impossible "
     "(a whole number from 1 to 2^53)"),
])
def test_bad_input_names_the_entry(tmp_path, edit, what):
    path, doc = _bad(tmp_path, edit)
    with pytest.raises(load.InputError) as e:
        gbench.read_series(doc, path)
    assert str(e.value) == f"{path}: {what}"
    with pytest.raises(load.InputError) as e:  # the report refuses the file when it loads it
        load.load_bench(path)
    assert str(e.value).startswith(f"{path}: benchmarks[")


@pytest.mark.parametrize("edit", [
    _drop(7, "real_time"),                    # a stddev aggregate: ignored entirely
    _set(8, "time_unit", "percent"),          # a cv aggregate: ignored entirely
    _set(25, "time_unit", "fortnights"),      # an entry that did not run
    _drop(0, "time_unit"),                    # absent: ns
])
def test_what_the_rule_does_not_read_is_not_checked(tmp_path, edit):
    path, doc = _bad(tmp_path, edit)
    assert gbench.read_series(doc, path) == _series()
    assert load.load_bench(path).entries == doc["benchmarks"]


def test_not_google_benchmark_json():
    with pytest.raises(load.InputError, match='no "benchmarks" array'):
        gbench.read_series({"cells": []}, "x.json")
    with pytest.raises(load.InputError, match=r'benchmarks\[0\]: no "name"'):
        gbench.read_series({"benchmarks": [{"real_time": 1.0}]}, "x.json")


def test_the_report_takes_its_figures_from_the_rule():
    points, skipped = prepare.latency_points([load.load_bench(INPUT)])
    expected = {e["name"]: e for e in read_json(EXPECTED)["series"]}
    by_name = {p.name: p for p in points}
    churn = by_name["churn/host-malloc-retain/cold/1048576"]
    assert churn.us == pytest.approx(expected[churn.name]["counters"]["ns_per_op"] / 1000)
    for p in points:
        assert p.source == expected[p.name]["source"]
        if p.operation != "churn":
            assert p.us == pytest.approx(expected[p.name]["figure_ns"] / 1000, rel=1e-12)
    reasons = dict(skipped)
    for name, e in expected.items():
        if e["skipped"] is not None:
            assert reasons[name] == f"skipped: {e['skipped']}"
    assert reasons["pair/host-malloc-retain/cold"] == "name is not operation/backend/mode/bytes"
    assert set(by_name) | set(reasons) == set(expected)


def test_a_series_without_a_figure_is_listed(tmp_path):
    path = tmp_path / "stddev-only.json"
    path.write_text(json.dumps({"context": {}, "benchmarks": [
        {"name": "pair/x/warm/512_stddev", "run_name": "pair/x/warm/512", "run_type": "aggregate",
         "aggregate_name": "stddev", "real_time": 0.5, "time_unit": "ns"}]}))
    points, skipped = prepare.latency_points([load.load_bench(str(path))])
    assert points == []
    assert skipped == [("pair/x/warm/512", prepare.NO_FIGURE)]
