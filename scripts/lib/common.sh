# shellcheck shell=bash
# Functions shared by scripts/build, suite, nightly and gpu-check, so that the LibTorch lookup and
# the gate's latency rules are written once (the benchmarks are `memrel bench`'s, not bash's):
#   source "$(dirname "$0")/lib/common.sh"
# Sourcing defines functions and nothing else: no commands run, no shell options or variables
# change. Every function works with and without `set -euo pipefail` in the caller. Functions that
# print lists print one item a line; read them with `mapfile -t ARRAY < <(function ...)`.
# Tests: tests/python/test_scripts_lib.py.

# LibTorch's CMake prefix from a pip-installed torch in ${PYTHON:-python3}
# (scripts/install-torch), or nothing when there is no importable torch. Exit status 0 either way.
memrel_torch_prefix() {
  local prefix
  prefix=$("${PYTHON:-python3}" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null) ||
    return 0
  if [[ -n $prefix ]]; then printf '%s\n' "$prefix"; fi
  return 0
}

# The value for -DCMAKE_PREFIX_PATH: EXTRA... (empty ones left out), then LibTorch's prefix, then
# $CMAKE_PREFIX_PATH, joined with ';'. Prints nothing when all of them are empty.
#   memrel_cmake_prefix_path [EXTRA...]
memrel_cmake_prefix_path() {
  local parts=() part torch
  for part in "$@"; do
    if [[ -n $part ]]; then parts+=("$part"); fi
  done
  torch=$(memrel_torch_prefix)
  if [[ -n $torch ]]; then parts+=("$torch"); fi
  if [[ -n ${CMAKE_PREFIX_PATH:-} ]]; then parts+=("$CMAKE_PREFIX_PATH"); fi
  if ((${#parts[@]} == 0)); then return 0; fi
  local IFS=';'
  printf '%s\n' "${parts[*]}"
}

# The committed baseline for this machine, relative to the repository root:
# results/baselines/h200 where nvidia-smi names an H200, results/baselines/host elsewhere.
memrel_default_baseline() {
  local gpu
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) || true
  if [[ $gpu == *H200* ]]; then
    echo results/baselines/h200
  else
    echo results/baselines/host
  fi
}

# The `memrel compare` options for a baseline folder, one a line, chosen by the folder's name.
# Only the shared CPU machine needs one; machine fingerprints decide the rest.
# scripts/nightly and scripts/gpu-check both gate through this, so they cannot drift apart.
#   mapfile -t gate_options < <(memrel_gate_options "$baseline")
memrel_gate_options() {
  if (($# != 1)) || [[ -z $1 ]]; then
    echo "memrel_gate_options: usage: memrel_gate_options BASELINE_DIR" >&2
    return 2
  fi
  local name
  name=$(basename -- "$1")
  case $name in
    host)
      # On a shared CPU machine latencies drift between runs far beyond any within-run noise
      # (seen: 12% to 151% between back-to-back runs of one binary), so only bytes and statuses
      # gate there.
      echo --no-latency-gate
      ;;
    *)
      # Any other baseline, the H200's among them: memrel compare itself decides. Bytes and
      # statuses gate against any baseline of the same GPU model; latency between two separate
      # runs is information, on another machine and on the same one alike (docs/gate.md,
      # "Machine fingerprints", "Separate runs": their drift is not in the repetitions).
      # `memrel ab` (scripts/nightly --reference-build) gates latency on one machine.
      ;;
  esac
  return 0
}

# How a memrel_bench file was measured, its context's memrel_measurement: "quick" (bench
# --quick) or "default" (also for a file that does not say). The nightly benchmarks each backend
# as its baseline file was measured, since compare pairs only files of one measurement.
#   mode=$(memrel_bench_measurement results/baselines/h200/bench-rmm-pool.json)
memrel_bench_measurement() {
  python3 -c '
import json, sys
try:
    with open(sys.argv[1]) as f:
        context = json.load(f).get("context", {})
except (OSError, ValueError, AttributeError):
    context = {}
print("quick" if isinstance(context, dict) and context.get("memrel_measurement") == "quick"
      else "default")' "$1"
}

# Exit status 0 where nvidia-smi lists a GPU (the device backends' cells can run here), else 1.
# scripts/suite builds what only those cells load (the LibTorch plugin) before the cells where
# this holds, and after them elsewhere.
memrel_gpu_here() {
  # grep reads every line (no -q): nvidia-smi cut off by SIGPIPE would fail the pipeline under
  # the caller's pipefail on a machine of many GPUs.
  nvidia-smi -L 2>/dev/null | grep '^GPU ' >/dev/null
}

# `--gpus LIST` for `memrel run` and `memrel bench` when MEMREL_GPUS is set (e.g. all, or 0,2: one
# cell or backend's benchmarks per GPU at a time, docs/run-journal.md), one token a line; nothing
# when it is unset or empty (one at a time, as before). memrel checks the list:
#   mapfile -t gpus_option < <(memrel_gpus_option)
memrel_gpus_option() {
  if [[ -n ${MEMREL_GPUS:-} ]]; then printf '%s\n' --gpus "$MEMREL_GPUS"; fi
  return 0
}

# `--bench FILE` for every DIR/bench-*.json, one token a line, for `memrel report`:
#   mapfile -t bench_args < <(memrel_bench_args "$dir")
memrel_bench_args() {
  if (($# != 1)); then
    echo "memrel_bench_args: usage: memrel_bench_args DIR" >&2
    return 2
  fi
  local f
  for f in "$1"/bench-*.json; do
    if [[ -f $f ]]; then printf '%s\n' --bench "$f"; fi
  done
  return 0
}

# Puts the PyPI CMake (>= 4) that scripts/install-rmm installs first on PATH when the CMake on
# PATH is older: rmm-config.cmake requires CMake 4.0, and cmake, ctest and the presets must then
# all come from the same CMake. Does nothing when PATH's cmake is 4 or newer, or none is there.
memrel_use_cmake4() {
  local major home
  major=$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9]*\).*/\1/p')
  if [[ ${major:-0} -ge 4 ]]; then return 0; fi
  home=${MEMREL_CMAKE_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/memrel/cmake}
  if [[ -x $home/cmake/data/bin/cmake ]]; then PATH="$home/cmake/data/bin:$PATH"; fi
  return 0
}

# Compiler caching where ccache is installed (scripts/install-deps installs it): a build folder
# configured after this compiles through ccache, with paths taken relative to the repository
# root (CCACHE_BASEDIR), so that another clone of the same sources on this machine (CI's fresh
# clone) reuses what an earlier one compiled. Without ccache nothing changes.
#   memrel_use_ccache REPO_ROOT
memrel_use_ccache() {
  command -v ccache >/dev/null || return 0
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CMAKE_CUDA_COMPILER_LAUNCHER=ccache CCACHE_BASEDIR=$1
  return 0
}
