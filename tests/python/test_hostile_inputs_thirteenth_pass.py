"""What the thirteenth adversarial pass of issue 23 found (docs/inputs.md, "Thirteenth pass"):
each test fails on the code before its fix."""

import json
import os
import pickle
import shutil
import subprocess

import pytest

from conftest import HOST_RUN, ROOT
from test_hostile_inputs import MEMREL, RMM_LOG, memrel, needs_bench, needs_memrel, refused
from test_hostile_inputs_tenth_pass import history_with_a_run

SNAPSHOT = {"segments": [], "device_traces": [[{"action": "alloc", "addr": 4096, "size": 512,
                                                "stream": 0, "time_us": 1}]]}


def planted_package(folder, name, marker):
    """A package NAME in folder whose import writes marker: code that must not run."""
    package = folder / name
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\n")
    return package


# --- Code from the user's folders -----------------------------------------------------------------

@needs_memrel
@pytest.mark.parametrize("where", ["PYTHONPATH", "user site"])
@pytest.mark.parametrize("name, command", [
    ("org", ["trace", "import", "s.pickle", "-o", "t.memtrace"]),
    ("_winapi", ["report", "--out", "rep", HOST_RUN]),
    ("mpl_toolkits", ["report", "--out", "rep", HOST_RUN]),
])
def test_a_user_folder_supplies_no_module_of_the_interpreters_or_other_platforms(tmp_path, where,
                                                                                   name, command):
    """c3-pythonpath-org-*, c3-usersite-*, c3-pythonpath-winapi-report: pickle's `from
    org.python.core import PyStringMap`, subprocess's `_winapi` and matplotlib's namespace
    package `mpl_toolkits` were found in a PYTHONPATH folder or the user's site-packages (after
    the interpreter's own, which has none of the first two and only a namespace of the third),
    and their code ran."""
    (tmp_path / "s.pickle").write_bytes(pickle.dumps(SNAPSHOT, protocol=4))
    marker = tmp_path / "ran"
    env = {}
    if where == "PYTHONPATH":
        planted_package(tmp_path / "pp", name, marker)
        env["PYTHONPATH"] = str(tmp_path / "pp")
    else:
        import sys
        site = tmp_path / "home" / ".local" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
        planted_package(site, name, marker)
        env["HOME"] = str(tmp_path / "home")
    r = memrel("-q", *command, env=env, cwd=tmp_path)
    assert not marker.exists(), (r.returncode, r.stderr)
    assert r.returncode == 0, r.stderr


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", RMM_LOG, "-o", "t.memtrace"],
                                     ["report", "--out", "rep", HOST_RUN],
                                     ["run", "-b", "host-malloc", "-w", RMM_LOG, "-o", "r.json"]])
def test_an_interpreter_that_answers_the_probe_and_runs_nothing_is_exit_4(tmp_path, command):
    """c8-fakepy-exit0-*: `trace import` and `report` said exit 0 with nothing written; `run -w
    LOG` blamed memrel's own temporary trace as bad input."""
    import sys
    fake = tmp_path / "fake-python"
    fake.write_text(f'#!/bin/sh\nif [ "$2" = "-c" ]; then exec {sys.executable} "$@"; fi\nexit 0\n')
    fake.chmod(0o755)
    r = memrel("-q", *command, env={"MEMREL_PYTHON": str(fake)}, cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "without running memrel's code" in lines[0], r.stderr
    assert sorted(os.listdir(tmp_path)) == ["fake-python"]


# --- ab and bench: one file per backend, none of ab's own overwritten ------------------------------

@needs_bench
@pytest.mark.parametrize("backends", [["host-malloc,host-malloc"],
                                      ["pluggable-host-example",
                                       os.path.join(ROOT, "benchmarks", "backends",
                                                    "pluggable-host-example.json")]])
@pytest.mark.parametrize("command", ["ab", "bench"])
def test_a_backend_given_twice_is_refused_by_ab_and_bench(tmp_path, backends, command):
    """c6-ab-same-backend-twice, c6-ab-name-and-path-same-backend: ab ran it twice into one set of
    files, the verdicts counted twice, exit 0."""
    args = [a for b in backends for a in ("-b", b)]
    extra = ["--rounds", "5"] if command == "ab" else []
    r = memrel("-q", command, *args, *extra, "--quick", "--out" if command == "ab" else "-o", "o",
               cwd=tmp_path)
    line = refused(r, "already given")
    assert "-b" in line
    assert not (tmp_path / "o").exists()


@needs_bench
def test_backend_files_that_differ_only_by_case_are_refused(tmp_path):
    """c6-bench-case-only-backends, c6-ab-case-only-backends: bench-a_b.json and bench-A_b.json,
    one file on a case-insensitive file system."""
    folder = tmp_path / "backends"
    folder.mkdir()
    with open(os.path.join(ROOT, "benchmarks", "backends", "pluggable-host-example.json")) as f:
        data = json.load(f)
    data["library"] = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    for name in ("a_b", "A_b"):
        (folder / f"{name}.json").write_text(json.dumps(dict(data, name=name)))
    line = refused(memrel("-q", "--backends-dir", folder, "bench", "--quick", "-b", "a_b,A_b",
                          "-o", "o", cwd=tmp_path), "only by case")
    assert "bench-a_b.json" in line and "bench-A_b.json" in line
    assert not (tmp_path / "o").exists()


@needs_bench
@pytest.mark.parametrize("option", ["--json", "--markdown", "--junit", "--summary"])
def test_ab_writes_no_comparison_into_a_folder_it_fills(tmp_path, option):
    """c1-ab-*-onto-own-out-file: `--json abo/reference/bench-host-malloc.json` replaced the
    benchmarks the comparison was of, exit 0."""
    (tmp_path / "abo" / "reference").mkdir(parents=True)
    target = tmp_path / "abo" / "reference" / "bench-host-malloc.json"
    target.write_text("{}")
    line = refused(memrel("-q", "ab", "-b", "host-malloc", "--rounds", "5", "--quick", "--out",
                          "abo", option, target, cwd=tmp_path), option)
    assert "a folder this command fills" in line
    assert target.read_text() == "{}"


# --- Pages that differ only by case ----------------------------------------------------------------

@needs_memrel
def test_workloads_whose_pages_differ_only_by_case_are_refused_before_a_cell(tmp_path):
    """c6-report-case-only-workloads, c6-run-trace-case-only-names: workload-a_b.html and
    workload-A_b.html, one page on a case-insensitive file system or in a zip; exit 0."""
    with open(os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")) as f:
        data = json.load(f)
    for name in ("a_b", "A_b"):
        (tmp_path / f"{name}.json").write_text(json.dumps(dict(data, name=name)))
    refused(memrel("-q", "run", "-b", "host-malloc", "-w", "./a_b.json", "-w", "./A_b.json", "-o",
                   "r.json", cwd=tmp_path), "case")
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_report_refuses_results_whose_pages_differ_only_by_case(tmp_path):
    with open(HOST_RUN) as f:
        results = json.load(f)
    cells = [c for c in results["cells"] if c["backend"] == results["cells"][0]["backend"]][:2]
    cells[0]["workload"], cells[1]["workload"] = "a_b", "A_b"
    results["cells"] = cells
    (tmp_path / "r.json").write_text(json.dumps(results))
    refused(memrel("-q", "report", "--out", "rep", "r.json", cwd=tmp_path), "case")
    assert sorted(os.listdir(tmp_path)) == ["r.json"]


# --- What reaches the terminal ---------------------------------------------------------------------

@needs_memrel
def test_history_add_says_a_found_file_name_as_one_line(tmp_path):
    """c9-ctrl-history-add-folder-filename: an OSC title sequence in a file name in the folder went
    to the terminal raw."""
    pytest.importorskip("sqlite3")
    (tmp_path / "hf").mkdir()
    shutil.copy(HOST_RUN, tmp_path / "hf" / "ev\x1b]0;PWNED\x07.json")
    r = memrel("history", "--db", "h.sqlite", "add", "hf", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout + r.stderr and "\x07" not in r.stdout + r.stderr
    assert "\\x1b" in r.stdout


# --- The importer ----------------------------------------------------------------------------------

@needs_memrel
def test_bytes_after_a_pickles_end_are_refused(tmp_path):
    """c7-pkl-trailing (arguable there): ignored, the trace written."""
    (tmp_path / "s.pickle").write_bytes(pickle.dumps(SNAPSHOT, protocol=4) + b"\x00garbage")
    refused(memrel("-q", "trace", "import", "s.pickle", "-o", "t.memtrace", cwd=tmp_path),
            "s.pickle", "after the pickle's end")
    assert not (tmp_path / "t.memtrace").exists()


# --- A full disk, said with its place --------------------------------------------------------------

@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs filled up; skipped where this process cannot mount one."""
    folder = tmp_path / "full"
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (not root, or no mount namespace)")
    try:
        with open(folder / "fill", "wb") as f:
            try:
                f.write(b"\0" * (1 << 20))
            except OSError:
                pass
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@needs_bench
def test_bench_logs_on_a_full_disk_are_the_machines_state(tmp_path, full_disk):
    """c8-disk-full-bench-logs: exit 0, "1 ok", and an empty log."""
    r = memrel("-q", "bench", "-b", "host-malloc", "--quick", "--min-time", "0.001", "-o", "bo",
               "--logs", full_disk / "logs", cwd=tmp_path, timeout=300)
    assert r.returncode == 4, r.stderr
    # Said before any backend runs since the twenty-second pass: the --logs folder takes no file.
    assert f"--logs {full_disk / 'logs'}: full" in r.stderr and "No space left" in r.stderr, r.stderr
    assert not (full_disk / "logs" / "bench-host-malloc.log").exists()


@needs_memrel
def test_a_report_on_a_full_disk_says_where(tmp_path, full_disk):
    """c8-disk-full-report-out: "internal error: OSError: [Errno 28]", no place."""
    r = memrel("-q", "report", "--out", full_disk / "rep", HOST_RUN, "--jobs", "1", cwd=tmp_path)
    assert r.returncode == 4, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(full_disk / "rep") in lines[0] and "internal error" not in lines[0]
    assert sorted(os.listdir(full_disk)) == ["fill"]
