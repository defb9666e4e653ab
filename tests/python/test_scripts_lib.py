"""scripts/lib/common.sh, the bash functions the entry scripts share, run through bash with stub
executables (a fake memrel, python and nvidia-smi in a temp folder): the gate options per
baseline, the LibTorch lookup, and checks that the scripts call the library instead of writing
their own copies again, and run the latency benchmarks through `memrel bench` (tested in
tests/cli/bench_test.cpp) with no loop over memrel_bench and no GPU-list parser of their own.

Run from the repository root: python3 -m pytest -q tests/python/test_scripts_lib.py
"""

import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
COMMON_SH = os.path.join(SCRIPTS, "lib", "common.sh")

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="no bash here")


def bash(script, *args, env=None, path_prepend=None, cwd=None):
    """Runs SCRIPT in `bash -c` under `set -euo pipefail` with common.sh sourced; ARGS are its
    positional parameters (no quoting to get wrong)."""
    e = {k: v for k, v in os.environ.items()
         if k not in ("MEMREL_LATENCY_GATE", "PYTHON", "CMAKE_PREFIX_PATH")}
    e.update(env or {})
    if path_prepend:
        e["PATH"] = f"{path_prepend}{os.pathsep}{e.get('PATH', '')}"
    e["COMMON_SH"] = COMMON_SH
    full = f'set -euo pipefail\nsource "$COMMON_SH"\n{script}'
    return subprocess.run(["bash", "-c", full, "bash", *map(str, args)], env=e, cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def write_exe(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


# ---------------------------------------------------------------------------------- sourcing

def test_sourcing_defines_the_functions_and_runs_nothing(tmp_path):
    # Every command a function could run, as a stub that leaves a trace when called.
    trace = tmp_path / "trace"
    stubs = tmp_path / "stubs"
    for name in ("nvidia-smi", "python3", "date", "mkdir", "basename", "head", "memrel"):
        write_exe(stubs / name, f'#!/bin/sh\necho {name} >>"{trace}"\n')
    r = subprocess.run(
        ["bash", "-c",
         'set -euo pipefail\n'
         'names() { compgen -v | grep -v -e ^BASH -e ^_$ -e ^FUNCNAME$ -e ^before$ -e ^vars$ | sort; }\n'
         'before=$(set -o; shopt); vars=$(names)\n'
         'source "$1"\n'
         '[[ $(set -o; shopt) == "$before" ]] || { echo "shell options changed"; exit 1; }\n'
         '[[ $(names) == "$vars" ]] || { echo "variables changed: $(diff <(echo "$vars") <(names))"; exit 1; }\n'
         'declare -F | sed "s/^declare -f //"',
         "bash", COMMON_SH],
        env=dict(os.environ, PATH=f"{stubs}{os.pathsep}{os.environ['PATH']}"),
        capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stderr == ""
    assert not trace.exists(), f"sourcing ran {trace.read_text()!r}"
    defined = set(r.stdout.split())
    assert {"memrel_torch_prefix", "memrel_cmake_prefix_path", "memrel_default_baseline",
            "memrel_gate_options", "memrel_gpus_option", "memrel_bench_args", "memrel_gpu_here"} <= defined
    assert not {"memrel_run_benchmarks", "_memrel_gpu_indices", "_memrel_bench_one"} & defined


# ------------------------------------------------------------------------------ a GPU here

@pytest.mark.parametrize("listing, here", [
    ("".join(f"GPU {i}: NVIDIA H200 (UUID: GPU-{i})\\n" for i in range(8)), True),
    ("No devices were found\\n", False),
    (None, False),  # no nvidia-smi at all
])
def test_gpu_here_reads_nvidia_smis_list(tmp_path, listing, here):
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    if listing is not None:
        write_exe(stubs / "nvidia-smi", f'#!/bin/sh\nprintf "{listing}"\n')
    # Only the stubs, grep and sh on PATH: a real nvidia-smi (on the GPU machine) must not answer.
    for tool in ("grep", "sh"):
        os.symlink(shutil.which(tool), stubs / tool)
    path = str(stubs)
    r = subprocess.run([shutil.which("bash"), "-c", 'set -euo pipefail\nsource "$1"\n'
                        'if memrel_gpu_here; then echo yes; else echo no; fi', "bash", COMMON_SH],
                       env={"PATH": path}, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("yes\n" if here else "no\n")


# ------------------------------------------------------------------------------ gate options

def gate_options(baseline, env=None):
    # Read as the scripts read it, and checked to be separate arguments.
    r = bash('mapfile -t opts < <(memrel_gate_options "$1")\n'
             'echo "n=${#opts[@]}"\nfor o in "${opts[@]}"; do echo "<$o>"; done',
             baseline, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    lines = r.stdout.splitlines()
    assert lines[0] == f"n={len(lines) - 1}"
    return [line[1:-1] for line in lines[1:]]


@pytest.mark.parametrize("baseline,gate,expected", [
    ("results/baselines/host", None, ["--no-latency-gate"]),
    ("results/baselines/host", "1", ["--no-latency-gate"]),  # the gate variable is for the H200 only
    # The H200 baseline needs no option: machine fingerprints decide which latencies gate.
    ("results/baselines/h200", None, []),
    ("results/baselines/h200", "1", []),
    ("results/baselines/h200/", None, []),
    ("/elsewhere/h200", None, []),
    ("results/baselines/a100", None, []),
    ("results/baselines/a100", "1", []),
    ("results/baselines/h200-old", None, []),
])
def test_gate_options(baseline, gate, expected):
    env = {"MEMREL_LATENCY_GATE": gate} if gate is not None else None
    assert gate_options(baseline, env) == expected


def test_gate_options_needs_a_baseline():
    r = bash("memrel_gate_options")
    assert r.returncode == 2 and "usage" in r.stderr and r.stdout == ""


# ------------------------------------------------------------------------------ GPU option

@pytest.mark.parametrize("value, expected", [("", []), ("all", ["--gpus", "all"]),
                                             ("0,2", ["--gpus", "0,2"])])
def test_gpus_option_follows_memrel_gpus(value, expected):
    r = bash('mapfile -t opts < <(memrel_gpus_option)\nfor o in "${opts[@]}"; do echo "<$o>"; done',
             env={"MEMREL_GPUS": value})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"<{o}>" for o in expected]


def test_bench_args(tmp_path):
    for name in ("bench-b.json", "bench-a.json", "suite.json", "bench-a.log"):
        (tmp_path / name).write_text("{}")
    (tmp_path / "bench-dir.json").mkdir()
    r = bash('mapfile -t args < <(memrel_bench_args "$1")\nprintf "<%s>\\n" "${args[@]}"', tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"<--bench>", f"<{tmp_path}/bench-a.json>",
                                     f"<--bench>", f"<{tmp_path}/bench-b.json>"]
    empty = tmp_path / "empty"
    empty.mkdir()
    r = bash('memrel_bench_args "$1"', empty)
    assert r.returncode == 0 and r.stdout == ""


# ------------------------------------------------------------------------- LibTorch lookup

@pytest.fixture
def fake_pythons(tmp_path):
    """A python without torch, and one with a stub torch package that names a CMake prefix."""
    pkg = tmp_path / "site" / "torch"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import utils\n")
    (pkg / "utils.py").write_text("cmake_prefix_path = '/fake/torch/share/cmake'\n")
    without = write_exe(tmp_path / "py-without-torch",
                        f'#!/bin/sh\nPYTHONPATH= exec "{sys.executable}" -I -S "$@"\n')
    with_torch = write_exe(tmp_path / "py-with-torch",
                           f'#!/bin/sh\nPYTHONPATH="{tmp_path}/site" exec "{sys.executable}" -S "$@"\n')
    return without, with_torch


def test_torch_prefix_absent_prints_nothing(tmp_path, fake_pythons):
    without, _ = fake_pythons
    assert subprocess.run([str(without), "-c", "import torch"], capture_output=True).returncode != 0
    silent = write_exe(tmp_path / "py-silent", "#!/bin/sh\nexit 0\n")  # succeeds, prints nothing
    for python in (without, tmp_path / "no-such-python", silent):
        r = bash('memrel_torch_prefix; echo "rc=$?"', env={"PYTHON": str(python)})
        assert r.returncode == 0, r.stderr
        assert r.stdout == "rc=0\n", r.stdout
        assert r.stderr == ""


def test_torch_prefix_present(fake_pythons):
    _, with_torch = fake_pythons
    r = bash("memrel_torch_prefix", env={"PYTHON": str(with_torch)})
    assert r.returncode == 0, r.stderr
    assert r.stdout == "/fake/torch/share/cmake\n"


@pytest.mark.parametrize("torch,extras,env_path,expected", [
    (False, [], None, ""),
    (False, [], "/env/a", "/env/a\n"),
    (True, [], None, "/fake/torch/share/cmake\n"),
    (True, [], "/env/a", "/fake/torch/share/cmake;/env/a\n"),
    (True, ["/x/.deps", ""], "/env/a", "/x/.deps;/fake/torch/share/cmake;/env/a\n"),
    (False, ["/x/.deps", "/y"], None, "/x/.deps;/y\n"),
])
def test_cmake_prefix_path(fake_pythons, torch, extras, env_path, expected):
    without, with_torch = fake_pythons
    env = {"PYTHON": str(with_torch if torch else without)}
    if env_path is not None:
        env["CMAKE_PREFIX_PATH"] = env_path
    r = bash('memrel_cmake_prefix_path "$@"', *extras, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == expected


# ------------------------------------------------------------------------ default baseline

@pytest.mark.parametrize("gpu,expected", [
    ("NVIDIA H200", "results/baselines/h200"),
    ("NVIDIA H100 80GB HBM3", "results/baselines/host"),
    (None, "results/baselines/host"),  # nvidia-smi fails: no driver, no GPU
])
def test_default_baseline(tmp_path, gpu, expected):
    body = f'echo "{gpu}"; echo "{gpu}"' if gpu else 'echo "NVIDIA-SMI has failed" >&2; exit 9'
    write_exe(tmp_path / "nvidia-smi", f"#!/bin/sh\n{body}\n")
    r = bash("memrel_default_baseline", path_prepend=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == expected + "\n"


# ------------------------------------------------------------------ the scripts use the library

def script_files():
    for folder, dirs, files in os.walk(SCRIPTS):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            yield os.path.relpath(os.path.join(folder, name), SCRIPTS)


def read_script(rel):
    with open(os.path.join(SCRIPTS, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def code_lines(rel):
    """The script without its comment lines."""
    return "\n".join(line for line in read_script(rel).splitlines() if not line.lstrip().startswith("#"))


@pytest.mark.parametrize("script", ["nightly", "gpu-check"])
def test_both_gates_take_their_options_from_the_library(script):
    code = code_lines(script)
    assert re.search(r'source "\$\(dirname "\$0"\)/lib/common\.sh"', code)
    assert re.search(r"mapfile -t (\w+) < <\(memrel_gate_options ", code), \
        f"scripts/{script} does not read its gate options from memrel_gate_options"
    # ... and passes them to memrel compare instead of its own
    name = re.search(r"mapfile -t (\w+) < <\(memrel_gate_options ", code).group(1)
    compare = [line for line in code.splitlines() if "memrel\" compare" in line]
    assert compare and all(f'"${{{name}[@]}}"' in line for line in compare)
    assert "--latency-min-change" not in code and "--no-latency-gate" not in code


@pytest.mark.parametrize("script", ["build", "suite", "nightly", "gpu-check"])
def test_scripts_source_the_library(script):
    assert 'source "$(dirname "$0")/lib/common.sh"' in read_script(script)


# install-torch asks the same question of its own --python before installing anything; it is not
# one of the library's callers (yet), so it is the one allowed exception for the torch lookup.
ALLOWED = {"torch.utils.cmake_prefix_path": {"install-torch"}}


def test_no_script_writes_its_own_copy_of_the_torch_lookup():
    needle = "torch.utils.cmake_prefix_path"
    found = {rel for rel in script_files() if needle in read_script(rel)}
    assert "lib/common.sh" in found, "the library itself lost it: the test would prove nothing"
    assert found - {"lib/common.sh"} - ALLOWED.get(needle, set()) == set()


# What a bash benchmark loop or GPU scheduler needs: memrel_bench started by the script itself
# (a path ending in memrel_bench followed by an argument), nvidia-smi asked for the GPU indices,
# or CUDA_VISIBLE_DEVICES set by hand (printing its value is fine). `memrel bench` does all of it (platform/gpu_selection).
OWN_BENCH_LAUNCH = [
    re.compile(r'memrel_bench["\']?\s+(--|"\$)'),
    re.compile(r"--query-gpu=index"),
    re.compile(r"CUDA_VISIBLE_DEVICES=(?!\$\{?CUDA_VISIBLE_DEVICES)"),  # set, not printed
    re.compile(r"memrel_run_benchmarks"),
]


def test_the_patterns_catch_the_old_loop():
    # The loop as scripts/lib/common.sh had it, so that a pattern that never matches fails here.
    old = [
        '"${pin[@]}" "$bin_dir/benchmarks/memrel_bench" --backend "$backend" "$@" \\',
        "mapfile -t all < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr -d ' ')",
        'pin=(env "CUDA_VISIBLE_DEVICES=$gpu" CUDA_DEVICE_ORDER=PCI_BUS_ID)',
        'memrel_run_benchmarks "$bin" "$out" "$out/logs" "${quick[@]}" "${gpus_option[@]}"',
    ]
    for pattern, line in zip(OWN_BENCH_LAUNCH, old):
        assert pattern.search(line), pattern.pattern


def shell_scripts():
    """The scripts written in a shell (by their first line), and the library."""
    return sorted(rel for rel in script_files()
                  if rel == "lib/common.sh" or re.match(r"#!.*\b(ba)?sh\b", read_script(rel)))


def test_the_shell_scripts_are_found():
    assert {"lib/common.sh", "suite", "nightly", "gpu-check", "build"} <= set(shell_scripts())


@pytest.mark.parametrize("script", shell_scripts())
def test_no_script_launches_memrel_bench_or_picks_gpus_itself(script):
    code = code_lines(script)
    found = [p.pattern for p in OWN_BENCH_LAUNCH if p.search(code)]
    assert found == [], f"scripts/{script} runs the benchmarks or picks GPUs itself: {found}"


@pytest.mark.parametrize("script", ["suite", "nightly", "gpu-check"])
def test_the_scripts_run_the_benchmarks_through_memrel_bench(script):
    assert re.search(r'"\$bin/memrel" bench ', code_lines(script)), \
        f"scripts/{script} does not run the latency benchmarks with memrel bench"


def test_gpu_check_builds_through_scripts_build():
    code = code_lines("gpu-check")
    assert "scripts/build gpu" in code
    assert not re.search(r"^\s*(if\s+)?cmake\s+(-S|--build)", code, re.M), \
        "scripts/gpu-check configures or builds with its own cmake lines"


@pytest.mark.parametrize("args,what", [
    (["--reference-build", "/nonexistent-build"], "--reference-build /nonexistent-build"),
    (["--frobnicate"], "unknown option --frobnicate"),
])
def test_nightly_refuses_bad_options_before_it_installs_or_builds(args, what):
    r = subprocess.run([os.path.join(SCRIPTS, "nightly"), *args], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and what in r.stderr and r.stdout == ""


# ------------------------------------------------------------------- the suite's first cells

def test_the_suite_runs_its_cells_before_building_what_they_do_not_need():
    """Without a GPU the cells start once memrel is built (docs/first-run.md): the build before
    `memrel run` names the target memrel only, the full build comes after it, and matplotlib
    (install-deps --run) beside the second build, a child waited for before the benchmarks."""
    code = code_lines("suite")
    run = code.index('"$bin/memrel" run ')
    no_gpu_build = code.index("MEMREL_BUILD_TARGETS=memrel scripts/build default")
    full_build_after = code.index('cmake --build "$bin"')
    report = code.index('"$bin/memrel" report ')
    assert no_gpu_build < run < full_build_after < code.index('"$bin/memrel" bench ') < report
    assert code.index("scripts/install-deps --build") < no_gpu_build
    deps = code.index("scripts/install-deps --run")
    assert run < deps < full_build_after < code.index('wait "$deps_pid"') < code.index('"$bin/memrel" bench ')
    # Nothing outlives the suite: the child has a process group of its own, stopped whole.
    assert "setsid scripts/install-deps --run" in code
    assert "trap 'kill -- -\"$deps_pid\"" in code
    # Where a GPU is, the plugin's cells run too: everything is built before them.
    gpu_branch = code[code.index("if memrel_gpu_here; then"):no_gpu_build]
    assert "scripts/build default\n" in gpu_branch
