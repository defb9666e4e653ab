"""What the twentieth adversarial pass of issue 23 found, and the nineteenth's one fault left open
(docs/inputs.md, "Twentieth pass"): each test fails on the code before its fix."""

import pickle
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel, refused


def _under_address_space_limit(kib, *args, cwd):
    return subprocess.run(["sh", "-c", f'ulimit -v {kib} && exec "$@"', "sh", MEMREL, "-q", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def _valid_snapshot(path, pairs):
    """A snapshot of `pairs` allocations and frees: about 90 bytes of pickle each, and ten times
    that once loaded."""
    events = []
    for i in range(pairs):
        address = 0x1000 + i * 4096
        events += [{"action": action, "addr": address, "size": 4096, "stream": 0, "time_us": 3 * i + k}
                   for k, action in enumerate(("alloc", "free_requested", "free_completed"))]
    path.write_bytes(pickle.dumps({"segments": [], "device_traces": [events]}, protocol=4))


@needs_memrel
@pytest.mark.parametrize("command", ["import", "run"])
def test_a_valid_snapshot_under_a_small_address_space_limit_is_the_limits_fault(tmp_path, command):
    """c8-ulimit-v-pickle-blamed-on-file-*: a valid 37 MB snapshot under the user's `ulimit -v
    300000` was "refused: the pickle asks for more than 2048 MiB: malformed or hostile" (exit 2);
    it needs more memory than the user allows, which is the machine's limit (exit 4)."""
    _valid_snapshot(tmp_path / "s.pickle", 150_000)  # 14 MB, about 200 MB mapped to import
    args = (["trace", "import", "s.pickle", "-o", "t.memtrace"] if command == "import" else
            ["run", "-b", "host-malloc", "-w", "s.pickle", "-o", "r.json"])
    line = refused(_under_address_space_limit(200_000, *args, cwd=tmp_path), "s.pickle",
                   "ulimit -v", "raise the limit", exit_code=4)
    assert "hostile" not in line and "internal error" not in line, line
    assert not (tmp_path / "t.memtrace").exists() and not (tmp_path / "r.json").exists()


@needs_memrel
def test_a_memo_bomb_under_the_same_limit_is_still_the_files_fault(tmp_path):
    """The other side of the rule: a 9-byte pickle whose memo index asks for 32 GiB at once fails
    far below the user's limit, and stays malformed or hostile (exit 2)."""
    (tmp_path / "memo.pickle").write_bytes(b"\x80\x04Nr\xff\xff\xff\x7f.")
    refused(_under_address_space_limit(200_000, "trace", "import", "memo.pickle", "-o", "t.memtrace",
                                       cwd=tmp_path), "memo.pickle", "malformed or hostile")
