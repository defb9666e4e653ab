"""What the fifty-sixth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Fifty-sixth pass"). Each test fails on the code before its fix."""

import os
import resource
import signal
import struct
import subprocess
import time

import pytest

from test_hostile_inputs import MEMREL, needs_memrel

HERE = os.path.dirname(os.path.abspath(__file__))
HOST_RUN = os.path.join(HERE, "..", "data", "host-run.json")


def one_line(r, code, *words):
    assert r.returncode == code, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


def snapshot_with_sizes_that_hold_themselves():
    """A 200-byte snapshot pickle: an alloc and a free_completed of one address, each with a
    list that holds itself as its size (two lists, so that == compares them for ever)."""
    def text(x):
        b = x.encode()
        return b"X" + struct.pack("<I", len(b)) + b

    def number(n):
        return b"J" + struct.pack("<i", n)

    def cycle(memo):
        return b"]" + b"r" + struct.pack("<I", memo) + b"j" + struct.pack("<I", memo) + b"a"

    def entry(action, size):
        return (b"}(" + text("action") + text(action) + text("addr") + number(4096) +
                text("size") + size + text("stream") + number(0) + b"u")

    return (b"\x80\x02}(" + text("device_traces") + b"]](" + entry("alloc", cycle(1000)) +
            entry("free_completed", cycle(1001)) + b"ea" + text("segments") + b"]u.")


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", "s.pickle", "-o", "t.memtrace"],
                                     ["run", "-b", "null", "-w", "s.pickle", "-o", "r.json"]])
def test_a_snapshot_size_that_holds_itself_is_refused_not_compared(tmp_path, command):
    """c7-snapshot-deep-size-recursion: the sizes of an alloc and its free were compared before
    either was known to be an integer: two lists holding themselves were RecursionError, exit 4."""
    (tmp_path / "s.pickle").write_bytes(snapshot_with_sizes_that_hold_themselves())
    r = subprocess.run([MEMREL, "-q", *command], capture_output=True, text=True, cwd=tmp_path,
                       timeout=120)
    one_line(r, 2, "s.pickle: device_traces[0][1]: 'size' must be an integer")
    assert sorted(os.listdir(tmp_path)) == ["s.pickle"]


def rmm_rows(count):
    rows = ["Thread,Time,Action,Pointer,Size,Stream"]
    rows += [f"1,08:09:22.{i:06d},allocate,0x{(i + 1) * 0x100000:x},4096,0x1" for i in range(count)]
    return rows


@needs_memrel
@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_a_byte_that_is_not_utf8_is_named_by_its_line_whatever_the_line_ends(tmp_path, end):
    """c7-rmm-cr-lines-nonutf8-wrong-line: a log of \\r line ends, accepted, with a bad byte on
    line 151 was said to be bad on line 1: the lines were counted by \\n alone."""
    rows = rmm_rows(200)
    data = end.join(rows).encode() + end.encode()
    line_151 = data.index(rows[150].encode())
    (tmp_path / "r.csv").write_bytes(data[:line_151 + 1] + b"\xff" + data[line_151 + 1:])
    r = subprocess.run([MEMREL, "trace", "import", "r.csv", "-o", "t.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    one_line(r, 2, "r.csv: line 151: not UTF-8 text")


@needs_memrel
def test_a_row_spanning_lines_is_named_by_its_first(tmp_path):
    """c7-rmm-multiline-row-wrong-line (arguable): a row whose quoted Time holds a line end,
    lines 2 and 3, was said to be at line 3."""
    (tmp_path / "r.csv").write_text('Thread,Time,Action,Pointer,Size,Stream\n'
                                    '3689,"08:09:22.861542\n",allocate,0x7f19b8000000,33554432,0x1\n')
    r = subprocess.run([MEMREL, "trace", "import", "r.csv", "-o", "t.memtrace"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=120)
    one_line(r, 2, "r.csv: line 2: Time")


@needs_memrel
def test_a_percentage_with_a_leading_point_is_taken(tmp_path):
    """c4-byte-tolerance-leading-point-percent (arguable): `--byte-tolerance .5%` was "not a
    percentage from 0% to 99%", where `.5GiB` is a size and `.1` a --latency-min-change."""
    r = subprocess.run([MEMREL, "-q", "compare", HOST_RUN, HOST_RUN, "--byte-tolerance", ".5%"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


@needs_memrel
@pytest.mark.parametrize("kib", [17, 18, 19])
def test_a_tiny_stack_limit_is_said_not_a_segfault(tmp_path, kib):
    """c8-ulimit-s-tiny-segfault-no-line (arguable): under `ulimit -s` of 16 to 19 KiB memrel
    died of SIGSEGV, no line, one start in eight, in the dynamic linker's resolver as it bound its
    first call. Below that the dynamic linker itself dies as it loads libc, before memrel's first
    instruction (python3 too); how far below depends on the size of the environment, which lies
    on the stack too: a small one here."""
    def tiny_stack():
        resource.setrlimit(resource.RLIMIT_STACK, (kib << 10, resource.RLIM_INFINITY))

    for _ in range(30):
        r = subprocess.run([MEMREL, "list"], capture_output=True, text=True, cwd=tmp_path,
                           timeout=60, preexec_fn=tiny_stack, env={"PATH": "/usr/bin:/bin"})
        one_line(r, 4, f"the stack limit is {kib} KiB (ulimit -s)")


@needs_memrel
@pytest.mark.parametrize("option, path", [("--summary", "ab/rounds/reference-null-1.log/x.md"),
                                          ("--json", "ab/reference/bench-null.json/v.json")])
def test_an_ab_output_under_a_file_ab_writes_is_refused_before_its_rounds(tmp_path, option, path):
    """c2-ab-output-under-own-round-file: ab ran every round, then could not make the output's
    folder where its own round log (or merged file) was, and the rounds went with the refusal."""
    r = subprocess.run([MEMREL, "ab", "-b", "null", "--quick", "--rounds", "5", "--looks", "1",
                        "--filter", "^pair/", "--min-time", "0.001", "--out", "ab", option, path],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    one_line(r, 2, f"{option} {path}: is in ab/")
    assert os.listdir(tmp_path) == []


@needs_memrel
def test_a_second_ab_into_the_out_of_one_still_going_is_refused(tmp_path):
    """c2-two-ab-one-out (arguable): two ab at once on one --out wrote over each other's rounds,
    and one's verdict was of the other's candidate."""
    first = subprocess.Popen([MEMREL, "ab", "-b", "null", "--quick", "--rounds", "1000",
                              "--looks", "1", "--filter", "^pair/", "--min-time", "0.001",
                              "--out", "ab"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not os.listdir(tmp_path / "ab" / "rounds") if (tmp_path / "ab" / "rounds").is_dir() \
                else True:
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        r = subprocess.run([MEMREL, "ab", "-b", "null", "--quick", "--rounds", "5", "--looks", "1",
                            "--filter", "^pair/", "--min-time", "0.001", "--out", "ab"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=300)
        one_line(r, 2, "--out ab: in use by an ab that is still going")
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(timeout=120)


@needs_memrel
@pytest.mark.parametrize("args", [["report", "x.json", "--out", "rep", "--jobs", b"\xff"],
                                  ["trace", "import", "x.csv", "-o", "x.memtrace", b"\xfe"]])
def test_a_python_usage_error_says_a_byte_as_every_memrel_line_does(tmp_path, args):
    """c9-python-usage-error-surrogate-escape (arguable): a byte of an argument that is not UTF-8
    was '\\udcff' in the Python parts' usage errors, and \\xff everywhere else."""
    r = subprocess.run([MEMREL, *args], capture_output=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 2, r.stderr
    stderr = r.stderr.decode()
    assert "udc" not in stderr and ("\\xff" in stderr or "\\xfe" in stderr), stderr
