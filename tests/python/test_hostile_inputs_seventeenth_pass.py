"""What the sixteenth adversarial pass of issue 23 left open and the seventeenth found
(docs/inputs.md, "Seventeenth pass"): each test fails on the code before its fix."""

import json
import math
import os
import pickle
import struct
import sys

import pytest

from conftest import SCRIPTS
from test_hostile_inputs import MEMREL, backend_file_beside, memrel, needs_memrel, refused

HASH_MODULUS = 2 ** 61 - 1


def dict_pickle(keys, protocol=4):
    """A snapshot-shaped pickle whose "segments" dict holds KEYS, each mapped to 0."""
    return pickle.dumps({"segments": dict.fromkeys(keys, 0), "device_traces": []},
                        protocol=protocol)


def tuples_that_share_one_hash(count):
    """(a, b) pairs of small integers with one tuple hash: for each a, the b that brings the
    xxHash-style accumulator of CPython's tuplehash to one value (kept when b is below the modulus,
    where an int's hash is itself)."""
    mask, prime1, prime2, prime5 = (1 << 64) - 1, 11400714785074694791, 14029467366897019727, \
        2870177450012600261

    def after_one_lane(lane):
        acc = (prime5 + lane * prime2) & mask
        return (((acc << 31) | (acc >> 33)) & mask) * prime1 & mask

    inverse = pow(prime2, -1, 1 << 64)
    pairs, a = [], 1
    while len(pairs) < count:
        b = ((12345 - after_one_lane(a)) * inverse) & mask
        if b < HASH_MODULUS:
            pairs.append((a, b))
        a += 1
    return pairs


COLLIDING = {
    "ints-k-times-the-modulus": lambda: dict_pickle(k * HASH_MODULUS for k in range(1, 6001)),
    "negative-ints": lambda: dict_pickle(-k * HASH_MODULUS for k in range(1, 6001)),
    "ints-as-text-protocol-0": lambda: dict_pickle((k * HASH_MODULUS for k in range(1, 6001)),
                                                   protocol=0),
    "tuples-of-small-ints": lambda: dict_pickle(tuples_that_share_one_hash(6000)),
}


@needs_memrel
@pytest.mark.parametrize("kind", sorted(COLLIDING))
def test_dict_keys_whose_hashes_collide_are_refused_before_the_dict_is_built(tmp_path, kind):
    """c7-pk-dict-hash-collision-quadratic (sixteenth pass): keys k * (2^61 - 1) all hash to 0, so
    each insert probes past every earlier one: 80,000 of them (1.1 MB) took 42 s in the C
    unpickler. Such keys now take the careful path, which counts each key's collisions."""
    pairs = tuples_that_share_one_hash(3)
    assert len({hash(p) for p in pairs}) == 1, "the tuples meant to collide do not"
    (tmp_path / "s.pickle").write_bytes(COLLIDING[kind]())
    line = refused(memrel("-q", "trace", "import", "-o", "t.memtrace", "s.pickle", cwd=tmp_path,
                          timeout=300), "s.pickle", "hashes collide")
    assert "steps" in line
    assert os.listdir(tmp_path) == ["s.pickle"]


def scan():
    sys.path.insert(0, SCRIPTS)
    try:
        from memrel_trace import pickle_scan
    finally:
        sys.path.pop(0)
    return pickle_scan


@pytest.mark.parametrize("value, careful", [(HASH_MODULUS - 1, False), (HASH_MODULUS, True),
                                            (-HASH_MODULUS + 1, False), (-HASH_MODULUS, True),
                                            (1 << 63, True), (10 ** 30, True), (2 ** 53, False)])
@pytest.mark.parametrize("protocol", range(0, 6))
def test_the_scan_sends_integers_whose_hash_others_can_share_to_the_careful_path(value, careful,
                                                                                 protocol):
    """Below 2^61 - 1 an int's hash is itself, unique; from there on keys can share one."""
    data = pickle.dumps({"segments": [value], "x": "y" * 40}, protocol=protocol)
    assert scan().hashes_something(data) is careful


@pytest.mark.parametrize("protocol", range(0, 6))
def test_the_scan_sends_a_nan_to_the_careful_path_where_every_nan_hashes_alike(protocol):
    """Before Python 3.10 every NaN hashes to 0 and equals nothing (100,000 NaN keys: quadratic
    as the ints); from 3.10 on a NaN hashes by its identity and the fast path keeps it."""
    data = pickle.dumps({"segments": [math.nan, 1.5], "x": "y"}, protocol=protocol)
    assert scan().hashes_something(data) is (sys.version_info < (3, 10))
    assert scan().hashes_something(pickle.dumps({"s": [1.5, -0.0, math.inf]},
                                                protocol=protocol)) is False


OLD_PYTHON = os.path.expanduser("~/.pyenv/versions/3.9.18/bin/python3.9")


@needs_memrel
@pytest.mark.skipif(not os.access(OLD_PYTHON, os.X_OK),
                    reason="no Python 3.9 here (pyenv) to stand for one where NaNs collide")
def test_nan_keys_are_refused_where_every_nan_hashes_alike(tmp_path):
    body = b"".join(b"G" + struct.pack(">d", math.nan) + b"K\x00" for _ in range(6000))
    (tmp_path / "s.pickle").write_bytes(b"\x80\x04}(" + body + b"u.")
    r = memrel("-q", "trace", "import", "-o", "t.memtrace", "s.pickle", cwd=tmp_path,
               env={"MEMREL_PYTHON": OLD_PYTHON}, timeout=300)
    refused(r, "s.pickle", "hashes collide")


@needs_memrel
def test_history_plots_of_backends_that_differ_only_by_case_are_distinct_files(tmp_path):
    """c6-history-report-case-only-plot-names (sixteenth pass): nights of 'Foo' and of 'foo'
    gave history-latency-Foo.png and history-latency-foo.png, one file on a case-insensitive
    file system or in a zip."""
    for name, run in (("Foo", "f1.json"), ("foo", "f2.json")):
        doc = json.loads(backend_file_beside(tmp_path, f"{name}.json").read_text())
        doc["name"] = name
        (tmp_path / f"{name}.json").write_text(json.dumps(doc))
        r = memrel("-q", "run", "-b", f"./{name}.json", "-w", "temp-then-delete", "-o", run,
                   cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    r = memrel("-q", "history", "--db", "h.db", "add", "f1.json", "f2.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = memrel("-q", "report", "--history", "h.db", "--out", "rep", cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    names = os.listdir(tmp_path / "rep")
    assert len({n.lower() for n in names}) == len(names), sorted(names)
    assert any(n.startswith("history-latency-Foo-") for n in names), sorted(names)
    page = (tmp_path / "rep" / "history-latency.html").read_text()
    for n in names:
        if n.startswith("history-latency-") and n.endswith(".svg"):
            assert n in page or n[:-4] in page, n


@needs_memrel
@pytest.mark.parametrize("capacity", ["1", "9"])
def test_a_host_capacity_too_small_for_a_workload_is_the_options_fault(tmp_path, capacity):
    """c4-run-host-capacity-1-byte (sixteenth pass): `--host-capacity 1` passed the option
    check, then every host cell of fragmentation failed ("device_fraction resolves to 0
    bytes"), exit 3, a results file of error cells."""
    refused(memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete,fragmentation",
                   "--host-capacity", capacity, "-o", "o.json", cwd=tmp_path),
            f"--host-capacity {capacity}", "fragmentation", "0 bytes")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_a_small_host_capacity_that_every_workload_fits_still_runs(tmp_path):
    r = memrel("-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "--host-capacity",
               "1", "-o", "o.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    cells = json.loads((tmp_path / "o.json").read_text())["cells"]
    assert [c["status"] for c in cells] == ["ok"]


def test_trace_import_still_takes_the_fast_path_for_a_plain_snapshot():
    """The careful path is for pickles that need it: a snapshot of addresses, sizes and
    microseconds (all below 2^53) is not sent there."""
    snapshot = {"segments": [{"address": 0x7f00_0000_0000, "total_size": 20 << 20,
                              "blocks": [{"size": 512, "state": "active_allocated"}]}],
                "device_traces": [[{"action": "alloc", "addr": 0x7f00_0000_0000, "size": 512,
                                    "time_us": 1_733_000_000_000_000, "stream": 0}]]}
    for protocol in range(2, 6):
        assert scan().hashes_something(pickle.dumps(snapshot, protocol=protocol)) is False

