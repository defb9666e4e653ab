"""What the twenty-fourth adversarial pass of issue 23 found (docs/inputs.md, "Twenty-fourth
pass"): each test fails on the code before its fix."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import HOST_RUN, ROOT, SCRIPTS
from test_hostile_inputs import MEMREL, RMM_LOG, needs_memrel, refused


def executable(path, text):
    path.write_text(text)
    path.chmod(0o755)
    return path


@needs_memrel
def test_git_is_asked_with_an_argv_outside_the_working_folder_and_our_git_variables(tmp_path):
    """c3-build-tree-folder-quote-runs-shell, c3-run-path-dot-runs-cwd-git,
    c8-git-dir-env-wrong-commit: memrel asked git for its commit through popen's shell, so a
    checkout folder named with a quote ran as shell code, PATH's "." ran the working folder's
    ./git, and a GIT_DIR of ours (a git hook's) recorded another repository's commit as memrel's."""
    work = tmp_path / "work"
    work.mkdir()
    copy = tmp_path / "x';touch PWNED;'"
    (copy / "build" / "ci").mkdir(parents=True)
    shutil.copytree(SCRIPTS, copy / "scripts", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(ROOT, "benchmarks"), copy / "benchmarks")
    shutil.copy(MEMREL, copy / "build" / "ci" / "memrel")
    (copy / "build" / "ci" / "memrel-build-tree").write_text(str(copy))
    executable(work / "git", f"#!/bin/sh\ntouch {tmp_path}/RAN\n")
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    subprocess.run(["git", "-C", str(other), "-c", "user.email=a@b", "-c", "user.name=a", "commit",
                    "-q", "--allow-empty", "-m", "x"], check=True)
    env = {k: v for k, v in os.environ.items() if k != "MEMREL_GIT_COMMIT"}
    env.update(PATH=".:" + os.environ["PATH"], GIT_DIR=str(other / ".git"))
    r = subprocess.run([str(copy / "build" / "ci" / "memrel"), "-q", "run", "-b", "host-malloc", "-w",
                        "temp-then-delete", "-o", "r.json"], capture_output=True, text=True,
                       cwd=work, env=env, timeout=300)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert not (work / "PWNED").exists() and not (tmp_path / "RAN").exists()
    # The copy is no checkout: its commit is unknown, never the other repository's.
    assert json.loads((work / "r.json").read_text())["context"]["git_commit"] is None


@needs_memrel
def test_a_git_that_never_answers_ends_with_a_stopped_run(tmp_path):
    """c8-git-hangs-run-hangs, c8-git-hangs-sigkill-orphan: memrel waited on git without a bound
    (SIGTERM or not), and a git it started outlived a SIGKILLed memrel."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    executable(bin_dir / "git", f"#!/bin/sh\necho $$ > {tmp_path}/git.pid\nexec sleep 60\n")
    env = {k: v for k, v in os.environ.items() if k != "MEMREL_GIT_COMMIT"}
    env["PATH"] = f"{bin_dir}:{os.environ['PATH']}"
    for stop in (signal.SIGTERM, signal.SIGKILL):
        (tmp_path / "git.pid").unlink(missing_ok=True)
        p = subprocess.Popen([MEMREL, "-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o",
                              "r.json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=tmp_path, env=env)
        for _ in range(600):
            if (tmp_path / "git.pid").exists() and (tmp_path / "git.pid").read_text().strip():
                break
            time.sleep(0.05)
        git = int((tmp_path / "git.pid").read_text())
        p.send_signal(stop)
        _, err = p.communicate(timeout=30)
        assert p.returncode == (143 if stop == signal.SIGTERM else -9), (p.returncode, err)
        for _ in range(100):  # the kernel's parent-death signal takes a moment
            if not os.path.exists(f"/proc/{git}") or "Z" in open(f"/proc/{git}/stat").read().split()[2]:
                break
            time.sleep(0.05)
        else:
            os.kill(git, signal.SIGKILL)
            raise AssertionError(f"git outlived memrel ({stop.name})")
        assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_a_python_found_on_path_looks_its_own_commands_up_outside_the_working_folder(tmp_path):
    """c3-pyenv-shim-runs-cwd-python3: memrel skipped PATH's "." when it found python3, but
    the python3 it found (pyenv's shim) looked the real interpreter up on the PATH memrel handed
    on, "." included, and ran the working folder's."""
    shims, real = tmp_path / "shims", tmp_path / "real"
    shims.mkdir()
    real.mkdir()
    executable(shims / "python3", "#!/bin/sh\nexec memrel-test-real-python \"$@\"\n")
    executable(real / "memrel-test-real-python", f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    work = tmp_path / "work"
    work.mkdir()
    executable(work / "memrel-test-real-python", f"#!/bin/sh\ntouch {tmp_path}/RAN\nexec {sys.executable} \"$@\"\n")
    shutil.copy(RMM_LOG, work / "log.csv")
    env = {k: v for k, v in os.environ.items() if k != "MEMREL_PYTHON"}
    env["PATH"] = f".:{shims}:{real}:{os.environ['PATH']}"
    r = subprocess.run([MEMREL, "-q", "trace", "import", "log.csv", "-o", "t.memtrace"],
                       capture_output=True, text=True, cwd=work, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "RAN").exists()


def _wait_for(predicate, what, seconds=120):
    for _ in range(int(seconds / 0.02)):
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"never saw {what}")


@needs_memrel
@pytest.mark.parametrize("stop, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stop_reaches_the_python_a_wrapper_interpreter_runs(tmp_path, stop, code):
    """c9-sigterm-report-wrapper-python, c9-sigint-report-wrapper-python: MEMREL_PYTHON a
    wrapper that runs python without exec (a shim), memrel passed its stop request to the wrapper
    alone. SIGTERM ended the wrapper, memrel killed the Python at once and its DIR.tmp-PID stayed;
    SIGINT never reached the Python, which finished the report, exit 0."""
    wrapper = executable(tmp_path / "wrap.sh", f"#!/bin/bash\n{sys.executable} \"$@\"\n")
    p = subprocess.Popen([MEMREL, "-q", "report", "--out", "R", HOST_RUN], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                         env=dict(os.environ, MEMREL_PYTHON=str(wrapper)))
    try:
        _wait_for(lambda: any(n.startswith("R.tmp-") for n in os.listdir(tmp_path)), "R.tmp-PID")
        p.send_signal(stop)
        _, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == code, (p.returncode, err)
    assert sorted(os.listdir(tmp_path)) == ["wrap.sh"]


@needs_memrel
def test_a_stop_during_advises_interpreter_probe_is_the_stop(tmp_path):
    """c9-sigterm-advise-during-python-probe: SIGTERM while advise asked its interpreter for its
    version ended the probe, and advise said the interpreter "did not answer within 10 s", exit 4."""
    r = subprocess.run([MEMREL, "-q", "trace", "import", "-o", "t.memtrace", RMM_LOG],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    slow = executable(tmp_path / "slow.sh",
                      f"#!/bin/bash\ntouch {tmp_path}/probing\nsleep 30\nexec {sys.executable} \"$@\"\n")
    p = subprocess.Popen([MEMREL, "-q", "advise", "-b", "host-malloc", "--out", "A", "t.memtrace"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                         env=dict(os.environ, MEMREL_PYTHON=str(slow)))
    try:
        _wait_for(lambda: (tmp_path / "probing").exists(), "the probe")
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == 143, (p.returncode, err)
    assert "did not answer" not in err and "SIGTERM" in err, err


@needs_memrel
def test_quiet_merge_and_history_add_print_the_outputs_path_alone(tmp_path):
    """c10-merge-quiet, c10-history-add-quiet: -q ("no progress lines; errors and the results'
    path still print") changed nothing for merge's summary and history add's line per file."""
    r = subprocess.run([MEMREL, "-q", "run", "--shard", "1/1", "-b", "host-malloc", "-w",
                        "temp-then-delete", "-o", "s.json"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "-q", "merge", "-o", "m.json", "s.json"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300)
    assert (r.returncode, r.stdout, r.stderr) == (0, "m.json\n", "")
    r = subprocess.run([MEMREL, "history", "--db", "h.sqlite", "add", "-q", "m.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert (r.returncode, r.stdout, r.stderr) == (0, "history: h.sqlite\n", "")


def _backend_file(path, name, **changes):
    backend = json.loads(open(os.path.join(ROOT, "benchmarks", "backends",
                                           "pluggable-host-example.json")).read())
    backend.update(name=name, library=os.path.join(os.path.dirname(MEMREL),
                                                   "libmemrel_pluggable_host_example.so"), **changes)
    path.write_text(json.dumps(backend))


@needs_memrel
def test_advise_sweeps_the_backend_file_given_by_its_path(tmp_path):
    """c10-advise-b-backend-file-path-refused, c10-advise-b-backend-file-substituted,
    c10-advise-backend-file-missing-symbol-exit3: advise handed the runner a backend file's name,
    not its path: "unknown backend", or the --backends-dir file of that name swept instead of the
    file given; and a file whose symbol is missing (refused by run, exit 2) was a failed
    configuration, exit 3."""
    r = subprocess.run([MEMREL, "-q", "trace", "import", "-o", "t.memtrace", RMM_LOG],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    (tmp_path / "BD").mkdir()
    _backend_file(tmp_path / "BD" / "mine.json", "mine")
    _backend_file(tmp_path / "given.json", "mine", alloc="no_such_symbol_anywhere")
    _backend_file(tmp_path / "ok.json", "ok")
    r = subprocess.run([MEMREL, "-q", "--backends-dir", "BD", "advise", "-b", "./given.json", "--out",
                        "A", "t.memtrace"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    refused(r, "given.json", "no_such_symbol_anywhere")
    assert not (tmp_path / "A").exists()
    # The same file as a grid's entry (c10-advise-grid-backend-file-substituted).
    (tmp_path / "g.json").write_text(json.dumps({"schema": "memrel.advise-grid/1",
                                                 "configurations": ["./given.json"]}))
    r = subprocess.run([MEMREL, "-q", "--backends-dir", "BD", "advise", "-b", "host-malloc", "--grid",
                        "g.json", "--out", "A", "t.memtrace"], capture_output=True, text=True,
                       cwd=tmp_path, timeout=300)
    refused(r, "given.json", "no_such_symbol_anywhere")
    assert not (tmp_path / "A").exists()
    r = subprocess.run([MEMREL, "-q", "advise", "-b", "./ok.json", "--out", "A", "t.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    cells = json.loads((tmp_path / "A" / "results.json").read_text())["cells"]
    assert [(c["backend"], c["status"]) for c in cells] == [("ok", "ok")]


@needs_memrel
def test_advise_with_an_unusable_tmpdir_says_so_and_leaves_nothing(tmp_path):
    """advise found a TMPDIR that cannot take a cell's files at its first cell: "internal
    error", and a journal of no cell left in --out."""
    r = subprocess.run([MEMREL, "-q", "trace", "import", "-o", "t.memtrace", RMM_LOG],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "-q", "advise", "-b", "host-malloc", "--out", "A", "t.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300,
                       env=dict(os.environ, TMPDIR=str(tmp_path / "none")))
    refused(r, "TMPDIR", "no such folder", exit_code=4)
    assert sorted(os.listdir(tmp_path)) == ["t.memtrace"]


@needs_memrel
def test_an_effectiveness_that_is_not_its_parts_ratio_is_refused(tmp_path):
    """c4-baseline-negative-effectiveness-masks-regression: a baseline whose release
    effectiveness read -1000000 (its bytes unchanged) made a real release regression read as
    improved, exit 0."""
    run = json.loads(open(HOST_RUN).read())
    cell = next(c for c in run["cells"] if (c["backend"], c["workload"]) == ("host-malloc-retain", "paired-large"))
    cell["metrics"]["release_effectiveness"] = -1000000.0
    (tmp_path / "forged.json").write_text(json.dumps(run))
    r = subprocess.run([MEMREL, "-q", "compare", "forged.json", HOST_RUN], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    refused(r, "forged.json", "metrics.release_effectiveness", "returned / releasable")
    cell["metrics"]["release_effectiveness"] = None
    cell["metrics"]["releases"][1]["effectiveness"] = -1000000.0
    (tmp_path / "forged.json").write_text(json.dumps(run))
    r = subprocess.run([MEMREL, "-q", "compare", "forged.json", HOST_RUN], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120)
    refused(r, "forged.json", "metrics.releases[1].effectiveness")


@needs_memrel
@pytest.mark.parametrize("value", ["abc", "1e3", "0x10", "-5", "99999999999999999999"])
def test_the_examples_planted_slowdown_takes_whole_nanoseconds_alone(tmp_path, value):
    """c4-example-slowdown-env-garbage, c4-example-slowdown-env-huge: the example allocators read
    MEMREL_EXAMPLE_SLOWDOWN_NS with strtoll (1e3 was 1 ns, 0x10 and abc 0), and a huge value spun
    every cell to its timeout, recorded as the allocator's failure."""
    r = subprocess.run([MEMREL, "-q", "run", "-b", "pluggable-host-example", "-w", "temp-then-delete",
                        "-o", "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=dict(os.environ, MEMREL_EXAMPLE_SLOWDOWN_NS=value))
    refused(r, "MEMREL_EXAMPLE_SLOWDOWN_NS", "whole nanoseconds")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_without_proc_memrel_says_so(tmp_path):
    """c8-no-proc-run-blames-workloads-dir: without /proc (a container or chroot lacking it) a run
    said "--workloads-dir: cannot read", exit 2, of an option never given."""
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no mount namespace here (unshare -m): cannot hide /proc")
    r = subprocess.run(["unshare", "-m", "sh", "-c", 'mount -t tmpfs -o size=4k tmpfs /proc && exec "$@"',
                        "sh", MEMREL, "-q", "run", "-b", "host-malloc", "-w", "temp-then-delete", "-o",
                        "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "/proc/self/exe", "is /proc mounted?", exit_code=4)
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_a_library_named_bare_and_found_on_ld_library_path_is_part_of_the_run(tmp_path):
    """c5-merge-shards-other-bare-name-library, c5-resume-*-bare-name-library: a backend file's
    library named by its bare name and found through LD_LIBRARY_PATH was not among the run's
    inputs, so shards (and a --resume) of two different libraries of that name were one run."""
    library = os.path.join(os.path.dirname(MEMREL), "libmemrel_pluggable_host_example.so")
    for folder, extra in (("d1", b""), ("d2", b"rebuilt")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "libmemtest.so").write_bytes(open(library, "rb").read() + extra)
    _backend_file(tmp_path / "bk.json", "bk")
    backend = json.loads((tmp_path / "bk.json").read_text())
    backend["library"] = "libmemtest.so"
    (tmp_path / "bk.json").write_text(json.dumps(backend))
    for shard, folder in (("1/2", "d1"), ("2/2", "d2")):
        r = subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc,./bk.json", "-w",
                            "temp-then-delete,fragmentation", "--shard", shard, "-o",
                            f"s{shard[0]}.json"], capture_output=True, text=True, cwd=tmp_path,
                           timeout=300, env=dict(os.environ, LD_LIBRARY_PATH=str(tmp_path / folder)))
        assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "-q", "merge", "-o", "m.json", "s1.json", "s2.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "s2.json")
    assert not (tmp_path / "m.json").exists()


@needs_memrel
def test_a_report_refuses_two_traces_of_one_name_from_two_runs(tmp_path):
    """c6-report-two-traces-one-name-two-runs: two different traces named T, one replayed in each
    of two runs, were drawn as one trace page, exit 0 (a trace and a JSON workload of one name
    were refused already)."""
    lines = open(RMM_LOG).read().splitlines(keepends=True)
    (tmp_path / "a.csv").write_text("".join(lines))
    (tmp_path / "b.csv").write_text("".join(lines[:201]))
    for run, backend in (("a", "host-malloc"), ("b", "host-malloc-retain")):
        for args in (["trace", "import", "--name", "T", "-o", f"{run}.memtrace", f"{run}.csv"],
                     ["run", "-b", backend, "-w", f"./{run}.memtrace", "-o", f"r{run}.json"]):
            r = subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=tmp_path,
                               timeout=300)
            assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "-q", "report", "--out", "R", "ra.json", "rb.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    refused(r, "rb.json", "'T'", "two traces of one name")
    assert not (tmp_path / "R").exists()


@needs_memrel
def test_a_compare_stopped_before_its_outputs_writes_none_and_says_so(tmp_path):
    """c9-sigterm-compare-outputs-partly-written: SIGTERM near the end of a large compare ended it
    without a word (the default death), some of its outputs replaced."""
    run = json.loads(open(HOST_RUN).read())
    run["cells"] = [dict(c, workload=f"{c['workload']}-{i}") for i in range(150) for c in run["cells"]]
    (tmp_path / "big.json").write_text(json.dumps(run))
    p = subprocess.Popen([MEMREL, "-q", "compare", "big.json", "big.json", "--markdown", "m.md",
                          "--json", "v.json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, cwd=tmp_path)
    time.sleep(1.0)  # reading the two files takes seconds
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 143, (p.returncode, err)
    assert err.strip().splitlines() == ["memrel: interrupted by SIGTERM; nothing written"], err
    assert sorted(os.listdir(tmp_path)) == ["big.json"]
