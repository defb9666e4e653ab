"""What the thirty-third adversarial pass of issue 23 left open and the thirty-fourth found
(docs/inputs.md, "Thirty-third pass" and "Thirty-fourth pass"): each test fails on the code
before its fix."""

import json
import os
import subprocess
import threading
import time

from test_hostile_inputs import MEMREL, needs_memrel, refused


def _workload(name, nbytes, sleep_ms):
    return json.dumps({"schema": "memrel.workload/1", "name": name,
                       "steps": [{"alloc": "x", "bytes": nbytes}, {"sleep_ms": sleep_ms},
                                 {"free": "x"}]})


@needs_memrel
def test_a_workload_replaced_while_the_run_reads_it_stops_the_run(tmp_path):
    """c5-workload-edited-mid-run-mixed-cells: each cell reads its workload file again; a file
    replaced while the first cell ran gave one cell of the old content and one of the new under
    one name and one digest, exit 0. The run stops (exit 2, one line naming the file), the cell
    that may have read either content unrecorded, no results written."""
    workload = tmp_path / "w.json"
    workload.write_text(_workload("w", 4096, 2500))
    journal = tmp_path / "r.json.journal"

    def replace_once_the_first_cell_runs():
        deadline = time.monotonic() + 30
        while not journal.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)
        (tmp_path / "w.json.new").write_text(_workload("w", 1 << 20, 100))
        os.replace(tmp_path / "w.json.new", workload)

    editor = threading.Thread(target=replace_once_the_first_cell_runs)
    editor.start()
    r = subprocess.run([MEMREL, "-q", "run", "-b", "host-malloc,host-malloc-retain",
                        "-w", "./w.json", "-o", "r.json", "--no-host-lane"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    editor.join()
    line = refused(r, "./w.json", "changed while the run read it", "0 of 2 cells finished")
    assert "r.json.journal" in line
    assert not (tmp_path / "r.json").exists()
