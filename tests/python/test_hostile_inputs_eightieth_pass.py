"""What the eightieth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Eightieth pass"). Each test fails on the code before its fix."""

import pickle
import resource

import pytest

from test_hostile_inputs import needs_memrel, refused
from test_hostile_inputs_seventy_eighth_pass import HOST_RUN, _memrel

TRACE = [{"action": "alloc", "addr": 4096, "size": 16, "stream": 0, "time_us": 1},
         {"action": "free_completed", "addr": 4096, "size": 16, "stream": 0, "time_us": 2}]


def _one_gib_of_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


@needs_memrel
def test_a_string_the_settings_share_is_counted_each_time_and_refused_at_once(tmp_path):
    """c7-shared-settings-string-expanded: a 299 KB snapshot whose allocator_settings name one
    200,000-character string by 9,999 keys (under the 10,000-value cap) built a 2 GB header in
    memory (4 GB, 12 s) before the loader's 16 MiB cap refused it. Counted as expanded now, the
    refusal comes before any copy: here under an address-space limit of 1 GiB."""
    shared = "y" * 200_000
    with open(tmp_path / "shared.pickle", "wb") as f:
        pickle.dump({"device_traces": [TRACE], "segments": [],
                     "allocator_settings": {f"k{i}": shared for i in range(9999)}}, f,
                    protocol=4)
    refused(_memrel("trace", "import", "shared.pickle", "-o", "t.memtrace", cwd=tmp_path,
                    preexec_fn=_one_gib_of_address_space),
            "allocator_settings", "characters of text (expanded")
    assert not (tmp_path / "t.memtrace").exists()


@needs_memrel
def test_settings_of_ordinary_text_still_import(tmp_path):
    with open(tmp_path / "s.pickle", "wb") as f:
        pickle.dump({"device_traces": [TRACE], "segments": [],
                     "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
                                            "note": "x" * 100_000}}, f)
    r = _memrel("trace", "import", "s.pickle", "-o", "t.memtrace", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


@needs_memrel
@pytest.mark.parametrize("command", [["run", "-b", "null", "--include-null", "-w",
                                      "temp-then-delete", "-o", "b.json/../x.json"],
                                     ["compare", HOST_RUN, HOST_RUN, "--markdown",
                                      "b.json/../x.md"],
                                     ["report", "--out", "b.json/../rep", HOST_RUN]],
                         ids=["run", "compare", "report"])
def test_an_output_going_up_out_of_a_regular_file_says_it_is_no_folder(tmp_path, command):
    """c1-output-dotdot-through-regular-file: `-o b.json/../x.json` was "goes up (..) out of
    b.json, which does not exist", of a file that does."""
    (tmp_path / "b.json").write_text("{}\n")
    line = refused(_memrel(*command, cwd=tmp_path), "goes up (..) out of b.json, which is not a "
                                                    "folder")
    assert "does not exist" not in line


@needs_memrel
def test_a_compared_input_through_a_regular_file_says_not_a_directory(tmp_path):
    """c1-input-dotdot-through-regular-file: `compare b.json/../b.json b.json` was "cannot open (no
    such file or folder)", where the system says Not a directory (as `validate` does)."""
    (tmp_path / "b.json").write_text(open(HOST_RUN).read())
    refused(_memrel("compare", "b.json/../b.json", "b.json", cwd=tmp_path),
            "b.json/../b.json: cannot open (Not a directory)")
