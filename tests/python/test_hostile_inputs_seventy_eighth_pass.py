"""What the seventy-eighth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventy-eighth pass"): paths near the system's 4096-byte limit, and long names on an output's
way. Each test fails on the code before its fix."""

import os
import subprocess

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, refused

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")
RMM_LOG = ("Thread,Time,Action,Pointer,Size,Stream\n1,08:00:00.000001,allocate,0x10,100,0x1\n"
           "1,08:00:00.000002,free,0x10,100,0x1\n")


def _memrel(*args, cwd, **options):
    """memrel -q ARGS in CWD; options (env, preexec_fn) go to subprocess.run. Shared by the
    later passes' tests."""
    return subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, **options)


def _relative_path_of(tmp_path, total, letter):
    """A relative path of names of 200 bytes whose absolute spelling is `total` bytes long."""
    left = total - len(str(tmp_path)) - 1
    names = []
    while left > 201:
        names.append(letter * 200)
        left -= 201
    names.append("g" * left)
    return "/".join(names)


def _leftovers(folder):
    return sorted(os.path.relpath(os.path.join(top, n), folder)
                  for top, dirs, files in os.walk(folder) for n in dirs + files)


@needs_memrel
@pytest.mark.parametrize("total", [4060, 4400], ids=["near-the-limit", "past-the-limit"])
def test_report_out_too_long_for_its_files_is_refused_and_leaves_nothing(tmp_path, total):
    """c2-report-out-path-too-long-internal-error, c2-report-out-path-near-max,
    c9-report-long-out-leaves-made-folders: `report --out` of a path past (or so near that its
    files pass) the 4096-byte limit was "internal error: OSError: [Errno 36]", exit 4, the folders
    made for it and an empty OUT.tmp-PID left."""
    out = "new/" + _relative_path_of(tmp_path, total - 4, "m")
    before = _leftovers(tmp_path)
    line = refused(_memrel("report", "--out", out, HOST_RUN, cwd=tmp_path), "bytes long")
    assert "internal error" not in line
    assert _leftovers(tmp_path) == before


@needs_memrel
def test_trace_import_o_past_the_limit_is_refused_before_any_write(tmp_path):
    """c9-trace-import-long-out-leaves-tmp-file: `trace import -o new/P/t.memtrace` past the limit
    said "cannot write (File name too long); nothing written", a 46 KB temporary and 22 made
    folders left behind."""
    (tmp_path / "log.csv").write_text(RMM_LOG)
    out = "new/" + _relative_path_of(tmp_path, 4070, "n") + "/t.memtrace"
    refused(_memrel("trace", "import", "log.csv", "-o", out, cwd=tmp_path),
            "the path is over 4079 bytes long")
    assert _leftovers(tmp_path) == ["log.csv"]


@needs_memrel
def test_run_w_of_a_path_past_the_limit_names_the_path_given(tmp_path):
    """c10-run-w-long-path-names-data-folder-file: `run -w P/c.csv` past the limit named
    ".../benchmarks/workloads/P/c.csv.json", a file memrel made up in its own data folder."""
    given = _relative_path_of(tmp_path, 4400, "e") + "/c.csv"
    line = refused(_memrel("run", "-b", "null", "--include-null", "-w", given, "-o", "r.json",
                           cwd=tmp_path), given, "File name too long")
    assert "benchmarks/workloads" not in line and ".csv.json" not in line


@needs_memrel
def test_a_relative_tmpdir_too_long_for_memrels_files_is_the_machines_state(tmp_path):
    """c9-run-relative-long-tmpdir-blamed-on-o: a relative TMPDIR of 4070 bytes made `run -w x.csv`
    say "-o TMPDIR/memrel-run-X/trace-1.memtrace: ...", exit 2, an -o nobody gave; the same folder
    spelt absolute was exit 4 naming TMPDIR."""
    tmpdir = _relative_path_of(tmp_path, 4070, "t")
    os.makedirs(tmp_path / tmpdir)
    (tmp_path / "log.csv").write_text(RMM_LOG)
    r = _memrel("run", "-b", "null", "--include-null", "-w", "log.csv", "-o", "r.json",
                cwd=tmp_path, env={**os.environ, "TMPDIR": tmpdir})
    line = refused(r, "TMPDIR", "bytes long", exit_code=4)
    assert not line.startswith("memrel: -o")


def _long_folder(tmp_path):
    long = tmp_path / ("z" * 240)
    long.mkdir()
    return long


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", "-o", "{}/x.memtrace", "log.csv"],
                                     ["run", "-b", "null", "--include-null", "-w",
                                      "temp-then-delete", "-o", "{}/r.json"],
                                     ["report", "--out", "{}/rep", HOST_RUN]],
                         ids=["trace-import", "run", "report"])
def test_an_output_in_an_existing_folder_of_a_long_name_is_written(tmp_path, command):
    """c8-existing-long-folder-output-refused: every name on an output's way was held to 255 less
    the 16 bytes of a temporary's suffix, though only the output's own name takes one: an output
    in an existing folder of 240 bytes was refused, exit 2."""
    long = _long_folder(tmp_path)
    (tmp_path / "log.csv").write_text(RMM_LOG)
    r = _memrel(*[a.replace("{}", str(long)) for a in command], cwd=tmp_path)
    assert r.returncode == 0, r.stderr


@needs_memrel
def test_the_outputs_own_name_still_leaves_room_for_its_suffix(tmp_path):
    refused(_memrel("run", "-b", "null", "--include-null", "-w", "temp-then-delete", "-o",
                    "z" * 245, cwd=tmp_path), "a name here holds 239 at most")
    refused(_memrel("run", "-b", "null", "--include-null", "-w", "temp-then-delete", "-o",
                    "z" * 256 + "/r.json", cwd=tmp_path), "a name here holds 255 at most")


@needs_memrel
def test_a_tmpdir_of_a_long_name_imports_a_runs_trace(tmp_path):
    """c8-long-tmpdir-name-run-trace-blames-o: with TMPDIR a folder of a 240-byte name, `run -w
    log.csv` was "-o $TMPDIR/memrel-run-X/trace-1.memtrace: the name ... is 240 bytes", exit 2,
    where `trace import` under it worked."""
    long = _long_folder(tmp_path)
    (tmp_path / "log.csv").write_text(RMM_LOG)
    r = _memrel("run", "-b", "null", "--include-null", "-w", "log.csv", "-o", "r.json",
                cwd=tmp_path, env={**os.environ, "TMPDIR": str(long)})
    assert r.returncode == 0, r.stderr


@needs_memrel
@pytest.mark.parametrize("option,value", [("--byte-tolerance", "99.0000000000000000001%"),
                                          ("--latency-min-change", "10.0000000000000000001"),
                                          ("--alpha", "0.50000000000000000001"),
                                          ("--alpha", "0.00000000099999999999999999")])
def test_a_threshold_past_its_bound_in_far_digits_is_refused(tmp_path, option, value):
    """c4-threshold-past-bound-rounds-in: a value past a threshold's range only in digits a double
    cannot hold was read as the bound and taken, exit 0; compared as written now."""
    refused(_memrel("compare", HOST_RUN, HOST_RUN, option, value, cwd=tmp_path), option, value)


@needs_memrel
@pytest.mark.parametrize("option,value", [("--byte-tolerance", "99.000%"),
                                          ("--latency-min-change", "1e1"),
                                          ("--alpha", "0.5000"), ("--alpha", "1e-9")])
def test_a_threshold_at_its_bound_in_any_spelling_is_taken(tmp_path, option, value):
    r = _memrel("compare", HOST_RUN, HOST_RUN, option, value, cwd=tmp_path)
    assert r.returncode == 0, r.stderr


@needs_memrel
@pytest.mark.parametrize("command", [["bench", "-b", "null", "--quick", "-o", "o"],
                                     ["ab", "-b", "null", "--quick", "--out", "o"]])
def test_min_time_past_its_bound_in_far_digits_is_refused(tmp_path, command):
    refused(_memrel(*command, "--min-time", "86400.00000000000000001", cwd=tmp_path),
            "--min-time", "86400.00000000000000001")
    assert not (tmp_path / "o").exists()


@needs_memrel
@pytest.mark.parametrize("option,value", [("--min-magnitude", "10.0000000000000000001"),
                                          ("--max-pvalue", "0.50000000000000000001")])
def test_history_changes_thresholds_are_compared_as_written(tmp_path, option, value):
    subprocess.run([MEMREL, "history", "--db", "h.sqlite", "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    refused(_memrel("history", "--db", "h.sqlite", "changes", option, value, cwd=tmp_path),
            option, value)
    r = _memrel("history", "--db", "h.sqlite", "changes", option, value[:4].rstrip("."),
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr


@needs_memrel
def test_a_threshold_too_small_for_a_double_says_so(tmp_path):
    """Noted with c4-threshold-past-bound-rounds-in: `--latency-min-change 1e-400` was "not a
    finite number from 0 to 10", which it is; the Python side says "too small"."""
    refused(_memrel("compare", HOST_RUN, HOST_RUN, "--latency-min-change", "1e-400",
                    cwd=tmp_path), "--latency-min-change", "too small for a number here")


@needs_memrel
def test_a_threshold_past_its_bound_beyond_28_digits_is_refused_by_history_changes(tmp_path):
    """The review of this pass's fix: the Python check read the text in 28 digits (Decimal's
    default), and 10.00000000000000000000000000001 was 10 again."""
    subprocess.run([MEMREL, "history", "--db", "h.sqlite", "add", HOST_RUN], check=True,
                   capture_output=True, cwd=tmp_path, timeout=120)
    value = "10." + "0" * 40 + "1"
    refused(_memrel("history", "--db", "h.sqlite", "changes", "--min-magnitude", value,
                    cwd=tmp_path), "--min-magnitude")


@needs_memrel
def test_a_tmpdir_with_room_for_memrels_own_names_is_taken(tmp_path):
    """The review of this pass's fix: 320 bytes were kept under the limit for memrel's names in
    TMPDIR, which take about 60; a TMPDIR of 3900 bytes, spelt absolute, ran no cell."""
    tmpdir = _relative_path_of(tmp_path, 3900, "t")
    os.makedirs(tmp_path / tmpdir)
    (tmp_path / "log.csv").write_text(RMM_LOG)
    r = _memrel("run", "-b", "null", "--include-null", "-w", "log.csv", "-o", "r.json",
                cwd=tmp_path, env={**os.environ, "TMPDIR": tmpdir})
    assert r.returncode == 0, r.stderr


@needs_memrel
def test_a_path_of_exactly_the_longest_length_is_said_so(tmp_path):
    """The review of this pass's fix: a path of 4080 bytes was refused as "over 4080 bytes long";
    with its 16-byte suffix and the terminating NUL it is one too long, and the line says 4079."""
    out = _relative_path_of(tmp_path, 4080, "p")
    os.makedirs(tmp_path / os.path.dirname(out))
    refused(_memrel("run", "-b", "null", "--include-null", "-w", "temp-then-delete", "-o", out,
                    cwd=tmp_path), "the path is over 4079 bytes long")
