"""The xla and cupy families (docs/frameworks.md) as `memrel list --json` shows them, and the
GPU scripts' command lines (their figures need the H200: scripts/gpu-check --stages frameworks).
"""

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, memrel_binary

MEMREL = memrel_binary()
XLA = {"xla-bfc", "xla-bfc-nopre", "xla-platform", "xla-cuda-async"}
CUPY = {"cupy-pool", "cupy-async-pool", "cupy-nopool"}


def listing(env=None):
    r = subprocess.run([MEMREL, "list", "--json"], capture_output=True, text=True, check=True,
                       env=env)
    return {b["name"]: b for b in json.loads(r.stdout)["backends"]}


@pytest.mark.skipif(MEMREL is None, reason="no memrel build under build/ (scripts/build ci)")
def test_list_shows_every_framework_backend_with_its_kind_and_why_it_cannot_run():
    backends = listing()
    for names, kind in ((XLA, "xla"), (CUPY, "cupy")):
        for name in names:
            assert name in backends, f"{name} missing from memrel list --json"
            b = backends[name]
            assert b["kind"] == kind
            assert b["space"] == "device"
            if not b["available"]:
                assert b["reason"], f"{name} unavailable without a reason"
    assert backends["xla-bfc"]["release"].startswith("nothing")
    assert "free_all_blocks" in backends["cupy-pool"]["release"]


@pytest.mark.skipif(MEMREL is None, reason="no memrel build under build/ (scripts/build ci)")
def test_a_python_without_the_frameworks_is_named_in_the_reason(tmp_path):
    # MEMREL_PYTHON names the interpreter the parent probes: a stub that answers as a Python
    # of another version would, with one line. That line, naming the stub, is the reason.
    stub = tmp_path / "python3"
    stub.write_text("#!/bin/sh\necho \"$0 is Python 2.7; stub\"\n")
    stub.chmod(0o755)
    backends = listing(dict(os.environ, MEMREL_PYTHON=str(stub)))
    for name in XLA | CUPY:
        reason = backends[name]["reason"]
        assert not backends[name]["available"]
        assert str(stub) in reason or "plugin" in reason, reason


@pytest.mark.parametrize("script", ["seeds_questions.py", "allocation_cost.py"])
def test_the_gpu_scripts_print_their_usage_without_a_gpu(script):
    path = os.path.join(ROOT, "scripts", "frameworks", script)
    r = subprocess.run([sys.executable, path, "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "-o" in r.stdout
    r = subprocess.run([sys.executable, path], capture_output=True, text=True)
    assert r.returncode == 2 and "-o OUT.json is required" in r.stderr
