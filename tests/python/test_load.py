"""load.py: valid files are read as written; unusable ones give one clear line naming the file."""

import copy
import json

import pytest

from conftest import HOST_RUN, REAL_RUNS, SYNTHETIC_BENCH, read_json
from memrel_report import load


@pytest.mark.parametrize("path", REAL_RUNS)
def test_real_results_load_as_written(path):
    run = load.load_results(path)
    doc = read_json(path)
    assert run.context == doc["context"]
    assert run.cells == doc["cells"]


def _write(tmp_path, content, name="bad.json"):
    p = tmp_path / name
    p.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(p)


def _host_doc():
    return read_json(HOST_RUN)


@pytest.mark.parametrize("content, what", [
    ("", "empty file"),
    ("  \n", "empty file"),
    ('{"schema": "memrel.results/1", "cells": [', "malformed JSON at line 1"),
    ("[1, 2]", "not a results document"),
    ({"context": {}, "cells": []}, 'missing "schema"'),
    ({"schema": "memrel.results/2", "context": {}, "cells": []}, 'schema "memrel.results/2" is not "memrel.results/1"'),
    ({"schema": "memrel.cell/1"}, "a single cell's file"),
    ({"benchmarks": []}, "pass it with --bench"),
    ({"schema": "memrel.results/1", "cells": []}, 'missing "context"'),
    ({"schema": "memrel.results/1", "context": {}, "cells": {}}, "document.cells: expected an array"),
])
def test_unusable_results_are_refused(tmp_path, content, what):
    path = _write(tmp_path, content)
    with pytest.raises(load.InputError) as e:
        load.load_results(path)
    assert str(e.value).startswith(path + ": ")
    assert what in str(e.value)
    assert "\n" not in str(e.value)


def test_missing_file(tmp_path):
    with pytest.raises(load.InputError, match="cannot read"):
        load.load_results(str(tmp_path / "nope.json"))


def test_not_utf8(tmp_path):
    p = tmp_path / "bin.json"
    p.write_bytes(b"\xff\xfe{}")
    with pytest.raises(load.InputError, match="not UTF-8"):
        load.load_results(str(p))


def _set(*path_and_value):
    """An edit of the host document: set doc[p0][p1]...[pn] = value."""
    *path, value = path_and_value

    def edit(doc):
        for key in path[:-1]:
            doc = doc[key]
        doc[path[-1]] = value
    return edit


def _drop(*path):
    def edit(doc):
        for key in path[:-1]:
            doc = doc[key]
        del doc[path[-1]]
    return edit


@pytest.mark.parametrize("edit, where", [
    (_set("cells", 0, "marks", 0, "at", "reserved", "12"),
     'cells[0].marks[0].at.reserved: expected an integer from 0 to 2^53 or null, got "12"'),
    (_drop("cells", 1, "steps", 3, "after", "requested"), 'cells[1].steps[3].after: missing "requested"'),
    (_set("cells", 2, "metrics", "release_effectiveness", "high"),
     "cells[2].metrics.release_effectiveness: expected a number or null"),
    (_set("cells", 0, "status", "fine"), 'cells[0].status: "fine" is none of'),
    (_set("cells", 0, "schema", "memrel.cell/0"), 'cells[0].schema: "memrel.cell/0"'),
    (_set("cells", 0, "marks", 0, "step", True), "cells[0].marks[0].step: expected an integer from 0 to 2^53, got true"),
    (_set("cells", 0, "metrics", "median_latency_ns", "alloc", 1.5), "median_latency_ns.alloc: expected an integer"),
    (_drop("cells", 0, "setup", "memory_space"), 'cells[0].setup: missing "memory_space"'),
])
def test_wrong_fields_name_their_place(tmp_path, edit, where):
    doc = _host_doc()
    edit(doc)
    path = _write(tmp_path, doc)
    with pytest.raises(load.InputError) as e:
        load.load_results(path)
    assert where in str(e.value)


def test_the_same_pair_in_two_runs_is_kept_apart():
    run = load.load_results(HOST_RUN)
    cells = load.collect_cells([run, run])
    labels = {c.label for c in cells}
    assert labels == {"host-malloc #1", "host-malloc #2", "host-malloc-retain #1", "host-malloc-retain #2"}
    single = load.collect_cells([run])
    assert {c.label for c in single} == {"host-malloc", "host-malloc-retain"}


def test_bench_files(tmp_path):
    bench = load.load_bench(SYNTHETIC_BENCH)
    assert len(bench.entries) == len(read_json(SYNTHETIC_BENCH)["benchmarks"])
    with pytest.raises(load.InputError, match="pass it without --bench"):
        load.load_bench(HOST_RUN)
    bad = copy.deepcopy(read_json(SYNTHETIC_BENCH))
    bad["benchmarks"][0]["time_unit"] = "fortnights"
    with pytest.raises(load.InputError, match=r'benchmarks\[0\].time_unit: "fortnights"'):
        load.load_bench(_write(tmp_path, bad))
    bad["benchmarks"][0] = {"name": "pair/x/warm/1"}
    with pytest.raises(load.InputError, match=r'benchmarks\[0\]: missing "real_time"'):
        load.load_bench(_write(tmp_path, bad))
    with pytest.raises(load.InputError, match="empty file"):
        load.load_bench(_write(tmp_path, ""))
