"""What the forty-third adversarial pass of issue 23 found (docs/inputs.md, "Forty-third pass").
Each test fails on the code before its fix (the journal's start time is tested in C++:
RunJournal.DamageIsOneLineNamingTheFileAndLine, tests/harness/run_journal_test.cpp)."""

import os
import shutil

from conftest import ROOT
from test_hostile_inputs import scripts_module

RMM_LOG = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")


def test_trace_import_refuses_a_source_rewritten_while_it_was_read(tmp_path, monkeypatch,
                                                                     capsys):
    """c7-trace-import-source-changed-while-read: an RMM log rewritten in place during the import
    gave a trace of the old content under the new content's sha256 and size, exit 0, where run
    and advise refuse "changed while the run read it". Here the log grows by a line as soon as
    its reader is done with it."""
    trace = scripts_module("memrel_trace.__main__")
    log = tmp_path / "log.csv"
    shutil.copy(RMM_LOG, log)
    real_read = trace.rmm_log.read

    def read_then_rewritten(path, device, builder):
        result = real_read(path, device, builder)
        with open(log, "a", encoding="ascii") as f:
            f.write(open(RMM_LOG, encoding="ascii").read().splitlines()[-1] + "\n")
        return result

    monkeypatch.setattr(trace.rmm_log, "read", read_then_rewritten)
    out = tmp_path / "t.memtrace"
    assert trace.main(["import", str(log), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "log.csv: changed while it was read" in err[0], err
    assert not out.exists()
