"""What the eighty-first adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Eighty-first pass"). Each test fails on the code before its fix."""

import os
import shutil
import signal
import subprocess
import time

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel, refused

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")


def _memrel(*args, cwd):
    return subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def _a_real_journal(tmp_path):
    """An interrupted run's journal, as memrel writes it: its header line holds the run's whole
    context, longer than the 4 KiB the readers looked at."""
    p = subprocess.Popen([MEMREL, "-q", "run", "-b", "pluggable-host-example,host-malloc",
                          "-o", "r.json"], cwd=tmp_path,
                         stderr=subprocess.DEVNULL,
                         env={**os.environ, "MEMREL_TEST_HOST_EXAMPLE_DELAY_US": "300000"})
    deadline = time.time() + 60
    while time.time() < deadline and not (tmp_path / "r.json.journal").exists():
        time.sleep(0.005)
    time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=120)
    journal = tmp_path / "r.json.journal"
    assert journal.exists() and len(journal.read_text().split("\n", 1)[0]) > 4096
    return journal


@needs_memrel
@pytest.mark.parametrize("command", [["advise", "{}", "-b", "null", "--out", "adv"],
                                     ["trace", "show", "{}"],
                                     ["trace", "import", "{}", "-o", "j.memtrace"]],
                         ids=["advise", "trace-show", "trace-import"])
@pytest.mark.parametrize("name", ["jr.json", "jr.memtrace"])
def test_a_journal_given_where_a_trace_goes_is_named_a_journal(tmp_path, command, name):
    """c10-journal-unnamed-by-advise-and-trace: an interrupted run's journal given to advise,
    trace show or trace import was "not a trace", "no MEMTRACE magic: import it" or "neither a
    PyTorch snapshot pickle nor an RMM log": its header line is longer than the head they read."""
    shutil.copy(_a_real_journal(tmp_path), tmp_path / name)
    refused(_memrel(*[a.replace("{}", name) for a in command], cwd=tmp_path), name,
            "a memrel journal", "--resume")
    assert not (tmp_path / "adv").exists() and not (tmp_path / "j.memtrace").exists()


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "show", "r.json"],
                                     ["trace", "import", "r.json", "-o", "x.memtrace"]],
                         ids=["trace-show", "trace-import"])
def test_a_results_file_given_where_a_trace_goes_is_named_a_json_document(tmp_path, command):
    """c10-trace-show-wrong-advice: `trace show` of a results file said "import it with `memrel
    trace import`", which then refused the same file."""
    shutil.copy(HOST_RUN, tmp_path / "r.json")
    line = refused(_memrel(*command, cwd=tmp_path), "r.json", "a JSON document")
    assert "import it" not in line
