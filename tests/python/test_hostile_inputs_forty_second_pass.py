"""What the forty-second adversarial pass of issue 23 found (docs/inputs.md, "Forty-second pass"),
and what its findings led to: input that takes a matcher down by its depth or length. Each test
fails on the code before its fix."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import HOST_RUN, ROOT
from test_hostile_inputs import (MEMREL, needs_memrel, private_copy, python, refused,
                                 scripts_module)

NESTED = "(" * 20000 + "pair" + ")" * 20000


def _memrel(cwd, *args):
    return subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=180)


@needs_memrel
@pytest.mark.parametrize("command", [
    ["bench", "-b", "host-malloc", "--quick", "-o", "out"],
    ["ab", "-b", "host-malloc", "--quick", "--rounds", "5", "--looks", "1", "--out", "out"]])
def test_a_filter_whose_matching_takes_memrel_bench_down_is_the_filters_fault(tmp_path, command):
    """c8-bench-nested-regex-filter-blamed-on-backend, c8-ab-nested-regex-filter-exit4: a filter
    of 20,000 nested groups made memrel_bench die of SIGSEGV compiling it: bench said the backend
    failed (exit 3), ab that the reference did (exit 4). The filter is refused, exit 2, cut to a
    readable line, nothing written."""
    line = refused(_memrel(tmp_path, *command, "--filter", NESTED),
                   "(40004 characters): matching it against the benchmarks' names died of signal")
    assert len(line) < 400, line
    assert not (tmp_path / "out").exists()


@needs_memrel
def test_a_number_too_long_for_the_matcher_is_refused_not_a_crash(tmp_path):
    """Found beside the pass: a 100,000-digit --alpha overflowed std::regex's recursion in the
    command line's number check, exit 139. Longer than any number memrel reads, refused."""
    alpha = "0." + "1" * 100000
    line = refused(_memrel(tmp_path, "compare", "--alpha", alpha, HOST_RUN, HOST_RUN),
                   "--alpha", "(100002 characters) is longer than any number memrel reads")
    assert len(line) < 300, line


def test_the_python_parts_refuse_the_same_long_number(tmp_path):
    """The Python subcommands read numbers by the same rule (memrel_help.py)."""
    r = python("memrel_history", "changes", "--db", tmp_path / "h.sqlite", "--max-pvalue",
               "0." + "1" * 5000, cwd=tmp_path)
    refused(r, "--max-pvalue", "(5002 characters) is longer than any number memrel reads")


def _results(tmp_path):
    subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o",
                    "r.json"], check=True, capture_output=True, cwd=tmp_path, timeout=120)
    return "r.json"


@needs_memrel
@pytest.mark.parametrize("size", ["\u00b2", "\u0664\u0660\u0669\u0666"])
def test_report_reads_a_benchmark_size_in_ascii_digits_only(tmp_path, size):
    """c4-report-bench-superscript-size-internal-error, c4-report-bench-arabic-digit-size-read-as-
    number: str.isdigit() took '²' (int() then failed: "internal error: ValueError", exit 4) and
    '٤٠٩٦', read as 4096 bytes beside the real 4096 benchmark, which it hid. Such a name is not a
    memrel benchmark's: the report goes on, the real one in its data."""
    bench = json.loads(open(os.path.join(ROOT, "tests", "data", "host-bench.json")).read())
    for b in bench["benchmarks"]:
        for key in ("name", "run_name"):
            value = b.get(key, "")
            if value.startswith("pair/host-malloc/warm/512/"):
                b[key] = value.replace("/512/", f"/{size}/")
            elif value.startswith("pair/host-malloc/warm/32768/"):
                b[key] = value.replace("/32768/", "/4096/")
    (tmp_path / "bench.json").write_text(json.dumps(bench, ensure_ascii=False))
    r = _memrel(tmp_path, "report", "--out", "rp", "--bench", "bench.json", _results(tmp_path))
    assert r.returncode == 0, r.stderr
    rows = (tmp_path / "rp" / "data" / "latency.csv").read_text(encoding="utf-8").splitlines()
    at_4096 = [row for row in rows if row.startswith("host-malloc,pair,warm,4096,")]
    assert len(at_4096) == 1 and "pair/host-malloc/warm/4096/" in at_4096[0], at_4096
    assert size not in "\n".join(rows)


@needs_memrel
def test_a_folder_named_past_any_process_id_beside_the_report_is_left_alone(tmp_path):
    """c4-report-folder-tmp-huge-pid-overflow: a user's rp.tmp-2147483648 beside `report --out
    rp` made the leftover sweep's os.kill overflow: "internal error: OverflowError", exit 4,
    nothing written. No process id is that large: not a report's folder."""
    (tmp_path / "rp.tmp-2147483648").mkdir()
    r = _memrel(tmp_path, "report", "--out", "rp", _results(tmp_path))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "rp" / "index.html").exists()
    assert (tmp_path / "rp.tmp-2147483648").is_dir()


def _answering(folder, version):
    """An interpreter that answers memrel's version probe with VERSION and does nothing else."""
    fake = folder / "fake"
    fake.write_text(f"#!/bin/sh\nprintf 'memrel-python-{version}'\n", encoding="utf-8")
    fake.chmod(0o755)
    return str(fake)


@needs_memrel
def test_report_history_says_a_junk_version_from_memrel_history_python(tmp_path):
    """c8-history-python-superscript-version-internal-error: MEMREL_HISTORY_PYTHON answering
    "memrel-python-3.²" was "internal error: ValueError" naming neither the variable nor the
    program. Said as history changes says it: the variable, the program, exit 4."""
    results = _results(tmp_path)
    subprocess.run([MEMREL, "-q", "history", "--db", "h.sqlite", "add", results], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    fake = _answering(tmp_path, "3.\u00b2")
    r = subprocess.run([MEMREL, "-q", "report", "--out", "rp", "--history", "h.sqlite"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=180,
                       env=dict(os.environ, MEMREL_HISTORY_PYTHON=fake))
    refused(r, f"MEMREL_HISTORY_PYTHON ({fake}) is not a Python 3.9 or later", exit_code=4)


@needs_memrel
def test_a_huge_minor_version_is_not_said_to_be_older(tmp_path):
    """c8-python-huge-minor-version-said-older: "3.99999999999999999999999" went past sscanf's
    int and was said "older than the 3.9 memrel's Python parts are written for"."""
    fake = _answering(tmp_path, "3.99999999999999999999999")
    r = subprocess.run([MEMREL, "-q", "report", "--out", "rp", HOST_RUN], capture_output=True,
                       text=True, cwd=tmp_path, timeout=180,
                       env=dict(os.environ, MEMREL_PYTHON=fake))
    line = refused(r, "is python-3.99999999999999999999999, not a Python 3 version (3.N)",
                   exit_code=4)
    assert "older" not in line


@needs_memrel
def test_a_python_part_stopped_from_outside_before_memrels_code_is_not_blamed_on_python(tmp_path):
    """c8-python-part-sigterm-blamed-on-interpreter: a SIGTERM sent to the report's interpreter
    alone before memrel's code ran was "is it a Python interpreter that can start?". Exit 4, said
    as a stop from outside (here the wrapper stops itself as it would start memrel's code)."""
    py = tmp_path / "py"
    py.write_text(f'#!/bin/sh\ncase "$2" in -c) ;; *) kill -TERM $$;; esac\n'
                  f'exec {sys.executable} "$@"\n')
    py.chmod(0o755)
    r = subprocess.run([MEMREL, "-q", "report", "--out", "rp", HOST_RUN], capture_output=True,
                       text=True, cwd=tmp_path, timeout=180,
                       env=dict(os.environ, MEMREL_PYTHON=str(py)))
    refused(r, f"{py} was stopped by SIGTERM from outside before memrel's code ran", "not the "
            "interpreter's failure", exit_code=4)


def _names_while_syncing(monkeypatch, folder):
    """Records the folder's names each time a file is synced: the content is whole then, and no
    name may hold it yet."""
    seen = []
    real_fsync = os.fsync

    def fsync(fd):
        seen.append(sorted(os.listdir(folder)))
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return seen


@pytest.mark.parametrize("unnamed", [True, False], ids=["O_TMPFILE", "no O_TMPFILE"])
def test_history_changes_markdown_has_no_name_while_it_is_written(tmp_path, monkeypatch, unnamed):
    """c9-writers-sigkill-tmp-left (`history changes --markdown`): a SIGKILL while writing left
    PATH.tmp.PID for good. The text is written into a file without a name (O_TMPFILE), named
    only once whole; where there is no O_TMPFILE, the named temporary as before."""
    changes = scripts_module("memrel_history.changes")
    if not unnamed:
        monkeypatch.setattr(changes.unnamed_file, "open_unnamed", lambda folder: None)
    (tmp_path / "m.md").write_text("old")
    seen = _names_while_syncing(monkeypatch, tmp_path)
    changes.write_atomically(str(tmp_path / "m.md"), "new text\n")
    assert (tmp_path / "m.md").read_text() == "new text\n"
    assert sorted(os.listdir(tmp_path)) == ["m.md"]
    if unnamed:
        assert seen and all(names == ["m.md"] for names in seen), seen


def test_an_imported_trace_has_no_name_while_it_is_written(tmp_path, monkeypatch):
    """c9-trace-import-sigkill-tmp-left: `trace import` killed while writing left
    .memtrace-PID-XXXX.tmp: the output check ran after the unnamed file was named. Checked
    first now; named for the link and the rename only."""
    trace_file = scripts_module("memrel_trace.trace_file")
    checks = []
    real_check = trace_file.memrel_outputs.check_file

    def check_file(path, **kwargs):
        checks.append(sorted(os.listdir(tmp_path)))
        return real_check(path, **kwargs)

    monkeypatch.setattr(trace_file.memrel_outputs, "check_file", check_file)
    seen = _names_while_syncing(monkeypatch, tmp_path)
    header = {"schema": trace_file.SCHEMA, "name": "t", "source": {"format": "test"}}
    try:
        trace_file.write(str(tmp_path / "t.memtrace"), header, b"")
    except Exception as e:  # a header this small may lack what the writer needs: said below
        pytest.fail(f"the trace writer refused a minimal trace: {e}")
    assert sorted(os.listdir(tmp_path)) == ["t.memtrace"]
    assert all(not any(n.endswith(".tmp") for n in names) for names in seen + checks), \
        (seen, checks)


def _cell_into(tmp_path, backend, target, memrel=None):
    """`memrel cell --backend BACKEND --workload temp-then-delete --result-fd 3`, fd 3 open for
    appending on TARGET."""
    workload = os.path.join(ROOT, "benchmarks", "workloads", "temp-then-delete.json")
    fd = os.open(target, os.O_WRONLY | os.O_APPEND)
    try:
        return subprocess.run([memrel or MEMREL, "cell", "--backend", backend, "--workload",
                               workload, "--result-fd", str(fd)], pass_fds=(fd,),
                              capture_output=True, text=True, cwd=tmp_path, timeout=120)
    finally:
        os.close(fd)


@needs_memrel
def test_cell_result_fd_onto_the_backends_library_is_refused(tmp_path):
    """c1-cell-result-fd-backend-library: `--result-fd 3 3>>lib.so`, lib.so the backend file's
    library, appended the result to it, exit 0, where `--out lib.so` is refused."""
    library = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    if not os.path.exists(library):
        pytest.skip("the host example library is not built")
    shutil.copy(library, tmp_path / "lib.so")
    backend = json.loads(open(os.path.join(ROOT, "benchmarks", "backends",
                                           "pluggable-host-example.json")).read())
    backend.update(name="phy", library=str(tmp_path / "lib.so"))
    (tmp_path / "q.json").write_text(json.dumps(backend))
    before = (tmp_path / "lib.so").read_bytes()
    r = _cell_into(tmp_path, "./q.json", tmp_path / "lib.so")
    refused(r, "--result-fd", "is the input", "lib.so")
    assert (tmp_path / "lib.so").read_bytes() == before


@needs_memrel
def test_cell_result_fd_onto_memrels_own_files_is_refused(tmp_path):
    """c1-cell-result-fd-own-files: fd 3 open on a workload of memrel's own data took the result,
    exit 0 (on a copy of the tree: private_copy)."""
    copy = private_copy(tmp_path)
    own = copy / "benchmarks" / "workloads" / "huge.json"
    before = own.read_bytes()
    r = _cell_into(tmp_path, "host-malloc", own, memrel=str(copy / "build" / "ci" / "memrel"))
    refused(r, "--result-fd", "is one of memrel's own files")
    assert own.read_bytes() == before
