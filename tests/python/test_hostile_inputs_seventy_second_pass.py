"""What the seventy-second adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventy-second pass"). Each test fails on the code before its fix."""

import json
import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, refused

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")


def _example_library():
    return os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")


def _backend_file(folder, name, environment):
    path = folder / f"{name}.json"
    path.write_text(json.dumps({
        "schema": "memrel.backend/1", "name": name, "description": "the host example",
        "library": _example_library(), "space": "host", "alloc": "memrel_host_example_alloc",
        "free": "memrel_host_example_free", "release": "memrel_host_example_release",
        "allocated": "memrel_host_example_allocated", "reserved": "memrel_host_example_reserved",
        "environment": environment}))
    return path


def _run(cwd, backend):
    return subprocess.run([MEMREL, "-q", "run", "-b", str(backend), "-w", "single-large", "-o",
                           "r.json"], capture_output=True, text=True, cwd=cwd, timeout=300)


@needs_memrel
@pytest.mark.parametrize("preload", ["missing", "not-a-library"])
def test_a_backend_file_preloading_what_the_loader_skips_is_refused(tmp_path, preload):
    """c8-backend-file-ld-preload-missing-run-ok: a backend file whose "environment" preloads a
    library that is not there (or a file that is no library) ran without it, exit 0, and the
    results recorded LD_PRELOAD as applied: the dynamic loader skips such a library with a
    warning only. Refused before any cell, naming the file and the loader's words; `list` says
    the backend is unavailable. A library that is there is preloaded as before."""
    target = tmp_path / ("no-such-dir/libjemalloc.so" if preload == "missing" else "notes.so")
    if preload == "not-a-library":
        target.write_text("not a library\n")
    backend = _backend_file(tmp_path, "preloads", {"LD_PRELOAD": str(target)})
    line = refused(_run(tmp_path, backend), "preloads.json", f"object '{target}' from LD_PRELOAD "
                   "cannot be preloaded")
    assert "ERROR" not in line and "ignored" not in line, line
    assert not (tmp_path / "r.json").exists()
    r = subprocess.run([MEMREL, "--backends-dir", str(tmp_path), "list", "--json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    entry = next(b for b in json.loads(r.stdout)["backends"] if b["name"] == "preloads")
    assert entry["available"] is False and "cannot be preloaded" in entry["reason"], entry
    good = _backend_file(tmp_path, "preloads-one-that-is-there",
                         {"LD_PRELOAD": _example_library()})
    assert _run(tmp_path, good).returncode == 0


@needs_memrel
@pytest.mark.parametrize("backend", ["host-malloc", "pluggable-host-example"])
def test_an_ab_side_preloading_what_the_loader_skips_is_refused(tmp_path, backend):
    """c8-ab-candidate-env-ld-preload-missing-passes: `ab --candidate-env LD_PRELOAD=/x.so`
    with no such file compared the unchanged allocator with itself and passed, exit 0 (the
    loader's warning went to the rounds' logs only). Refused before any round, naming the side.
    A compiled backend (host-malloc, which ab is most often asked to compare under another
    malloc) is checked as a backend file is."""
    missing = tmp_path / "no-such-allocator.so"
    r = subprocess.run([MEMREL, "-q", "ab", "--quick", "--rounds", "5", "--looks", "1", "-b",
                        backend, "--candidate-env", f"LD_PRELOAD={missing}", "--filter",
                        "^pair/.*/warm/512/", "--out", "abo"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    refused(r, "--candidate-env", f"object '{missing}' from LD_PRELOAD cannot be preloaded")
    assert not (tmp_path / "abo").exists()


@needs_memrel
def test_a_backend_files_setting_refused_by_its_library_names_the_file(tmp_path):
    """c4-backend-file-env-number-place-unnamed (arguable): a backend file setting
    MEMREL_EXAMPLE_SLOWDOWN_NS to 0x10 was refused, exit 2, in a line naming the variable alone,
    as if the user's shell held it. The check that loads the library names the file."""
    backend = _backend_file(tmp_path, "slow-example", {"MEMREL_EXAMPLE_SLOWDOWN_NS": "0x10"})
    refused(_run(tmp_path, backend), "slow-example.json", "MEMREL_EXAMPLE_SLOWDOWN_NS", "'0x10'")


@needs_memrel
@pytest.mark.parametrize("zero", ["0", "0B", "0KiB", "0.0MiB"])
def test_a_size_that_may_be_zero_is_zero_in_every_spelling(tmp_path, zero):
    """c4-zero-with-unit-refused (arguable): `--byte-tolerance 0` was taken and `0KiB` refused
    as "not a positive size"; `trim_threshold=0` taken and `0KiB` refused "expected a size from
    0 to ...". Zero is one value, however it is written; a configuration spelled so is the same
    configuration."""
    r = subprocess.run([MEMREL, "-q", "compare", "--byte-tolerance", zero, HOST_RUN, HOST_RUN],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "-q", "run", "-b", f"host-malloc:trim_threshold={zero}", "-w",
                        "temp-then-delete", "-o", "r.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    [cell] = json.load(open(tmp_path / "r.json"))["cells"]
    assert cell["backend"] == "host-malloc:trim_threshold=0", cell["backend"]
