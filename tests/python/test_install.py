"""`cmake --install` into a prefix, then memrel used from that prefix alone, as after deleting the
clone: run (host backends and a pluggable example library), report, trace import of the committed
RMM log, list and the benchmarks' help.

"The clone deleted" without deleting it (other people build in it): the commands run in a private
mount namespace (`unshare --user --map-root-user --mount`) where an empty tmpfs is mounted over the
source tree, which holds the build tree too. Only this test's processes see the empty folder. A
binary that read a workload, a backend file, a Python package or a plugin from the source or build
tree would fail there. Where strace is installed the same commands also run under it, and no file
path they touch may lie in the source tree (a lookup that fails quietly, e.g. a fallback probing
the build tree, is caught this way too).

Needs a configured and built build/ci (scripts/test builds it first; MEMREL_BUILD_DIR picks
another); skipped with the reason where it is absent or the kernel refuses user namespaces.
"""

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import ROOT

BUILD = os.environ.get("MEMREL_BUILD_DIR") or os.path.join(ROOT, "build", "ci")
TRACE_SOURCE = "share/memrel/trace-sources/rmm-pool-convnet.csv"


def _namespaces_work():
    if not shutil.which("unshare"):
        return False
    r = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "true"],
                       capture_output=True)
    return r.returncode == 0


pytestmark = [
    pytest.mark.skipif(not os.path.exists(os.path.join(BUILD, "cmake_install.cmake"))
                       or not os.access(os.path.join(BUILD, "memrel"), os.X_OK),
                       reason=f"{BUILD} is not a built build folder (scripts/build ci)"),
    pytest.mark.skipif(not _namespaces_work(),
                       reason="unshare --user --mount refused here: the source tree cannot be hidden"),
]


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """The build installed into a fresh prefix, with nothing else copied."""
    root = tmp_path_factory.mktemp("install")
    assert not str(root).startswith(ROOT + os.sep), "the prefix must lie outside the source tree"
    prefix = root / "prefix"
    started = time.monotonic()
    r = subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    print(f"cmake --install: {time.monotonic() - started:.1f} s")
    return prefix


def test_the_prefix_holds_what_memrel_needs(prefix):
    for path in ("bin/memrel", "bin/memrel_bench",
                 "lib/memrel/libmemrel_pluggable_host_example.so",
                 "share/memrel/workloads/temp-then-delete.json",
                 "share/memrel/backends/pluggable-host-example.json",
                 TRACE_SOURCE,
                 "share/memrel/python/memrel_report/__main__.py",
                 "share/memrel/python/memrel_trace/__main__.py",
                 "share/memrel/python/memrel_history/__main__.py",
                 "share/memrel/python/memrel_help.py",
                 "share/doc/memrel/LICENSE"):
        assert (prefix / path).is_file(), f"{path} not installed"
    assert "Apache License" in (prefix / "share/doc/memrel/LICENSE").read_text()
    # The embedded-Python plugin (xla, cupy: docs/frameworks.md) goes where the cell looks for it.
    if os.path.isfile(os.path.join(BUILD, "libmemrel_python.so")):
        assert (prefix / "lib/memrel/libmemrel_python.so").is_file(), "the Python plugin not installed"
    # Nothing of the build tree: no marker naming the source, no caches.
    assert not list(prefix.rglob("memrel-build-tree")) and not list(prefix.rglob("__pycache__"))


# Run inside the namespace by bash: each command's output in its own files, its exit code in
# a third, so that one failing command does not hide the others.
SCRIPT = r"""
set -u
mount -t tmpfs -o size=1m memrel-hidden "$SOURCE" || { echo "cannot hide $SOURCE" >&2; exit 97; }
[[ -z $(ls -A "$SOURCE") ]] || { echo "$SOURCE still visible" >&2; exit 98; }
cd "$WORK"
step() {
  local name=$1; shift
  "${TRACER[@]}" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  echo $? >"$WORK/$name.rc"
}
TRACER=()
if [[ -n $STRACE ]]; then TRACER=("$STRACE" -f -qq -e trace=%file -o "$WORK/strace.log" -A --); fi
step version "$PREFIX/bin/memrel" --version
step list "$PREFIX/bin/memrel" list
step run "$PREFIX/bin/memrel" run -b host-malloc,pluggable-host-example -w temp-then-delete
step bench_help "$PREFIX/bin/memrel_bench" --help
step import "$PREFIX/bin/memrel" trace import "$PREFIX/$TRACE_SOURCE" -o "$WORK/convnet.memtrace"
step validate "$PREFIX/bin/memrel" validate "$WORK/convnet.memtrace"
results=$(ls "$XDG_DATA_HOME"/memrel/runs/*.json 2>/dev/null | grep -v journal | head -1)
step report "$PREFIX/bin/memrel" report --out "$WORK/report" "$results"
exit 0
"""


@pytest.fixture(scope="module")
def hidden_run(prefix, tmp_path_factory):
    work = tmp_path_factory.mktemp("work")
    strace = shutil.which("strace") or ""
    # Nothing that points into the source tree: no PYTHONPATH, no MEMREL_* variable, results in a
    # data home of this test's own.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MEMREL_") and k not in ("PYTHONPATH", "OLDPWD", "PWD")}
    env.update(SOURCE=ROOT, WORK=str(work), PREFIX=str(prefix), STRACE=strace,
               TRACE_SOURCE=TRACE_SOURCE, XDG_DATA_HOME=str(work / "data"),
               MPLBACKEND="Agg", MEMREL_PYTHON=sys.executable)
    started = time.monotonic()
    r = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "bash", "-c", SCRIPT],
                       capture_output=True, text=True, env=env, cwd=str(work), timeout=600)
    print(f"commands from the prefix: {time.monotonic() - started:.1f} s")
    assert r.returncode == 0, r.stderr

    def step(name):
        return (int((work / f"{name}.rc").read_text()), (work / f"{name}.out").read_text(),
                (work / f"{name}.err").read_text())

    return work, step, strace


def test_version_names_the_project_version_and_commit(hidden_run):
    _, step, _ = hidden_run
    rc, out, err = step("version")
    assert rc == 0, err
    assert out.startswith("memrel 0.1.0 (commit ") and out.count("\n") == 1, out


def test_list_reads_the_installed_backend_files(hidden_run, prefix):
    _, step, _ = hidden_run
    rc, out, err = step("list")
    assert rc == 0, err
    assert f"{prefix}/share/memrel/backends" in out and "pluggable-host-example" in out
    assert "temp-then-delete" in out
    # Found from the prefix: the xla and cupy rows do not say that the plugin is missing.
    assert "xla-bfc" in out and "cupy-pool" in out
    assert "libmemrel_python.so is missing" not in out


def test_run_writes_its_results_under_the_data_home(hidden_run):
    work, step, _ = hidden_run
    rc, out, err = step("run")
    assert rc == 0, out + err
    runs = [p for p in (work / "data" / "memrel" / "runs").glob("*.json")
            if "journal" not in p.name]
    assert len(runs) == 1, list((work / "data").rglob("*"))
    doc = json.loads(runs[0].read_text())
    status = {c["backend"]: c["status"] for c in doc["cells"]}
    # The pluggable example is a library found in the prefix's lib/memrel, loaded in the cell.
    assert status == {"host-malloc": "ok", "pluggable-host-example": "ok"}, status
    # Installed, the commit is the one the binary was built from; no checkout is asked.
    assert doc["context"]["memrel_version"] == "0.1.0"


def test_bench_finds_the_installed_backend_files(hidden_run, prefix):
    _, step, _ = hidden_run
    rc, out, err = step("bench_help")
    assert rc == 0, err
    assert f"{prefix}/share/memrel/backends" in out + err


def test_trace_import_runs_the_installed_importer(hidden_run):
    work, step, _ = hidden_run
    rc, out, err = step("import")
    assert rc == 0, out + err
    rc, out, err = step("validate")
    assert rc == 0, out + err
    assert (work / "convnet.memtrace").read_bytes().startswith(b"MEMTRACE")


def test_report_runs_the_installed_report(hidden_run):
    work, step, _ = hidden_run
    rc, out, err = step("report")
    assert rc == 0, out + err
    assert (work / "report" / "index.html").is_file() and (work / "report" / "report.md").is_file()


def test_nothing_touched_the_source_tree(hidden_run):
    work, _, strace = hidden_run
    if not strace:
        pytest.skip("strace not installed: the hidden tree alone shows it (the commands passed)")
    log = (work / "strace.log").read_text().splitlines()
    # The trace saw the commands at work (an empty log would pass anything).
    assert any("/share/memrel/workloads" in line for line in log)
    assert any("memrel_report" in line for line in log)
    touched = [line for line in log if f'"{ROOT}/' in line or f'"{ROOT}"' in line]
    assert not touched, "\n".join(touched[:10])
