"""What the eighty-third adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Eighty-third pass"). Each test fails on the code before its fix."""

import os
import shutil

import pytest

from test_hostile_inputs import ROOT, needs_memrel, refused
from test_hostile_inputs_seventy_eighth_pass import HOST_RUN, RMM_LOG, _memrel


def _advise(tmp_path, out):
    return _memrel("advise", "log.csv", "-b", "null", "--out", out, cwd=tmp_path)


@needs_memrel
@pytest.mark.parametrize("advise_json", ["plain notes, not JSON\n", "results"])
def test_advise_tells_its_folder_by_what_advise_json_holds_not_its_name(tmp_path, advise_json):
    """c10-advise-out-told-by-name-replaces-results, c10-advise-out-results-named-advise-json-
    replaced: `advise --out a` took a folder holding a file named advise.json (the user's notes,
    or a results file so named) for its own and replaced it and the results.json beside it,
    exit 0."""
    (tmp_path / "log.csv").write_text(RMM_LOG)
    folder = tmp_path / "a"
    folder.mkdir()
    with open(HOST_RUN, "rb") as f:
        results = f.read()
    notes = results if advise_json == "results" else advise_json.encode()
    (folder / "advise.json").write_bytes(notes)
    (folder / "results.json").write_bytes(results)
    refused(_advise(tmp_path, "a"), "--out a", "advise.json", "not a folder advise wrote")
    assert (folder / "advise.json").read_bytes() == notes
    assert (folder / "results.json").read_bytes() == results
    assert sorted(os.listdir(folder)) == ["advise.json", "results.json"]


@needs_memrel
def test_advise_writes_again_into_a_folder_it_wrote(tmp_path):
    """The other side of the rule above: a folder advise wrote (its advise.json is
    memrel.advise/1) is advise's to write again."""
    (tmp_path / "log.csv").write_text(RMM_LOG)
    for _ in range(2):
        r = _advise(tmp_path, "a")
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "a" / "advise.json").exists()


@needs_memrel
@pytest.mark.parametrize("content, kind", [(b"{}", "a JSON document"),
                                           (b"\x80\x04N.", "a Python pickle (it begins with PROTO 4)")])
def test_a_file_shorter_than_a_traces_prefix_is_named_by_its_kind(tmp_path, content, kind):
    """c10-trace-show-short-json-said-truncated, c10-trace-show-short-pickle-said-truncated:
    `trace show` of `{}` or of a 4-byte pickle was "truncated: 2 bytes, less than the prefix",
    where a longer one is named by its kind."""
    (tmp_path / "x.memtrace").write_bytes(content)
    line = refused(_memrel("trace", "show", "x.memtrace", cwd=tmp_path), kind)
    assert "truncated" not in line


@needs_memrel
def test_a_cut_trace_is_still_said_cut(tmp_path):
    with open(os.path.join(ROOT, "benchmarks", "workloads",
                           "trace-transformer-varying-length.memtrace"), "rb") as f:
        (tmp_path / "x.memtrace").write_bytes(f.read(12))
    refused(_memrel("trace", "show", "x.memtrace", cwd=tmp_path), "truncated: 12 bytes")


@needs_memrel
def test_a_users_folder_named_like_a_runs_in_tmpdir_is_kept(tmp_path):
    """c9-run-removes-user-trace-folder-in-tmpdir: `run -w x.csv` removed a user's
    TMPDIR/memrel-run-X holding only trace-N.memtrace files: nothing told a run's folder from it.
    A run marks its folder before naming it so."""
    tmp = tmp_path / "tmp"
    users = tmp / "memrel-run-mine01"
    users.mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "benchmarks", "workloads",
                             "trace-transformer-varying-length.memtrace"), users / "trace-1.memtrace")
    (tmp_path / "log.csv").write_text(RMM_LOG)
    r = _memrel("run", "-b", "null", "--include-null", "-w", "log.csv", "-o", "r.json",
                cwd=tmp_path, env=dict(os.environ, TMPDIR=str(tmp)))
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(users)) == ["trace-1.memtrace"]
    assert sorted(os.listdir(tmp)) == ["memrel-run-mine01"]  # the run's own folder went
