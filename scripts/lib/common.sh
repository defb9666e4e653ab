# shellcheck shell=bash
# Functions shared by scripts/build, suite, nightly and gpu-check, so that the benchmark loop, the
# LibTorch lookup and the gate's latency rules are written once:
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
      # Any other baseline, the H200's among them: memrel compare itself decides. It gates
      # latency only against a baseline with this run's machine fingerprint and reports it as
      # information otherwise (docs/gate.md, "Machine fingerprints"): a baseline from another
      # lease of the H200 gates bytes and statuses, no option needed. `memrel ab` gates latency
      # on one machine.
      ;;
  esac
  return 0
}

# Runs memrel_bench for each backend, one after another, or with --gpus one per GPU at a time:
#   memrel_run_benchmarks BIN_DIR OUT_DIR LOG_DIR_OR_EMPTY [--quick] [--gpus all|0,2,...] [-- BACKEND...]
# The backends are the ones after `--` (none after it: none run), else those that
# `BIN_DIR/memrel list --available-backends` prints. Each writes OUT_DIR/bench-BACKEND.json (an
# unavailable backend writes none); its stdout and stderr go to LOG_DIR/bench-BACKEND.log, or,
# with an empty LOG_DIR, its stdout to /dev/null and its stderr to ours (as the scripts always
# did). Prints "bench BACKEND: N s" for each backend on stdout (with --gpus
# "bench BACKEND: N s (gpu G)", in the order they end) and nothing else there; a backend
# that exits non-zero gets "bench BACKEND: rc N" on stderr, and the loop goes on. With --gpus,
# each memrel_bench sees only its GPU (CUDA_VISIBLE_DEVICES=G, CUDA_DEVICE_ORDER=PCI_BUS_ID: G is
# nvidia-smi's index); `all` is every GPU nvidia-smi lists, or MEMREL_FAKE_GPUS=N fake ones (to
# test the scheduling without a GPU, as `memrel run --gpus`). With no
# BIN_DIR/benchmarks/memrel_bench (built without Google Benchmark) it runs nothing and says why
# on stderr. Exit status 0, except 2 for a usage error. Find the files with
# memrel_bench_args OUT_DIR.
memrel_run_benchmarks() {
  if (($# < 3)); then
    echo "memrel_run_benchmarks: usage: memrel_run_benchmarks BIN_DIR OUT_DIR LOG_DIR_OR_EMPTY [--quick] [--gpus LIST] [-- BACKEND...]" >&2
    return 2
  fi
  local bin_dir=$1 out_dir=$2 log_dir=$3
  shift 3
  local mode=() backends=() listed=0 gpu_list="" gpus=()
  while (($#)); do
    case $1 in
      --quick) mode=(--quick); shift ;;
      --gpus)
        if (($# < 2)) || [[ -z $2 ]]; then
          echo "memrel_run_benchmarks: --gpus needs all or a list like 0,2" >&2
          return 2
        fi
        gpu_list=$2; shift 2 ;;
      --) shift; backends=("$@"); listed=1; break ;;
      *) echo "memrel_run_benchmarks: unknown argument '$1' (use --quick, --gpus LIST, -- BACKEND...)" >&2; return 2 ;;
    esac
  done
  if [[ -n $gpu_list ]]; then
    mapfile -t gpus < <(_memrel_gpu_indices "$gpu_list") || true
    if ((${#gpus[@]} == 0)); then
      echo "memrel_run_benchmarks: --gpus $gpu_list: no such GPU here" >&2
      return 2
    fi
  fi
  if [[ ! -x $bin_dir/benchmarks/memrel_bench ]]; then
    echo "benchmarks: $bin_dir/benchmarks/memrel_bench is not built (no Google Benchmark at configure time?): none run" >&2
    return 0
  fi
  if ((!listed)); then
    local listing words=()
    if ! listing=$("$bin_dir/memrel" list --available-backends); then
      echo "benchmarks: '$bin_dir/memrel list --available-backends' failed: none run" >&2
      return 0
    fi
    # Whitespace-separated names, as the scripts' `for backend in $(...)` read them.
    while read -ra words; do backends+=("${words[@]}"); done <<<"$listing"
  fi
  mkdir -p "$out_dir"
  if [[ -n $log_dir ]]; then mkdir -p "$log_dir"; fi
  local backend
  if ((${#gpus[@]} == 0)); then
    for backend in "${backends[@]}"; do
      _memrel_bench_one "$bin_dir" "$out_dir" "$log_dir" "$backend" "" "${mode[@]}"
    done
    return 0
  fi
  # One memrel_bench per GPU at a time: a slot is free once its job has ended.
  local slot_pids=() slot free
  for backend in "${backends[@]}"; do
    free=""
    while [[ -z $free ]]; do
      for slot in "${!gpus[@]}"; do
        if [[ -z ${slot_pids[slot]:-} ]] || ! kill -0 "${slot_pids[slot]}" 2>/dev/null; then
          free=$slot
          break
        fi
      done
      if [[ -z $free ]]; then sleep 0.05; fi
    done
    _memrel_bench_one "$bin_dir" "$out_dir" "$log_dir" "$backend" "${gpus[free]}" "${mode[@]}" &
    slot_pids[free]=$!
  done
  wait
  return 0
}

# memrel_run_benchmarks' GPU indices for --gpus LIST, one a line; nothing for an index that
# is not there, a repeated one, or no GPU at all.
_memrel_gpu_indices() {
  local all=() given=() index seen=" "
  if [[ -n ${MEMREL_FAKE_GPUS:-} ]]; then
    for ((index = 0; index < MEMREL_FAKE_GPUS; index++)); do all+=("$index"); done
  else
    mapfile -t all < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | tr -d ' ') || true
  fi
  if [[ $1 == all ]]; then
    if ((${#all[@]})); then printf '%s\n' "${all[@]}"; fi
    return 0
  fi
  IFS=, read -ra given <<<"$1"
  for index in "${given[@]}"; do
    if [[ ! $index =~ ^[0-9]+$ || " ${all[*]} " != *" $index "* || $seen == *" $index "* ]]; then
      return 0
    fi
    seen+="$index "
  done
  printf '%s\n' "${given[@]}"
}

# One backend's memrel_bench for memrel_run_benchmarks, pinned to GPU $5 unless it is empty.
_memrel_bench_one() {
  local bin_dir=$1 out_dir=$2 log_dir=$3 backend=$4 gpu=$5 start rc=0 pin=() where=""
  shift 5
  if [[ -n $gpu ]]; then
    pin=(env "CUDA_VISIBLE_DEVICES=$gpu" CUDA_DEVICE_ORDER=PCI_BUS_ID)
    where=" (gpu $gpu)"
  fi
  start=$(date +%s)
  if [[ -n $log_dir ]]; then
    "${pin[@]}" "$bin_dir/benchmarks/memrel_bench" --backend "$backend" "$@" \
      --benchmark_out="$out_dir/bench-$backend.json" --benchmark_out_format=json \
      >"$log_dir/bench-$backend.log" 2>&1 || rc=$?
  else
    "${pin[@]}" "$bin_dir/benchmarks/memrel_bench" --backend "$backend" "$@" \
      --benchmark_out="$out_dir/bench-$backend.json" --benchmark_out_format=json \
      >/dev/null || rc=$?
  fi
  if ((rc != 0)); then echo "bench $backend: rc $rc" >&2; fi
  echo "bench $backend: $(($(date +%s) - start)) s$where"
  return 0
}

# `--gpus LIST` for `memrel run` and memrel_run_benchmarks when MEMREL_GPUS is set (e.g. all, or
# 0,2: one cell or benchmark per GPU at a time, docs/run-journal.md), one token a line; nothing
# when it is unset or empty (one at a time, as before):
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
