"""What the twenty-third adversarial pass of issue 23 found (docs/inputs.md, "Twenty-third
pass"): each test fails on the code before its fix."""

import os
import shutil
import subprocess
import sys
import textwrap

from conftest import HOST_RUN, SCRIPTS
from test_hostile_inputs import MEMREL, RMM_LOG, needs_memrel, refused


@needs_memrel
def test_history_add_out_of_file_descriptors_is_the_machines_state(tmp_path):
    """c8-ulimit-n-history-add-new-db: under `ulimit -n 4` SQLite said "unable to open database
    file" and memrel took it for an unusable file, exit 2."""
    r = subprocess.run(["bash", "-c", 'ulimit -n 4; exec "$@"', "bash", MEMREL, "-q", "history", "--db",
                        "h.sqlite", "add", HOST_RUN], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, "h.sqlite: cannot open", "too few file descriptors left (ulimit -n)", exit_code=4)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_an_abandoned_pools_thread_says_nothing_of_futures_already_cancelled():
    """c8-fulldisk-report-pool-traceback: a report on a full disk printed the pool's thread's
    InvalidStateError traceback (it set an exception on futures map's iterator had cancelled)
    before memrel's one line. Once the pool is abandoned that one is kept quiet; any other
    exception of a thread is still printed."""
    code = textwrap.dedent(f"""
        import sys, threading
        sys.path.insert(0, {SCRIPTS!r})
        from concurrent.futures import InvalidStateError
        from memrel_report import report

        report._quiet_about_abandoned_futures()
        for error in (InvalidStateError("CANCELLED"), ValueError("still said")):
            def fail(error=error):
                raise error
            t = threading.Thread(target=fail)
            t.start()
            t.join()
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "InvalidStateError" not in r.stderr and "ValueError: still said" in r.stderr, r.stderr


@needs_memrel
def test_files_and_folders_named_with_a_leading_dash_reach_the_python_parts_as_names(tmp_path):
    """c10-run-workload-csv-dash-name, c10-advise-out-dash-folder: memrel handed `-log.csv` (an
    RMM log to import) and `--out -adv` to its Python parts as words an option parser reads as
    options: "the following arguments are required: FILE", and advise's page not written."""
    shutil.copy(RMM_LOG, tmp_path / "-log.csv")
    (tmp_path / "-tmp").mkdir()  # and the imported trace's own name (TMPDIR=-tmp, c10-run-csv-tmpdir-dash-relative)
    r = subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc", "--workload=-log.csv", "-o", "r.json"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300,
                       env=dict(os.environ, TMPDIR="-tmp"))
    assert r.returncode == 0, r.stderr
    r = subprocess.run([MEMREL, "-q", "advise", "-b", "host-malloc,host-malloc-retain", "--out=-adv",
                        "./-log.csv"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "-adv" / "advise.html").exists()
