"""What the sixty-fourth adversarial pass of issue 23 found arguable and was settled (docs/inputs.md,
"Sixty-fourth pass"). The test fails on the code before its fix."""

import pickle
import subprocess

from test_hostile_inputs import MEMREL, needs_memrel


@needs_memrel
def test_reserved_bytes_summing_past_2_63_are_refused_in_memrels_words(tmp_path):
    """c7-segment-sum-past-2p63-python-overflow-words: segments whose reserved total passes 2^63
    were refused as Python's "int too big to convert"."""
    trace = [{"action": "segment_alloc", "addr": i << 48, "size": 1 << 48, "stream": 0,
              "time_us": i} for i in range(1, 40001)]
    trace.append({"action": "alloc", "addr": 4096, "size": 100, "stream": 0, "time_us": 50000})
    with open(tmp_path / "seg.pickle", "wb") as f:
        pickle.dump({"segments": [], "device_traces": [trace]}, f)
    r = subprocess.run([MEMREL, "trace", "import", "seg.pickle", "-o", "seg.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "the recorded reserved bytes pass 2^63, more than 2^53" in r.stderr, r.stderr
    assert "int too big" not in r.stderr
    assert not (tmp_path / "seg.memtrace").exists()
