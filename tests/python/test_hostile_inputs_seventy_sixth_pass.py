"""What the seventy-sixth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Seventy-sixth pass"). Each test fails on the code before its fix."""

import json
import os
import pickle
import subprocess

import pytest

from test_hostile_inputs import MEMREL, needs_memrel, refused


def _memrel(*args, cwd):
    return subprocess.run([MEMREL, "-q", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def _what_is_there(tmp_path, kind, name):
    """NAME in tmp_path as KIND: a folder, a symbolic link to itself, or a path through a file."""
    if kind == "folder":
        (tmp_path / name).mkdir()
    elif kind == "link-loop":
        os.symlink(name, tmp_path / name)
    else:
        (tmp_path / "f.json").write_text("{}\n")
        return str(tmp_path / "f.json" / name)
    return str(tmp_path / name)


_REASONS = {"folder": "a folder, not a regular file",
            "link-loop": "Too many levels of symbolic links",
            "through-a-file": "Not a directory"}


@needs_memrel
@pytest.mark.parametrize("kind", list(_REASONS))
@pytest.mark.parametrize("name", ["w.json", "w.memtrace", "w.pickle", "w.csv", "w"])
def test_run_w_of_a_path_that_is_no_file_says_what_is_there(tmp_path, kind, name):
    """c7-run-w-folder-said-no-such-file, c7-run-w-symlink-loop-said-no-such-file: `run -w` of a
    folder, a link loop or a path through a file said "no such file (nor a workload of that
    name ...)", where `validate` of the same path says what is there."""
    path = _what_is_there(tmp_path, kind, name)
    line = refused(_memrel("run", "-b", "host-malloc", "-w", path, "-o", "r.json", cwd=tmp_path),
                   path, _REASONS[kind])
    assert "no such file" not in line
    assert not (tmp_path / "r.json").exists()


@needs_memrel
@pytest.mark.parametrize("kind", list(_REASONS))
@pytest.mark.parametrize("command", [["run", "-w", "temp-then-delete", "-o", "r.json"],
                                     ["bench", "--quick", "-o", "o"]], ids=["run", "bench"])
def test_b_of_a_path_that_is_no_file_says_what_is_there(tmp_path, kind, command):
    """c7-run-b-folder-said-unknown-backend: `run -b`/`bench -b` of a backend file's path that is
    a folder or a link loop said "unknown backend '...' (valid: ...)", as of a path not there."""
    path = _what_is_there(tmp_path, kind, "b.json")
    line = refused(_memrel(command[0], "-b", path, *command[1:], cwd=tmp_path), path,
                   _REASONS[kind])
    assert "unknown backend" not in line


@needs_memrel
def test_a_bare_word_that_is_a_folder_here_is_still_an_unknown_backend(tmp_path):
    """The fix reads paths only: a folder of the working folder named like a backend is not one."""
    (tmp_path / "nosuch").mkdir()
    refused(_memrel("run", "-b", "nosuch", "-w", "temp-then-delete", "-o", "r.json",
                    cwd=tmp_path), "unknown backend 'nosuch'")


@needs_memrel
@pytest.mark.parametrize("size", ["4095.99999999999999999", "1023.9999999999999999KiB",
                                  "4096.00000000000000000001"])
def test_a_fraction_too_fine_for_a_double_is_not_a_whole_number_of_bytes(tmp_path, size):
    """c4-size-fraction-rounded-to-whole: `--host-capacity 4095.5` is refused as not whole bytes,
    but 4095.99999999999999999 ran with host_capacity_bytes 4096, exit 0 (read as a double)."""
    refused(_memrel("run", "-b", "host-malloc", "-w", "temp-then-delete", "--host-capacity", size,
                    "-o", "r.json", cwd=tmp_path), "--host-capacity", size,
            "not a whole number of bytes")
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_a_size_of_many_digits_that_is_whole_is_taken_exactly(tmp_path):
    r = _memrel("run", "-b", "host-malloc", "-w", "temp-then-delete", "--host-capacity",
                "0.00390625000000000000000000GiB", "-o", "r.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    run = json.loads((tmp_path / "r.json").read_text())
    assert run["context"]["options"]["host_capacity_bytes"] == 4 << 20


_TRACE = [{"action": "alloc", "addr": 4096, "size": 512, "stream": 0, "time_us": 1},
          {"action": "free_completed", "addr": 4096, "size": 512, "stream": 0, "time_us": 2}]


@needs_memrel
@pytest.mark.parametrize("settings,said", [({1: "int-key", "1": "str-key"}, "1 and '1'"),
                                           ({"a": {"\ud800": 1, "\\ud800": 2}},
                                            "'\\ud800' and '\\\\ud800'")],
                         ids=["int-and-str", "surrogate-and-its-escape"])
def test_two_settings_keys_one_text_are_refused(tmp_path, settings, said):
    """c7-snapshot-settings-key-collision-drops-setting: allocator_settings with the keys 1 and
    "1" (or a lone surrogate and its escape) imported, exit 0, one setting dropped."""
    with open(tmp_path / "s.pickle", "wb") as f:
        pickle.dump({"device_traces": [_TRACE], "segments": [], "allocator_settings": settings}, f)
    refused(_memrel("trace", "import", "s.pickle", "-o", "s.memtrace", cwd=tmp_path),
            "allocator_settings", said, "one setting would be lost")
    assert not (tmp_path / "s.memtrace").exists()


@needs_memrel
@pytest.mark.parametrize("pointer", ["0x1000", "0x7f0000001000"])
def test_an_rmm_allocate_failure_with_a_pointer_is_refused(tmp_path, pointer):
    """c7-rmm-allocate-failure-nonnull-pointer: RMM writes a failure's Pointer as nullptr; a row
    with a real pointer (here a live block's) was taken as a failure mark, exit 0."""
    (tmp_path / "log.csv").write_text(
        "Thread,Time,Action,Pointer,Size,Stream\n"
        "1,08:00:00.1,allocate,0x1000,16,0x0\n"
        f"1,08:00:00.2,allocate failure,{pointer},16,0x0\n"
        "1,08:00:00.3,free,0x1000,16,0x0\n")
    refused(_memrel("trace", "import", "log.csv", "-o", "t.memtrace", cwd=tmp_path),
            "line 3", "allocate failure with Pointer", "(nil)")
    assert not (tmp_path / "t.memtrace").exists()


@needs_memrel
@pytest.mark.parametrize("pointer", ["(nil)", "0x0", "0"])
def test_an_rmm_allocate_failure_as_rmm_writes_it_is_a_mark(tmp_path, pointer):
    (tmp_path / "log.csv").write_text(
        "Thread,Time,Action,Pointer,Size,Stream\n"
        "1,08:00:00.1,allocate,0x1000,16,0x0\n"
        f"1,08:00:00.2,allocate failure,{pointer},16,0x0\n"
        "1,08:00:00.3,free,0x1000,16,0x0\n")
    r = _memrel("trace", "import", "log.csv", "-o", "t.memtrace", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    shown = _memrel("trace", "show", "--events", "t.memtrace", cwd=tmp_path)
    assert shown.returncode == 0 and "allocate-failure" in shown.stdout, shown.stdout
