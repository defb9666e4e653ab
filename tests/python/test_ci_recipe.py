"""The copyable GitHub Actions nightly (docs/ci/github-actions-nightly.yml), its steps run here.

Not the service: each `run:` step's script runs with bash, as written, in order, in the
repository root, with the workflow's `env:` and the variables Actions gives a step
(GITHUB_OUTPUT, GITHUB_STEP_SUMMARY). The `uses:` steps are the service's own actions; what this
test checks of them is that what they read exists where they look: the cache's path (emulated:
copied to a cache folder and restored from it), the JUnit file (parsed, with test cases) and the
site folder. Two differences from the service, both set through the environment: NIGHTLY_OUT and
HISTORY_DB point into a temporary folder (the clone's results/ is the developer's), and
MEMREL_PRESET=ci reuses the build the test command made instead of building build/default
again. Any other `${{ }}` expression in a `run:` step fails the test: it would not be emulated.
"""

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
import yaml

from conftest import ROOT

WORKFLOW = os.path.join(ROOT, "docs", "ci", "github-actions-nightly.yml")
BUILD = os.path.join(ROOT, "build", "ci")

pytestmark = pytest.mark.skipif(not os.access(os.path.join(BUILD, "memrel"), os.X_OK),
                                reason="no build/ci/memrel: the test command builds it first")


def expand(text, env, outputs):
    def one(m):
        expr = m.group(1).strip()
        if expr.startswith("env."):
            return env[expr[4:]]
        step = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if step:
            return outputs[step.group(1)][step.group(2)]
        if expr.startswith(("runner.", "github.")):
            return {"runner.os": "Linux", "github.run_id": "1"}.get(expr, "x")
        raise AssertionError(f"expression not emulated: {expr}")
    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def read_outputs(path):
    out = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8").read().splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                out[k] = v
    return out


def test_the_workflow_is_valid_yaml_with_the_steps_the_issue_asks_for():
    doc = yaml.safe_load(open(WORKFLOW, encoding="utf-8"))
    steps = doc["jobs"]["nightly"]["steps"]
    uses = [s["uses"].split("@")[0] for s in steps if "uses" in s]
    assert {"actions/checkout", "actions/cache/restore", "actions/cache/save",
            "mikepenz/action-junit-report", "actions/upload-artifact"} <= set(uses)
    assert any("scripts/nightly" in s.get("run", "") for s in steps)
    assert any("GITHUB_STEP_SUMMARY" in s.get("run", "") for s in steps)
    # YAML reads `on` as a key of its own; scheduled, and runnable by hand.
    triggers = doc.get("on", doc.get(True))
    assert "schedule" in triggers and "workflow_dispatch" in triggers


def test_the_run_steps_as_written(tmp_path):
    doc = yaml.safe_load(open(WORKFLOW, encoding="utf-8"))
    env = dict(os.environ)
    for k in ("PYTHONPATH",):
        env.pop(k, None)
    env.update({k: str(v) for k, v in doc["env"].items()})
    env.update(NIGHTLY_OUT=str(tmp_path / "nightly"), HISTORY_DB=str(tmp_path / "history.sqlite"),
               MEMREL_PRESET="ci", MPLBACKEND="Agg")
    summary = tmp_path / "step-summary.md"
    cache = tmp_path / "actions-cache"
    outputs = {}
    failed = None
    for i, step in enumerate(doc["jobs"]["nightly"]["steps"]):
        if_ = step.get("if", "")
        if failed is not None and if_ != "always()":
            continue
        with_ = {k: expand(str(v), env, outputs) for k, v in step.get("with", {}).items()}
        uses = step.get("uses", "").split("@")[0]
        if uses == "actions/checkout":
            continue  # the test runs in the checkout
        if uses == "actions/cache/restore":
            if (cache / "history.sqlite").exists():
                shutil.copy(cache / "history.sqlite", with_["path"])
            continue
        if uses == "actions/cache/save":
            assert os.path.isfile(with_["path"]), (f"nothing to save at {with_['path']}", failed)
            cache.mkdir(exist_ok=True)
            shutil.copy(with_["path"], cache / "history.sqlite")
            continue
        if uses == "mikepenz/action-junit-report":
            cases = ET.parse(with_["report_paths"]).getroot().iter("testcase")
            assert list(cases), f"no test case in {with_['report_paths']}"
            continue
        if uses == "actions/upload-artifact":
            assert os.path.isfile(os.path.join(with_["path"], "index.html")), with_["path"]
            continue
        assert "run" in step, f"step {i}: {uses} is not emulated here"
        output_file = tmp_path / f"output-{i}"
        output_file.write_text("")
        script = expand(step["run"], env, outputs)
        r = subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=ROOT, text=True,
                           capture_output=True, timeout=1200,
                           env=dict(env, GITHUB_OUTPUT=str(output_file),
                                    GITHUB_STEP_SUMMARY=str(summary)))
        if "id" in step:
            outputs[step["id"]] = read_outputs(output_file)
        if r.returncode != 0 and failed is None:
            failed = (step.get("name"), r.returncode, r.stdout[-3000:] + r.stderr[-3000:])
    # The last step exits with the gate's code: 0 against the committed host baseline would be
    # a clean night; 1 is a regression, which is the job failing as designed, not the recipe.
    status = outputs["nightly"]["status"]
    assert status in ("0", "1"), failed
    assert failed is None or (failed[0].startswith("Fail the night") and status == "1"), failed
    text = summary.read_text()
    assert "memrel" in text and "no gate summary" not in text, text
    assert (cache / "history.sqlite").stat().st_size > 0
