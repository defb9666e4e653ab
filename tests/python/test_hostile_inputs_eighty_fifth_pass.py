"""What the eighty-fifth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Eighty-fifth pass"). Each test fails on the code before its fix."""

import os
import resource
import shutil

import pytest

from test_hostile_inputs import ROOT, needs_memrel, refused
from test_hostile_inputs_seventy_eighth_pass import _memrel


def _rmm_log(allocations):
    """An RMM log whose trace is larger than a small file-size limit lets a cell's result be."""
    rows, t = ["Thread,Time,Action,Pointer,Size,Stream"], 0
    for action in ("allocate", "free"):
        for i in range(allocations):
            t += 1
            rows.append(f"1,08:00:{t // 1000000:02d}.{t % 1000000:06d},{action},"
                        f"0x{0x10000 + i * 0x1000:x},4096,0x1")
    return "\n".join(rows) + "\n"


def _file_size_limit():
    # 100 KiB: the importer's trace and the journal fit; the cell's result, holding every one of
    # the trace's events, does not.
    resource.setrlimit(resource.RLIMIT_FSIZE, (100 << 10, 100 << 10))


@needs_memrel
@pytest.mark.parametrize("command", [["run", "-b", "null", "-w", "log.csv", "-o", "r.json"],
                                     ["advise", "log.csv", "-b", "null", "--out", "adv"]],
                         ids=["run", "advise"])
def test_a_cell_result_the_machine_keeps_out_is_not_an_internal_error(tmp_path, command):
    """F10, F11: under `ulimit -f 100` `run -w log.csv` and `advise log.csv` said "internal error:
    null x log: the cell ran but could not write its result ...", exit 4: the machine's state, in
    the words kept for memrel's own bugs."""
    (tmp_path / "log.csv").write_text(_rmm_log(3000))
    (tmp_path / "tmp").mkdir()
    r = _memrel(*command, cwd=tmp_path, preexec_fn=_file_size_limit,
                env=dict(os.environ, TMPDIR=str(tmp_path / "tmp")))
    line = refused(r, "could not write its result", exit_code=4)
    assert "internal error" not in line


@needs_memrel
@pytest.mark.parametrize("text", ['my notes: the schema is "memrel.journal/1", see docs',
                                  '{"context": my notes, not JSON'])
def test_a_users_one_line_file_where_the_journal_goes_is_kept(tmp_path, text):
    """J21: a one-line file without a newline at r.json.journal that named memrel.journal/1, or
    began as a journal's header and went on as text, was taken for a journal cut by a kill and
    replaced by a fresh `run -o r.json`, exit 0: the user's text gone."""
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "single-large.json"),
                tmp_path / "w.json")
    (tmp_path / "r.json.journal").write_text(text)
    refused(_memrel("run", "-b", "null", "--include-null", "-w", "w.json", "-o", "r.json",
                    cwd=tmp_path), "r.json.journal", "not a journal memrel wrote")
    assert (tmp_path / "r.json.journal").read_text() == text
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_a_journal_header_cut_by_a_kill_is_still_replaced(tmp_path):
    """The other side of the rule above: the start of a header memrel writes, cut anywhere, is a
    journal of no cell, replaced by a fresh run."""
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "single-large.json"),
                tmp_path / "w.json")
    (tmp_path / "r.json.journal").write_text('{"context":{"backends":["nu')
    r = _memrel("run", "-b", "null", "--include-null", "-w", "w.json", "-o", "r.json",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "r.json").exists()


@needs_memrel
@pytest.mark.parametrize("name", ["w.json", "r.pickle"])
def test_advise_names_a_json_document_as_the_trace_loader_does(tmp_path, name):
    """a1: a workload or a results file given to advise was only "not a trace (.memtrace), a
    PyTorch snapshot (.pickle) or an RMM log (.csv)", where trace import and trace show name it."""
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads", "single-large.json"), tmp_path / name)
    refused(_memrel("advise", name, "-b", "null", "--out", "adv", cwd=tmp_path),
            f"{name}: a JSON document (a workload or a results file?)")
    assert not (tmp_path / "adv").exists()
