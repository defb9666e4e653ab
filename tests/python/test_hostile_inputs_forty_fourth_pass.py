"""What the forty-fourth adversarial pass of issue 23 found (docs/inputs.md, "Forty-fourth
pass"). Each test fails on the code before its fix."""

import json
import pickle
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel, refused


@needs_memrel
@pytest.mark.parametrize("option", ["--junit", "--markdown", "--summary", "--json"])
def test_ab_refuses_a_file_output_that_is_its_out_folder(tmp_path, option):
    """c2-ab-file-output-is-out-folder: `ab --out A --junit A` ran every round, then said "A: is a
    folder, not a regular file" naming no option, exit 2, and removed A with every round."""
    r = subprocess.run([MEMREL, "-q", "ab", "-b", "null", "--quick", "--rounds", "5", "--looks",
                        "1", "--filter", "^pair/null/warm/512/", "--out", "A", option, "./A"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=180)
    refused(r, f"{option} ./A: the same path as --out")
    assert r.stdout == ""
    assert not (tmp_path / "A").exists()


@needs_memrel
def test_list_tells_a_snapshot_in_the_workloads_folder_by_its_content(tmp_path):
    """c10-list-snapshot-named-json: a snapshot named snap.json in the workloads folder was listed
    "INVALID: ... malformed JSON at byte 1" (told by its extension), where run says what it is.
    Both say it now with one line."""
    folder = tmp_path / "w"
    folder.mkdir()
    events = [{"action": "alloc", "addr": 4096, "size": 1 << 20, "stream": 0},
              {"action": "free_completed", "addr": 4096, "size": 1 << 20, "stream": 0}]
    (folder / "snap.json").write_bytes(pickle.dumps({"segments": [], "device_traces": [events]},
                                                    protocol=4))
    said = "a PyTorch snapshot or an RMM log in the workloads folder is not imported by a plain run"
    listed = subprocess.run([MEMREL, "--workloads-dir", str(folder), "list", "--json"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert listed.returncode == 0, listed.stderr
    entry = next(w for w in json.loads(listed.stdout)["workloads"] if w["name"] == "snap")
    assert entry["valid"] is False and said in entry["error"], entry
    run = subprocess.run([MEMREL, "-q", "--workloads-dir", str(folder), "run", "-b", "host-malloc",
                          "-o", "r.json"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    refused(run, said)
