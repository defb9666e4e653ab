"""What the sixtieth adversarial pass of issue 23 found arguable and was fixed (docs/inputs.md,
"Sixtieth pass"). Each test fails on the code before its fix."""

import os
import shutil
import subprocess

import pytest

from test_hostile_inputs import BENCH_QUICK, MEMREL, memrel_bench_binary, needs_bench, needs_memrel


def memrel(tmp_path, *args, **kwargs):
    return subprocess.run([MEMREL, *map(str, args)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300, **kwargs)


@needs_bench
@pytest.mark.parametrize("option", ["-o", "--logs"])
def test_bench_refuses_to_write_in_the_folder_of_the_bench_it_runs(tmp_path, option):
    """c1-bench-out-holds-its-bench: `bench --bench P/mb -o P` wrote bench-null.json beside the
    program it ran, where ab refuses an --out that holds its --candidate-bench; docs/inputs.md
    says neither -o nor --logs holds a program memrel runs below it."""
    (tmp_path / "P" / "sub").mkdir(parents=True)
    shutil.copy(memrel_bench_binary(), tmp_path / "P" / "sub" / "mb")
    other = "--logs" if option == "-o" else "-o"
    r = memrel(tmp_path, "-q", "bench", *BENCH_QUICK, "--bench", "./P/sub/mb", option, "P",
               other, "elsewhere")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"memrel: {option} P: holds ./P/sub/mb"), r.stderr
    assert sorted(os.listdir(tmp_path / "P")) == ["sub"]
    assert sorted(os.listdir(tmp_path / "P" / "sub")) == ["mb"]
    assert not (tmp_path / "elsewhere").exists()


@needs_memrel
def test_bench_that_writes_nothing_removes_the_folders_it_made(tmp_path):
    """c8-bench-nothing-written-leaves-made-folders: a bench whose every backend could not run here
    (exit 0) made `new/deep/o` and left it empty, where every other writer removes the folders it
    made when it writes nothing."""
    r = memrel(tmp_path, "bench", "-b", "cuda-malloc", "-o", "new/deep/o", "--logs", "new/lg")
    if r.returncode == 0 and (tmp_path / "new" / "deep" / "o" / "bench-cuda-malloc.json").exists():
        pytest.skip("cuda-malloc can run here: its file was written")
    assert r.returncode == 0, r.stderr
    assert "cuda-malloc: unavailable here" in r.stderr, r.stderr
    assert "no results file written" in r.stderr, r.stderr
    # The log is a file written: its folder stays, the results' goes.
    assert os.listdir(tmp_path / "new") == ["lg"], list(os.walk(tmp_path / "new"))
    assert os.listdir(tmp_path / "new" / "lg") == ["bench-cuda-malloc.log"]


@needs_memrel
def test_quiet_bench_that_writes_nothing_prints_no_folder(tmp_path):
    """The same run under -q: its stdout is the folder of the files, and there is none."""
    r = memrel(tmp_path, "-q", "bench", "-b", "cuda-malloc", "-o", "new/o")
    if (tmp_path / "new" / "o" / "bench-cuda-malloc.json").exists():
        pytest.skip("cuda-malloc can run here: its file was written")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "", r.stdout
    assert "no results file written" in r.stderr, r.stderr
    assert not (tmp_path / "new").exists(), list(os.walk(tmp_path / "new"))


@needs_memrel
def test_bench_that_writes_nothing_keeps_a_folder_it_did_not_make(tmp_path):
    """A folder there before the run is the user's: kept, and named on stdout under -q as ever."""
    (tmp_path / "o").mkdir()
    r = memrel(tmp_path, "-q", "bench", "-b", "cuda-malloc", "-o", "o")
    if (tmp_path / "o" / "bench-cuda-malloc.json").exists():
        pytest.skip("cuda-malloc can run here: its file was written")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "o").is_dir()
    assert r.stdout == "o\n", r.stdout


# Wording the pass noticed and did not count.


@needs_memrel
@pytest.mark.parametrize("cell", [None, [], "x"])
def test_a_journal_record_whose_cell_is_not_an_object_is_named_a_bad_record(tmp_path, cell):
    """A record `{"index": 0, "cell": null}` was "not a JSON object", as if the line were none."""
    import json

    from test_hostile_inputs import _journal_lines, interrupted_run

    args, out, journal = interrupted_run(tmp_path)
    header, record = _journal_lines(journal)
    record["cell"] = cell
    journal.write_text(json.dumps(header) + "\n" + json.dumps(record) + "\n")
    r = subprocess.run(args + ["--resume"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "not a cell record" in r.stderr and "not a JSON object" not in r.stderr, r.stderr
    assert not out.exists()


@needs_memrel
@pytest.mark.parametrize("given", ["missing.memtrace", "missing.json", "sub/missing"])
def test_a_missing_workload_file_is_said_missing_not_unknown(tmp_path, given):
    """`run -w missing.memtrace` was "unknown workload 'missing.memtrace' (known in ...)": a path
    or a workload file's name is a file that is not there."""
    r = memrel(tmp_path, "run", "-b", "null", "-w", given, "-o", "r.json")
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"workload file '{given}': no such file" in r.stderr, r.stderr
    assert not (tmp_path / "r.json").exists()


@needs_memrel
@pytest.mark.parametrize("value", ["00", "0100"])
def test_a_planted_slowdown_with_a_leading_zero_is_refused_as_options_refuse_it(tmp_path, value):
    """MEMREL_EXAMPLE_SLOWDOWN_NS=00 was taken, where every whole-number option refuses a leading
    zero (the fifty-eighth pass)."""
    r = subprocess.run([MEMREL, "-q", "run", "-b", "pluggable-host-example", "-w",
                        "temp-then-delete", "-o", "s.json"], capture_output=True, text=True,
                       cwd=tmp_path, env=dict(os.environ, MEMREL_EXAMPLE_SLOWDOWN_NS=value),
                       timeout=120)
    assert r.returncode == 2, r.stderr
    assert f"MEMREL_EXAMPLE_SLOWDOWN_NS: '{value}' is not whole nanoseconds" in r.stderr, r.stderr
    assert not (tmp_path / "s.json").exists()
