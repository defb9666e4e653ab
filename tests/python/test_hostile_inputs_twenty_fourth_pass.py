"""What the twenty-fourth adversarial pass of issue 23 found (docs/inputs.md, "Twenty-fourth
pass"): each test fails on the code before its fix."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

from conftest import ROOT, SCRIPTS
from test_hostile_inputs import MEMREL, RMM_LOG, needs_memrel


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
