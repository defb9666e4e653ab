"""One definition of each file format: the JSON Schemas under docs/schemas/. Every reader is held
to it on one shared fixture list, tests/data/formats/<format>/{valid,invalid}/: the schema
(jsonschema), the report's Python reader and the C++ reader (`memrel compare FILE FILE`) accept
every valid file and refuse every invalid one. The C++ writer's output (the committed samples, a
fresh `memrel run` on the host backends, `memrel compare --json`) validates against its schema.
The status and verdict lists of both languages equal the schemas' enums."""

import glob
import json
import os
import re
import subprocess

import jsonschema
import pytest

from conftest import DATA, ROOT, memrel_binary
from memrel_report import gate_verdict, load

SCHEMAS = os.path.join(ROOT, "docs", "schemas")
FORMATS = os.path.join(DATA, "formats")
READERS = {"results": load.load_results, "benchmark": load.load_bench, "gate-verdicts": gate_verdict.load_verdict}
# The formats memrel compare reads (the verdicts are its output, read by the report only).
CPP_READS = ("results", "benchmark")


MEMREL = memrel_binary()
needs_memrel = pytest.mark.skipif(MEMREL is None, reason="no memrel binary under build/ (build it, or set MEMREL_BINARY)")


def schema(name):
    with open(os.path.join(SCHEMAS, f"{name}.schema.json"), encoding="utf-8") as f:
        return json.load(f)


def with_definitions_inlined(doc, definitions, depth=0):
    """The schema with each local `$ref` to `#/$defs/NAME` replaced by that definition (beside
    any sibling keywords, as an `allOf`), so that jsonschema does not look a reference up for each
    value: the H200 baseline's 43,000 steps took 52 s to validate, and about 30 s so. The schemas
    are not recursive; one that became so would stop here rather than loop."""
    assert depth < 32, "a recursive schema: validate it with its references"
    if isinstance(doc, list):
        return [with_definitions_inlined(item, definitions, depth) for item in doc]
    if not isinstance(doc, dict):
        return doc
    if "$ref" in doc and doc["$ref"].startswith("#/$defs/"):
        target = with_definitions_inlined(definitions[doc["$ref"][len("#/$defs/"):]], definitions,
                                          depth + 1)
        siblings = {k: with_definitions_inlined(v, definitions, depth)
                    for k, v in doc.items() if k != "$ref"}
        return {"allOf": [target], **siblings} if siblings else target
    return {k: v if k == "$defs" else with_definitions_inlined(v, definitions, depth)
            for k, v in doc.items()}


def validator(name):
    document = schema(name)
    return jsonschema.Draft202012Validator(
        with_definitions_inlined(document, document.get("$defs", {})),
        format_checker=jsonschema.FormatChecker())


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def fixtures(fmt, kind):
    files = sorted(glob.glob(os.path.join(FORMATS, fmt, kind, "*.json")))
    assert files, f"no fixtures in tests/data/formats/{fmt}/{kind}"
    return files


def fixture_params(formats):
    return [pytest.param(fmt, kind, path, id=f"{fmt}/{kind}/{os.path.basename(path)}")
            for fmt in formats for kind in ("valid", "invalid") for path in fixtures(fmt, kind)]


def schema_errors(fmt, doc):
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(fmt).iter_errors(doc)]


@pytest.mark.parametrize("fmt", sorted(READERS))
def test_each_schema_is_a_valid_json_schema(fmt):
    jsonschema.Draft202012Validator.check_schema(schema(fmt))


@pytest.mark.parametrize("fmt, kind, path", fixture_params(sorted(READERS)))
def test_the_schema_accepts_the_valid_fixtures_and_refuses_the_invalid(fmt, kind, path):
    errors = schema_errors(fmt, read_json(path))
    assert (not errors) == (kind == "valid"), errors or "the schema accepts an invalid fixture"


@pytest.mark.parametrize("fmt, kind, path", fixture_params(sorted(READERS)))
def test_the_python_reader_accepts_the_valid_fixtures_and_refuses_the_invalid(fmt, kind, path):
    if kind == "valid":
        READERS[fmt](path)
        return
    with pytest.raises(load.InputError) as e:
        READERS[fmt](path)
    assert str(e.value).startswith(f"{path}: ") and "\n" not in str(e.value)


@needs_memrel
@pytest.mark.parametrize("fmt, kind, path", fixture_params(CPP_READS))
def test_the_cpp_reader_accepts_the_valid_fixtures_and_refuses_the_invalid(fmt, kind, path):
    r = subprocess.run([MEMREL, "compare", path, path], capture_output=True, text=True)
    if kind == "valid":
        # A file against itself: read, and nothing regressed or went missing.
        assert r.returncode == 0, r.stderr
        return
    assert r.returncode == 2, (r.returncode, r.stdout[-400:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and path in lines[0], r.stderr


# --- the writers' output against the schemas ---------------------------------------------------

@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(DATA, "*-run.json")))
                         + sorted(glob.glob(os.path.join(ROOT, "results", "baselines", "*", "suite.json"))))
def test_the_committed_results_validate(path):
    assert schema_errors("results", read_json(path)) == []


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(DATA, "*-bench.json")))
                         + [os.path.join(DATA, "gbench-reading", "input.json")]
                         + sorted(glob.glob(os.path.join(DATA, "compare", "*.json")))
                         + sorted(glob.glob(os.path.join(ROOT, "results", "baselines", "*", "bench-*.json"))))
def test_the_committed_benchmark_files_validate(path):
    assert schema_errors("benchmark", read_json(path)) == []


@needs_memrel
def test_a_fresh_host_run_validates(tmp_path):
    out = tmp_path / "run.json"
    r = subprocess.run([MEMREL, "run", "-b", "host-malloc,null", "-w", "single-large,fragmentation",
                        "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    doc = read_json(out)
    assert len(doc["cells"]) == 4
    assert schema_errors("results", doc) == []
    load.load_results(str(out))


def compare_json(tmp_path, baseline, current, *options):
    md, js = tmp_path / "gate.md", tmp_path / "gate.json"
    r = subprocess.run([MEMREL, "compare", baseline, current, "--markdown", str(md), "--json", str(js), *options],
                       capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return r, md.read_text(encoding="utf-8"), read_json(js), str(js)


MARKDOWN_ROW = re.compile(r"^\| (.*) \| (.*) \| (.*) \| (.*) \| \**([A-Za-z]+)\** \|$")


def markdown_verdicts(md):
    """(subject · metric, verdict) of every row of the Markdown tables, in order."""
    rows = []
    for line in md.splitlines():
        m = MARKDOWN_ROW.match(line)
        if m and m.group(1) != "metric":
            rows.append((m.group(1), m.group(5)))
    return rows


@needs_memrel
@pytest.mark.parametrize("baseline, current, options", [
    pytest.param(os.path.join(ROOT, "results", "baselines", "host"), os.path.join(ROOT, "results", "baselines", "host"),
                 (), id="host-baseline-against-itself"),
    pytest.param(os.path.join(DATA, "host-bench.json"), os.path.join(DATA, "synthetic-bench.json"), (),
                 id="benchmarks-that-share-nothing"),
    pytest.param(os.path.join(DATA, "h200-run.json"), os.path.join(DATA, "host-run.json"),
                 ("--allow-different-device", "--byte-tolerance", "1%"), id="h200-against-host"),
])
def test_compare_json_validates_and_says_what_the_markdown_says(tmp_path, baseline, current, options):
    r, md, doc, path = compare_json(tmp_path, baseline, current, *options)
    assert schema_errors("gate-verdicts", doc) == []
    read = gate_verdict.load_verdict(path)  # the report's reader takes it, counts and all
    assert read.exit_code == r.returncode == doc["summary"]["exit_code"]
    rows = [row for f in doc["files"] for row in f["rows"]]
    assert [(f'{x["subject"]} · {x["metric"]}', x["verdict"]) for x in rows] == markdown_verdicts(md)
    assert md.rstrip().endswith(f'{doc["summary"]["result"]}.')
    compared = sum(doc["summary"]["counts"][v] for v in ("ok", "improved", "REGRESSION", "info"))
    assert f"Summary: {compared} compared, {doc['summary']['counts']['REGRESSION']} regressions, " in md


@needs_memrel
def test_ab_json_validates_and_carries_the_rank_tests_p_value(tmp_path):
    bench = os.path.join(os.path.dirname(MEMREL), "benchmarks", "memrel_bench")
    if not os.access(bench, os.X_OK):
        pytest.skip(f"{bench} is not built (no Google Benchmark at configure time)")
    js = tmp_path / "ab.json"
    # The candidate slowed by 200 µs a call: 5 rounds against 5, all apart, p = 1/126.
    r = subprocess.run([MEMREL, "ab", "-b", "pluggable-host-example", "--quick", "--rounds", "5",
                        "--latency-min-change", "0.5",
                        "--filter=^pair/pluggable-host-example/warm/512/",
                        "--candidate-env", "MEMREL_TEST_HOST_EXAMPLE_DELAY_US=200",
                        "--out", str(tmp_path / "ab"), "--json", str(js)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr[-2000:]
    doc = read_json(js)
    assert schema_errors("gate-verdicts", doc) == []
    [latency] = [row for f in doc["files"] for row in f["rows"] if row["metric"] == "real_time"]
    assert latency["verdict"] == "REGRESSION" and latency["p_value"] == pytest.approx(1 / 126)
    assert doc["summary"]["counts"]["REGRESSION"] == 1 and doc["summary"]["exit_code"] == 1


# --- one list of statuses, one of verdicts ------------------------------------------------------

def test_the_python_status_list_is_the_schemas():
    assert list(load.STATUSES) == schema("results")["$defs"]["status"]["enum"]


def test_the_python_verdict_list_is_the_schemas():
    assert list(gate_verdict.VERDICTS) == schema("gate-verdicts")["$defs"]["verdict"]["enum"]


def test_every_status_is_in_a_valid_fixture_and_one_outside_the_list_is_refused():
    # The C++ side: memrel compare accepts every-status.json (above) and refuses status-unknown.json;
    # GoogleTest checks cell_statuses() and verdict_names() against the enums directly
    # (tests/harness/results_test.cpp, tests/gate/printers_test.cpp).
    doc = read_json(os.path.join(FORMATS, "results", "valid", "every-status.json"))
    assert sorted({c["status"] for c in doc["cells"]}) == sorted(load.STATUSES)
    bad = read_json(os.path.join(FORMATS, "results", "invalid", "status-unknown.json"))
    assert bad["cells"][0]["status"] not in load.STATUSES


def test_the_report_refuses_a_summary_that_disagrees_with_the_rows(tmp_path):
    # What no schema can say: the counts are the rows'. The gate writes both from one model.
    doc = read_json(os.path.join(FORMATS, "gate-verdicts", "valid", "regression.json"))
    doc["summary"]["counts"]["REGRESSION"] -= 1
    doc["summary"]["counts"]["ok"] += 1
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(doc))
    assert schema_errors("gate-verdicts", doc) == []
    with pytest.raises(load.InputError, match=r'summary\.counts\.ok: 5, but 4 rows say "ok"'):
        gate_verdict.load_verdict(str(path))
