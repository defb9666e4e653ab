"""What the twenty-third adversarial pass of issue 23 found (docs/inputs.md, "Twenty-third
pass"): each test fails on the code before its fix."""

import subprocess

from conftest import HOST_RUN
from test_hostile_inputs import MEMREL, needs_memrel, refused


@needs_memrel
def test_history_add_out_of_file_descriptors_is_the_machines_state(tmp_path):
    """c8-ulimit-n-history-add-new-db: under `ulimit -n 4` SQLite said "unable to open database
    file" and memrel took it for an unusable file, exit 2."""
    r = subprocess.run(["bash", "-c", 'ulimit -n 4; exec "$@"', "bash", MEMREL, "-q", "history", "--db",
                        "h.sqlite", "add", HOST_RUN], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    refused(r, "h.sqlite: cannot open", "too few file descriptors left (ulimit -n)", exit_code=4)
    assert sorted(p.name for p in tmp_path.iterdir()) == []
