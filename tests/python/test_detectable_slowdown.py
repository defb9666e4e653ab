"""scripts/detectable-slowdown's own logic, without running memrel ab (a run takes minutes): the
cut to the first rounds keeps the two halves recognisable as one ab run, and a family counts as
detected by its family row or by any of its benchmarks."""
import importlib.machinery
import importlib.util
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_script():
    path = os.path.join(ROOT, "scripts", "detectable-slowdown")
    loader = importlib.machinery.SourceFileLoader("detectable_slowdown", path)
    spec = importlib.util.spec_from_loader("detectable_slowdown", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


ds = load_script()


def merged(role, rounds):
    ctx = {"role": role, "backend": "x", "rounds": rounds, "run": "r1"}
    benchmarks = [{"name": f"pair/x/warm/{size}", "run_name": f"pair/x/warm/{size}", "run_type": "iteration",
                   "repetitions": rounds, "repetition_index": r, "real_time": 100.0 + r, "time_unit": "ns"}
                  for size in (512, 4096) for r in range(rounds)]
    return {"context": {"memrel_ab": json.dumps(ctx)}, "benchmarks": benchmarks}


def test_cut_keeps_the_first_rounds_and_the_run(tmp_path):
    for role in ("reference", "candidate"):
        (tmp_path / f"{role}.json").write_text(json.dumps(merged(role, 10)))
        ds.cut_to_rounds(tmp_path / f"{role}.json", tmp_path / "short" / f"{role}.json", 5)
    ref = json.loads((tmp_path / "short" / "reference.json").read_text())
    cand = json.loads((tmp_path / "short" / "candidate.json").read_text())
    assert sorted({e["repetition_index"] for e in ref["benchmarks"]}) == [0, 1, 2, 3, 4]
    assert len(ref["benchmarks"]) == 10 and all(e["repetitions"] == 5 for e in ref["benchmarks"])
    a, b = json.loads(ref["context"]["memrel_ab"]), json.loads(cand["context"]["memrel_ab"])
    assert a["rounds"] == b["rounds"] == 5 and a["run"] == b["run"] and a["role"] != b["role"]


def verdict_file(tmp_path, family_verdict, benchmark_verdicts):
    rows = [{"subject": "pair/x/warm/*", "metric": "real_time (family, rounds paired)", "change": "+12.0%",
             "p_value": 0.002, "verdict": family_verdict}]
    rows += [{"subject": f"pair/x/warm/{i}/manual_time", "metric": "real_time", "change": "+1%",
              "p_value": 0.5, "verdict": v} for i, v in enumerate(benchmark_verdicts)]
    rows += [{"subject": "pair/x/warm/0/manual_time", "metric": "reserved", "change": "",
              "p_value": None, "verdict": "ok"}]
    path = tmp_path / f"v-{family_verdict}-{'-'.join(benchmark_verdicts)}.json"
    path.write_text(json.dumps({"files": [{"rows": rows}]}))
    return path


def test_a_family_is_detected_by_its_row_or_by_any_benchmark(tmp_path):
    fams, regs = ds.verdicts(verdict_file(tmp_path, "REGRESSION", ["ok", "ok"]))
    assert regs == 1 and ds.detected(fams["pair/x/warm"])
    assert ds.cell(fams["pair/x/warm"]) == "0/2; family +12.0% **REG** p=0.002"
    fams, regs = ds.verdicts(verdict_file(tmp_path, "ok", ["ok", "REGRESSION"]))
    assert regs == 1 and ds.detected(fams["pair/x/warm"])
    fams, regs = ds.verdicts(verdict_file(tmp_path, "info", ["ok", "ok"]))
    assert regs == 0 and not ds.detected(fams["pair/x/warm"])


def test_the_cut_is_one_look_at_the_full_alpha(tmp_path):
    doc = merged("reference", 30)
    ctx = json.loads(doc["context"]["memrel_ab"])
    ctx["look"] = {"of": 3, "number": 3, "alpha": 0.0118}
    doc["context"]["memrel_ab"] = json.dumps(ctx)
    (tmp_path / "reference.json").write_text(json.dumps(doc))
    ds.cut_to_rounds(tmp_path / "reference.json", tmp_path / "fixed" / "reference.json", 10)
    cut = json.loads(json.loads((tmp_path / "fixed" / "reference.json").read_text())["context"]["memrel_ab"])
    assert cut["rounds"] == 10 and "look" not in cut


def test_a_looked_cell_says_the_rounds_its_verdict_took(tmp_path):
    path = verdict_file(tmp_path, "REGRESSION", ["ok"])
    doc = json.loads(path.read_text())
    doc["files"][0]["rows"][0]["current"] = "20 rounds, median ratio x1.120"
    path.write_text(json.dumps(doc))
    fams, _ = ds.verdicts(path)
    assert ds.cell(fams["pair/x/warm"], with_rounds=True) == "0/1; family +12.0% **REG** p=0.002, 20 rounds"
    assert ds.cell(fams["pair/x/warm"]) == "0/1; family +12.0% **REG** p=0.002"
