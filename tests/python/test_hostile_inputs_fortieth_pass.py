"""What the fortieth adversarial pass of issue 23 left open (docs/inputs.md, "Fortieth pass"):
backend libraries that end or hold the process that loads them. Each test fails on the code
before its fix."""

import json
import os
import subprocess
import time

from test_hostile_inputs import MEMREL, needs_memrel, refused
from test_hostile_inputs_seventeenth_pass import compiled_host_backend

# A library whose constructor ends the process that loads it, with exit code 2: the code
# memrel_bench gives a usage error. ONLY_IN names the program it does so in ("" for any).
_EXITS_WHILE_LOADING = r"""#include <stddef.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void end_the_loader(void) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  if (strstr(exe, "ONLY_IN")) _exit(2);
}
void* ex_alloc(size_t n) { (void)n; return 0; }
void ex_free(void* p) { (void)p; }
void ex_release(void) {}
size_t ex_allocated(void) { return 0; }
size_t ex_reserved(void) { return 0; }
"""

# A library whose constructor never returns.
_HANGS_WHILE_LOADING = r"""#include <stddef.h>
#include <unistd.h>
__attribute__((constructor)) static void never_return(void) { for (;;) pause(); }
void* hg_alloc(size_t n) { (void)n; return 0; }
void hg_free(void* p) { (void)p; }
void hg_release(void) {}
size_t hg_allocated(void) { return 0; }
size_t hg_reserved(void) { return 0; }
"""


def _bench(cwd, *backends):
    return subprocess.run([MEMREL, "bench", "-b", ",".join(backends), "--quick", "--filter",
                           "^pair/", "-o", "out", "-q", "--timeout", "60"], capture_output=True,
                          text=True, cwd=cwd, timeout=180)


@needs_memrel
def test_bench_refuses_a_library_that_ends_its_loader_before_anything_runs(tmp_path):
    """c8-bench-library-exit2-read-as-bad-input: `bench -b host-malloc,FILE`, FILE's library
    calling _exit(2) as it loads, ran host-malloc, wrote its file, then said memrel_bench "exited 2
    (bad input)" with exit 2, and a backend after it never ran. The library is checked before
    anything runs, as run checks it: exit 2, one line naming the file, nothing written."""
    compiled_host_backend(tmp_path, "ends", _EXITS_WHILE_LOADING.replace("ONLY_IN", ""), "ex",
                          "ends its loader")
    r = _bench(tmp_path, "host-malloc", str(tmp_path / "ends.json"))
    refused(r, "ends.json", "loading its library ended the process with exit code 2")
    assert not (tmp_path / "out").exists()


@needs_memrel
def test_a_bench_exit_2_without_its_usage_message_is_the_backends_failure(tmp_path):
    """The same library, ending memrel_bench only (the check before the run passes): its exit 2
    is that backend's failure (exit 3), not memrel_bench refusing its input, and the backends
    after it still run."""
    compiled_host_backend(tmp_path, "ends", _EXITS_WHILE_LOADING.replace("ONLY_IN",
                                                                         "memrel_bench"), "ex",
                          "ends memrel_bench")
    r = _bench(tmp_path, str(tmp_path / "ends.json"), "host-malloc")
    assert r.returncode == 3, r.stderr
    assert "bench ends: rc 2: exited 2 without memrel_bench's word for a usage error" in r.stderr
    assert "it said nothing" in r.stderr
    assert os.listdir(tmp_path / "out") == ["bench-host-malloc.json"]


@needs_memrel
def test_list_says_it_waits_for_a_library_that_never_loads_and_stops_waiting(tmp_path):
    """c8-list-hangs-on-library-that-hangs-loading: a backends-folder library that never returns
    from loading held `list` (and bench's default set) silent for 60 s per file. It is said while
    waited for, and listed unavailable after 30 s."""
    folder = tmp_path / "bd"
    folder.mkdir()
    compiled_host_backend(folder, "hangs", _HANGS_WHILE_LOADING, "hg", "never loads")
    start = time.monotonic()
    r = subprocess.run([MEMREL, "--backends-dir", str(folder), "list", "--json"],
                       capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - start
    assert r.returncode == 0, r.stderr
    assert elapsed < 50, elapsed
    assert "hangs.json: its library is still loading after 3 s; waiting up to 30 s" in r.stderr
    entry = next(b for b in json.loads(r.stdout)["backends"] if b["name"] == "hangs")
    assert entry["available"] is False
    assert entry["reason"].endswith("hangs.json: loading its library took longer than 30 s")
