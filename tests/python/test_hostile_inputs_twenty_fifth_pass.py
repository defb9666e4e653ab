"""What the twenty-fifth adversarial pass of issue 23 found (docs/inputs.md, "Twenty-fifth
pass"): each test fails on the code before its fix."""

import json
import os
import signal
import subprocess
import time

import pytest

from conftest import HOST_RUN
from test_hostile_inputs import MEMREL, needs_memrel, refused


@needs_memrel
@pytest.mark.parametrize("target", ["nowhere", "loop"])
def test_a_refused_ab_leaves_a_link_on_its_out_path_alone(tmp_path, target):
    """c2-ab-out-under-dangling-symlink-deletes-it, c2-ab-out-under-symlink-loop-deletes-it: ab
    took a dangling link (or a loop) on --out's path for a folder not there, made for the run,
    and removed the user's link as it refused the --out."""
    os.symlink(target, tmp_path / "loop" if target == "loop" else tmp_path / "dang")
    name = "loop" if target == "loop" else "dang"
    r = subprocess.run([MEMREL, "-q", "ab", "-b", "host-malloc", "--rounds", "5", "--quick", "--out",
                        f"{name}/x"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, name)
    assert os.path.islink(tmp_path / name) and sorted(os.listdir(tmp_path)) == [name]


@needs_memrel
@pytest.mark.parametrize("command", [["run", "-b", "host-malloc", "-w", "temp-then-delete", "-o", "loop/r.json"],
                                     ["bench", "-b", "host-malloc", "--quick", "-o", "loop/b"]])
def test_an_output_under_a_loop_of_links_is_bad_input(tmp_path, command):
    """c2-run-o-under-symlink-loop-exit4, c2-bench-o-under-symlink-loop-exit4: "internal error:
    filesystem error: status: Too many levels of symbolic links", exit 4."""
    os.symlink("loop", tmp_path / "loop")
    r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, "loop", "a loop of symbolic links")
    assert sorted(os.listdir(tmp_path)) == ["loop"]


@needs_memrel
def test_no_matplotlib_file_of_the_users_holds_a_report(tmp_path):
    """c8-matplotlibrc-fifo-hangs-report, c8-mplconfigdir-rc-fifo-hangs-report,
    c8-mplconfigdir-fontcache-fifo-hangs-report: a FIFO as $MATPLOTLIBRC, as
    $MPLCONFIGDIR/matplotlibrc or as its font cache held the report for ever. The user's rc files
    are not read (every parameter is matplotlib's default anyway), and a font cache that is not
    a file is not used."""
    config = tmp_path / "config"
    config.mkdir()
    os.mkfifo(config / "matplotlibrc")
    os.mkfifo(config / "fontlist-v390.json")
    os.mkfifo(tmp_path / "rc")
    env = dict(os.environ, MATPLOTLIBRC=str(tmp_path / "rc"), MPLCONFIGDIR=str(config))
    r = subprocess.run([MEMREL, "-q", "report", "--out", "R", HOST_RUN], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120, env=env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert (tmp_path / "R" / "index.html").exists()


@needs_memrel
def test_a_stopped_bench_removes_the_folders_it_made(tmp_path):
    """c9-sigTERM-bench-made-folders: bench stopped before any backend's file was in place left
    the -o and --logs folders it had made, empty."""
    p = subprocess.Popen([MEMREL, "-q", "bench", "-b", "host-malloc,host-malloc-retain", "--quick",
                          "-o", "n1/n2/B", "--logs", "n3/L"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    for _ in range(3000):
        if (tmp_path / "n3" / "L").exists():
            break
        time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 143, (p.returncode, err)
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_a_name_too_long_for_the_file_system_is_bad_input(tmp_path):
    """c10-run-w-long-name-exit4: `-w` of 300 letters, looked for in the workloads folder, was
    "internal error: filesystem error: File name too long", exit 4."""
    r = subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc", "-w", "y" * 300, "-o", "r.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    refused(r, "File name too long")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_the_examples_planted_slowdown_is_part_of_what_a_cell_records(tmp_path):
    """c5-resume-other-example-slowdown: a --resume under another MEMREL_EXAMPLE_SLOWDOWN_NS was
    taken for the same run (two speeds in one file): the variable is recorded with each cell and
    is part of what makes two runs one, as MALLOC_ARENA_MAX is."""
    r = subprocess.run([MEMREL, "-q", "run", "-b", "pluggable-host-example", "-w", "temp-then-delete",
                        "-o", "r.json"], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                       env=dict(os.environ, MEMREL_EXAMPLE_SLOWDOWN_NS="100"))
    assert r.returncode == 0, r.stderr
    cell = json.loads((tmp_path / "r.json").read_text())["cells"][0]
    assert cell["setup"]["environment"].get("MEMREL_EXAMPLE_SLOWDOWN_NS") == "100"


@needs_memrel
def test_no_font_of_the_users_holds_a_report(tmp_path):
    """c8-home-fonts-fifo-hangs-report: matplotlib, building its font list (a cache folder
    without one), opened a FIFO in ~/.fonts and the report waited for ever."""
    (tmp_path / "h" / ".fonts").mkdir(parents=True)
    os.mkfifo(tmp_path / "h" / ".fonts" / "x.ttf")
    (tmp_path / "cfg").mkdir()
    env = dict(os.environ, HOME=str(tmp_path / "h"), MPLCONFIGDIR=str(tmp_path / "cfg"))
    r = subprocess.run([MEMREL, "-q", "report", "--out", "R", HOST_RUN], capture_output=True,
                       text=True, cwd=tmp_path, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "R" / "index.html").exists()
