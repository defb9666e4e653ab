"""`memrel advise` on the CPU machine (docs/advise.md): a committed trace swept over host
backends and glibc settings writes the frontier (memrel.advise/1, valid against its schema), the
run's results with every cell's settings, and the report page with its chart; bad settings and
bad grids are one line and exit 2, with nothing written. The frontier's fixtures
(tests/data/formats/advise/) hold the schema to its examples and counter-examples."""

import glob
import json
import os
import subprocess

import jsonschema
import pytest

from conftest import DATA, ROOT, assert_png, memrel_binary

MEMREL = memrel_binary()
needs_memrel = pytest.mark.skipif(MEMREL is None, reason="no memrel binary under build/ (build it, or set MEMREL_BINARY)")
TRACE = os.path.join(ROOT, "benchmarks", "workloads", "trace-convnet-varying-batch-and-size.memtrace")
SCHEMA = os.path.join(ROOT, "docs", "schemas", "advise.schema.json")


def validator():
    with open(SCHEMA, encoding="utf-8") as f:
        return jsonschema.Draft202012Validator(json.load(f))


def advise(*args, cwd=None):
    return subprocess.run([MEMREL, "advise", *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def write_grid(tmp_path, configurations, **extra):
    grid = {"schema": "memrel.advise-grid/1", "configurations": configurations, **extra}
    path = tmp_path / "grid.json"
    path.write_text(json.dumps(grid))
    return str(path)


def test_the_schema_is_a_json_schema_and_holds_to_its_fixtures():
    jsonschema.Draft202012Validator.check_schema(validator().schema)
    for kind in ("valid", "invalid"):
        files = sorted(glob.glob(os.path.join(DATA, "formats", "advise", kind, "*.json")))
        assert files
        for path in files:
            with open(path, encoding="utf-8") as f:
                errors = list(validator().iter_errors(json.load(f)))
            assert (not errors) == (kind == "valid"), (path, errors)


def test_the_default_grid_is_valid_and_every_entry_resolves():
    with open(os.path.join(ROOT, "benchmarks", "advise", "grid.json"), encoding="utf-8") as f:
        grid = json.load(f)
    assert grid["schema"] == "memrel.advise-grid/1"
    families = {c.split(":")[0] for c in grid["configurations"]}
    assert {"torch-native", "host-malloc"} <= families


@needs_memrel
def test_advise_on_a_committed_trace_writes_the_frontier_the_results_and_the_page(tmp_path):
    grid = write_grid(tmp_path, ["host-malloc:mmap_threshold=32MiB", "host-malloc:top_pad=0,mmap_max=0,"
                                 "trim_threshold=2147483647"])
    out, frontier = tmp_path / "advise", tmp_path / "frontier.json"
    r = advise(TRACE, "-b", "host-malloc,host-malloc:trim_threshold=0", "--grid", grid,
               "--out", str(out), "--json", str(frontier))
    assert r.returncode == 0, r.stderr
    advice = json.loads(frontier.read_text())
    assert list(validator().iter_errors(advice)) == []
    assert advice == json.loads((out / "advise.json").read_text())
    # The grid's second entry is host-malloc-retain's settings: one configuration, one name.
    names = [p["backend"] for p in advice["points"]]
    assert names == ["host-malloc", "host-malloc:trim_threshold=0", "host-malloc:mmap_threshold=32MiB",
                     "host-malloc-retain"]
    assert all(p["status"] == "ok" for p in advice["points"])
    assert any(p["on_frontier"] for p in advice["points"])
    # A convnet's snapshot records PyTorch's defaults, which do not run here: the baseline is
    # the defaults of what does.
    assert advice["baseline"] == "host-malloc"
    assert "recorded under torch-native" in advice["baseline_reason"]
    rec = advice["recommendation"]
    point = next(p for p in advice["points"] if p["backend"] == rec["backend"])
    assert point["on_frontier"]
    assert rec["predicted_peak_reserved_bytes"] == min(p["peak_reserved_bytes"] for p in advice["points"]
                                                       if p["on_frontier"])
    assert rec["saving_bytes"] == rec["baseline_peak_reserved_bytes"] - rec["predicted_peak_reserved_bytes"]
    assert "recommendation: " + rec["backend"] in r.stdout and "set: " + rec["apply"] in r.stdout
    assert next(p for p in advice["points"] if p["backend"] == "host-malloc:trim_threshold=0")["apply"] == \
        "GLIBC_TUNABLES=glibc.malloc.trim_threshold=0"
    # The results record each cell's settings.
    results = json.loads((out / "results.json").read_text())
    settings = {c["backend"]: c["setup"].get("settings") for c in results["cells"]}
    assert settings["host-malloc"] is None  # the defaults: no settings written
    assert settings["host-malloc:trim_threshold=0"] == {"trim_threshold": "0"}
    assert settings["host-malloc-retain"] == {"mmap_max": "0", "top_pad": "0", "trim_threshold": "2147483647"}
    page = (out / "advise.html").read_text()
    assert "advise-frontier.png" in page and rec["backend"] in page
    assert_png(str(out / "advise-frontier.png"))


@needs_memrel
@pytest.mark.parametrize("args, message", [
    (["-b", "host-malloc:trim_treshold=0"], "unknown setting 'trim_treshold'; did you mean trim_threshold?"),
    (["-b", "host-malloc:arena_max=0"], "setting arena_max=0: expected a whole number from 1 to 1024"),
    (["-b", "host-mallok:trim_threshold=0"], "unknown backend 'host-mallok' in 'host-mallok:trim_threshold=0'; did you mean host-malloc?"),
    (["--grid", "GRID:not-json"], "grid.json"),
    (["--grid", "GRID:other-schema"], "schema: expected \"memrel.advise-grid/1\""),
    (["--grid", "GRID:unknown-key"], "unknown key 'configuration'"),
    (["--grid", "GRID:bad-entry"], "configurations[1]: backend 'host-malloc:top_pad=lots'"),
    (["--grid", "GRID:not-a-string"], "configurations[0]: expected a string"),
])
def test_bad_settings_and_bad_grids_are_one_line_and_exit_2_with_nothing_written(tmp_path, args, message):
    grids = {"not-json": "{", "other-schema": json.dumps({"schema": "x", "configurations": ["host-malloc"]}),
             "unknown-key": json.dumps({"schema": "memrel.advise-grid/1", "configuration": []}),
             "bad-entry": json.dumps({"schema": "memrel.advise-grid/1",
                                      "configurations": ["host-malloc", "host-malloc:top_pad=lots"]}),
             "not-a-string": json.dumps({"schema": "memrel.advise-grid/1", "configurations": [3]})}
    resolved = []
    for a in args:
        if a.startswith("GRID:"):
            (tmp_path / "grid.json").write_text(grids[a[5:]])
            a = str(tmp_path / "grid.json")
        resolved.append(a)
    out = tmp_path / "out"
    r = advise(TRACE, *resolved, "--out", str(out), "--json", str(tmp_path / "f.json"))
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr
    assert not out.exists() and not (tmp_path / "f.json").exists()


@needs_memrel
def test_run_takes_a_configuration_among_other_backends(tmp_path):
    out = tmp_path / "r.json"
    r = subprocess.run([MEMREL, "run", "-q", "-b", "host-malloc:trim_threshold=0,mmap_threshold=1MiB,null",
                        "-w", "del-without-release", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    results = json.loads(out.read_text())
    assert [c["backend"] for c in results["cells"]] == ["host-malloc:mmap_threshold=1MiB,trim_threshold=0", "null"]
    backends = {b["name"]: b for b in results["context"]["backends"]}
    assert backends["host-malloc:mmap_threshold=1MiB,trim_threshold=0"]["settings"] == \
        {"mmap_threshold": "1MiB", "trim_threshold": "0"}
