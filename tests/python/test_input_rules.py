"""The report reads its inputs by the same rules as the C++ tools (docs/inputs.md): regular files
only, opened without blocking, under a cap; no key twice in one object, no NaN, no number a
double cannot hold; figures within 2^53; a benchmark twice in one file is refused. Each is one
line naming the file, exit 2 from the command line."""

import copy
import json
import os
import threading

import pytest

from conftest import DATA, HOST_RUN, read_json
from memrel_report import gate_verdict, load

INPUT = os.path.join(DATA, "gbench-reading", "input.json")


def _error(fn, path):
    with pytest.raises(load.InputError) as e:
        fn(path)
    text = str(e.value)
    assert text.startswith(f"{path}: "), text
    assert "\n" not in text
    return text


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = str(tmp_path / "run.json")
    os.mkfifo(fifo)
    result = {}
    reader = threading.Thread(target=lambda: result.setdefault("e", _error(load.load_results, fifo)),
                              daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():
        os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))  # not enough to unblock: fail loudly
        pytest.fail("opening a FIFO blocked: inputs must be opened without blocking")
    assert "a FIFO, not a regular file" in result["e"]


@pytest.mark.parametrize("loader", [load.load_results, load.load_bench, gate_verdict.load_verdict])
def test_devices_and_folders_are_refused(tmp_path, loader):
    assert "a character device, not a regular file" in _error(loader, "/dev/zero")
    assert "a folder, not a regular file" in _error(loader, str(tmp_path))


def test_a_file_over_its_cap_is_refused_by_its_size(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(load.MAX_JSON_BYTES + 1)  # sparse
    assert "more than the 128 MiB" in _error(load.load_results, str(big))


def _write(tmp_path, text):
    p = tmp_path / "bad.json"
    p.write_text(text)
    return str(p)


def test_a_key_twice_in_one_object_is_refused_at_its_place(tmp_path):
    text = json.dumps(read_json(HOST_RUN))
    at = text.index('"status": "ok"')
    path = _write(tmp_path, text[:at] + '"status": "crashed", ' + text[at:])
    what = _error(load.load_results, path)
    assert '/cells/' in what and 'key "status" appears twice in one object' in what, what


@pytest.mark.parametrize("literal, what", [
    ("NaN", "NaN is not JSON"), ("-Infinity", "-Infinity is not JSON"),
    ("1e400", "number overflow parsing '1e400'"),
])
def test_numbers_json_cannot_hold_are_refused(tmp_path, literal, what):
    text = json.dumps(read_json(HOST_RUN))
    at = text.index('"wall_ns": ') + len('"wall_ns": ')
    path = _write(tmp_path, text[:at] + literal + ', "x": ' + text[at:])
    assert what in _error(load.load_results, path)


@pytest.mark.parametrize("value", [2**64, 2**63 + 1, 2**53 + 1, -4096])
def test_byte_figures_beyond_2_to_53_or_negative_are_refused(tmp_path, value):
    doc = read_json(HOST_RUN)
    doc["cells"][0]["metrics"]["peak_requested"] = value
    what = _error(load.load_results, _write(tmp_path, json.dumps(doc)))
    assert "cells[0].metrics.peak_requested: expected an integer from 0 to 2^53" in what, what


def test_the_same_cell_twice_is_refused(tmp_path):
    doc = read_json(HOST_RUN)
    crashed = copy.deepcopy(doc["cells"][0])
    crashed["status"] = "crashed"
    doc["cells"].append(crashed)
    what = _error(load.load_results, _write(tmp_path, json.dumps(doc)))
    assert "is also cells[0]: a cell twice in one file cannot be judged" in what, what


def _bench(tmp_path, edit):
    doc = copy.deepcopy(read_json(INPUT))
    edit(doc["benchmarks"])
    return _write(tmp_path, json.dumps(doc))


def test_negative_times_are_refused_not_improvements(tmp_path):
    def negative(entries):
        entries[0]["real_time"] = -61.5
    assert "real_time -61.5 ns is impossible" in _error(load.load_bench, _bench(tmp_path, negative))


def test_byte_counters_out_of_range_are_refused(tmp_path):
    def negative(entries):
        entries[0]["reserved"] = -1
    assert 'counter "reserved" = -1 is impossible' in _error(load.load_bench, _bench(tmp_path, negative))


def test_the_same_benchmark_twice_is_refused(tmp_path):
    def appended(entries):
        entries.append(copy.deepcopy(entries[0]))
    assert "repetition_index 0 a second time" in _error(load.load_bench, _bench(tmp_path, appended))

    def second_median(entries):
        entries.append(copy.deepcopy(next(e for e in entries if e.get("aggregate_name") == "median")))
    assert 'a second "median" aggregate' in _error(load.load_bench, _bench(tmp_path, second_median))
