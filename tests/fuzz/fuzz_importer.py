#!/usr/bin/env python3
"""A mutation fuzzer for the trace importer's two readers (scripts/memrel_trace: the PyTorch
snapshot pickle and the RMM log CSV), with the bounded-work rule as its oracle: every input ends,
within a time and a memory limit of its own, in exit 0 (imported) or exit 2 (one line); anything
else (exit 4, a traceback, a signal, running past the limits) is a finding, saved for replay.

    python3 tests/fuzz/fuzz_importer.py [--seconds 10] [--seed N] [--out DIR]
    python3 tests/fuzz/fuzz_importer.py --replay FILE...

Each input runs in a forked child under RLIMIT_AS (--memory-mib, default 1024) and RLIMIT_CPU
plus a wall-clock limit (--input-seconds, default 5). No atheris needed: seeds are built here
(snapshots of every entry kind, the committed RMM log's head) and mutated with byte flips,
insertions, deletions, splices and pickle opcodes that share and repeat (memo gets, DUP-like
nesting). tests/python/test_fuzz_importer.py runs it for a few seconds in the test command.
"""

import argparse
import io
import os
import pickle
import random
import resource
import signal
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
RMM_LOG = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")


def seeds():
    entries = [
        {"action": "segment_alloc", "addr": 0x7f0000000000, "size": 2 << 20, "stream": 0, "time_us": 1},
        {"action": "alloc", "addr": 0x7f0000000000, "size": 512, "stream": 0, "time_us": 2,
         "frames": [{"filename": "a.py", "line": 1, "name": "f"}]},
        {"action": "alloc", "addr": 0x7f0000000200, "size": 4096, "stream": 0, "time_us": 3},
        {"action": "free_requested", "addr": 0x7f0000000000, "size": 512, "stream": 0, "time_us": 4},
        {"action": "free_completed", "addr": 0x7f0000000000, "size": 512, "stream": 0, "time_us": 5},
        {"action": "oom", "addr": 0, "size": 1 << 30, "device_free": 1 << 20, "stream": 0, "time_us": 6},
        {"action": "snapshot", "addr": 0, "size": 0, "stream": 0, "time_us": 7},
        {"action": "free_requested", "addr": 0x7f0000000200, "size": 4096, "stream": 0, "time_us": 8},
    ]
    snapshot = {"segments": [{"device": 0, "address": 0x7f0000000000, "total_size": 2 << 20,
                              "blocks": [{"size": 4096, "state": "active_allocated",
                                          "requested_size": 4000}]}],
                "device_traces": [entries], "allocator_settings": {"expandable_segments": False}}
    out = [pickle.dumps(snapshot, protocol=p) for p in (2, 4, 5)]
    # The hostile ones of issue 23, kept as seeds: a huge memo index, shared references nested
    # 60 deep (2^60 values expanded), cyclic settings, a tuple address that expands when hashed.
    shared, cyclic, nested = [], [], ()
    for _ in range(60):
        shared, nested = [shared, shared], (nested, nested)
    cyclic.append(cyclic)
    out.append(b"\x80\x04Nr\xff\xff\xff\x7f.")
    for settings in ({"x": shared}, {"x": cyclic}):
        out.append(pickle.dumps(dict(snapshot, allocator_settings=settings), protocol=4))
    out.append(pickle.dumps(dict(snapshot, device_traces=[[dict(entries[1], addr=nested)]]),
                            protocol=4))
    out += [shared_tuple_hashed(60, "key"), shared_tuple_hashed(60, "set")]
    # The fourteenth and sixteenth passes': one segment listed 20,000 times, its 20,000 blocks one
    # dict (4*10^8 blocks walked before the walk was bounded), and an RMM log whose Size holds a
    # no-break space.
    block = {"size": 512, "state": "inactive", "address": 0}
    segment = {"device": 0, "total_size": 1024, "address": 0, "blocks": [block] * 20000}
    out.append(pickle.dumps({"segments": [segment] * 20000, "device_traces": [[]]}, protocol=4))
    # The sixteenth and seventeenth passes': dict keys and addresses whose hashes collide
    # (k * (2^61 - 1)), and protocol 0 with a number spelled as no pickler writes it.
    modulus = (1 << 61) - 1
    out.append(pickle.dumps(dict(snapshot, allocator_settings=dict.fromkeys(
        (k * modulus for k in range(1, 3001)), 0)), protocol=4))
    out.append(pickle.dumps(dict(snapshot, device_traces=[[
        dict(entries[1], addr=k * modulus) for k in range(1, 3001)]]), protocol=4))
    out.append(pickle.dumps(snapshot, protocol=0).replace(b"I512\n", b"I5_12\n", 1))
    with open(RMM_LOG, "rb") as f:
        head = f.readlines()[:40]
    out.append(b"".join(head))
    size_end = head[2].rfind(b",0x")  # the Size field ends before the Stream's ",0x"
    out.append(b"".join(head[:2]) + head[2][:size_end] + b"\xc2\xa0" + head[2][size_end:])
    # The thirty-second and thirty-third passes': a double free, a free of null, and one segment
    # entry referenced many times (memo GET).
    free = dict(entries[4])
    out.append(pickle.dumps(dict(snapshot, device_traces=[entries[:5] + [free]]), protocol=4))
    out.append(b"Thread,Time,Action,Pointer,Size,Stream\n"
               b"1,12:00:00.000001,free,(nil),4096,0x0\n")
    out.append(pickle.dumps(dict(snapshot, device_traces=[[entries[0]] * 5000]), protocol=4))
    # The thirty-eighth to fortieth passes': one live block listed twice and two segments that
    # overlap (a byte counted twice), a block of a state torch never writes, a free whose size is
    # not its block's, and an alloc of a negative size freed with a good one.
    seg = snapshot["segments"][0]
    placed = dict(seg["blocks"][0], address=seg["address"])
    out.append(pickle.dumps(dict(snapshot, segments=[dict(seg, blocks=[placed, placed])]),
                            protocol=4))
    out.append(pickle.dumps(dict(snapshot, segments=[seg, dict(seg, address=seg["address"] + 4096)]),
                            protocol=4))
    out.append(pickle.dumps(dict(snapshot, segments=[dict(seg, blocks=[
        dict(seg["blocks"][0], state="half_allocated")])]), protocol=4))
    out.append(pickle.dumps(dict(snapshot, device_traces=[entries[:3] + [
        dict(entries[3], size=4096), dict(entries[4], size=4096)]]), protocol=4))
    out.append(pickle.dumps(dict(snapshot, device_traces=[[dict(entries[1], size=-5),
                                                           dict(entries[4], size=4096)]]),
                            protocol=4))
    # The seventy-sixth and eightieth passes': settings keys that are one text (1 and "1"), one
    # string shared by many settings (its text counted each time), and an RMM allocate failure
    # that carries a pointer.
    out.append(pickle.dumps(dict(snapshot, allocator_settings={1: "a", "1": "b"}), protocol=4))
    text = "y" * 20000
    out.append(pickle.dumps(dict(snapshot, allocator_settings={f"k{i}": text for i in range(99)}),
                            protocol=4))
    out.append(b"Thread,Time,Action,Pointer,Size,Stream\n"
               b"1,12:00:00.000001,allocate failure,0x1000,4096,0x0\n")
    return out


def shared_tuple_hashed(depth, where):
    """A snapshot whose allocator_settings hashes a tuple shared 2^depth times, as a dict key
    (where="key") or a frozenset's member ("set"): the unpickler's own hash never ends (the
    fourth adversarial pass, i26, i27). Written opcode by opcode: building it here would hash it."""
    def text(s):
        return b"\x8c" + bytes([len(s)]) + s.encode()

    def get(i):
        return b"j" + i.to_bytes(4, "little")

    out = b"\x80\x04}(" + text("device_traces") + b"]]a" + text("segments") + b"]" + \
        text("allocator_settings") + b"}" + b")\x940"
    for k in range(1, depth + 1):
        out += get(k - 1) + get(k - 1) + b"\x86\x940"
    out += get(depth) + b"K\x01s" if where == "key" else text("k") + b"(" + get(depth) + b"\x91s"
    return out + b"u."


PICKLE_BITS = [b"h\x00", b"h\x01", b"j\x00\x00\x00\x00", b"q\x00", b"r\xff\xff\x00\x00", b"\x94",
               b"]", b"}", b")", b"\x85", b"\x86", b"\x87", b"t", b"(", b"e", b"u", b"s", b"a",
               b"0", b"2", b"N", b"\x88", b"\x89", b"K\x07", b"J\xff\xff\xff\xff", b"\x8a\x09" + b"\xff" * 9,
               b"\x8f", b"\x90", b"\x91", b"\x8c\x05alloc", b"X\x04\x00\x00\x00addr", b"G" + b"\x7f\xf8" + b"\x00" * 6]
CSV_BITS = [b",", b"\n", b"\r\n", b"\"", b"0x", b"-", b"+", b"_", "\u0661".encode(), b"(nil)",
            b"allocate", b"free", b"allocate failure", b"99999999999999999999", b"\xff", b"\xef\xbb\xbf"]


def mutate(rng, data, corpus):
    data = bytearray(data)
    bits = PICKLE_BITS if data[:1] == b"\x80" else CSV_BITS
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(6)
        at = rng.randrange(len(data) + 1)
        if op == 0 and data:
            data[min(at, len(data) - 1)] = rng.randrange(256)
        elif op == 1:
            data[at:at] = rng.choice(bits)
        elif op == 2 and data:
            del data[at:at + rng.randint(1, 16)]
        elif op == 3:
            other = rng.choice(corpus)
            start = rng.randrange(len(other) + 1)
            data[at:at] = other[start:start + rng.randint(1, 64)]
        elif op == 4 and data:
            chunk = bytes(data[at:at + rng.randint(1, 32)])
            data[at:at] = chunk * rng.randint(2, 20)
        else:
            data[at:at] = rng.choice(bits) * rng.randint(1, 8)
    return bytes(data[:1 << 20])


def _mapped_bytes():
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[0]) * resource.getpagesize()


def _importer():
    """Imported once, in the parent: each forked child starts with it loaded."""
    if SCRIPTS not in sys.path:
        sys.path.insert(0, SCRIPTS)
    from memrel_trace import __main__ as importer

    return importer


def run_one(data, folder, memory_mib, seconds):
    """(outcome, detail): outcome is 'ok' (exit 0 or 2) or what went wrong."""
    source = os.path.join(folder, "input.pickle" if data[:1] == b"\x80" else "input.csv")
    with open(source, "wb") as f:
        f.write(data)
    out = os.path.join(folder, "out.memtrace")
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(err_r)
            os.dup2(err_w, 2)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            limit = _mapped_bytes() + (memory_mib << 20)  # above what is mapped already
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
            code = _importer().main(["import", source, "-o", out])
        except BaseException as e:  # noqa: BLE001  (a finding, reported by the exit code)
            os.write(2, f"{type(e).__name__}: {e}".encode()[:2000])
            code = 99
        os._exit(code)
    os.close(err_w)
    deadline = time.monotonic() + seconds * 2
    status = None
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.002)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(err_r)
        return "hang", f"past {seconds * 2} s of wall time"
    with os.fdopen(err_r, "rb") as f:
        err = f.read().decode("utf-8", "replace")
    for leftover in os.listdir(folder):
        if leftover.startswith(".memtrace-"):
            os.unlink(os.path.join(folder, leftover))
            return "leftover", leftover
    if os.WIFSIGNALED(status):
        return "signal", f"killed by signal {os.WTERMSIG(status)}: {err[-300:]}"
    code = os.WEXITSTATUS(status)
    if code == 0:
        return "ok", ""
    if code == 2 and len(err.strip().splitlines()) == 1:
        return "ok", ""
    return f"exit {code}", err[-500:]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--memory-mib", type=int, default=1024)
    p.add_argument("--input-seconds", type=int, default=5)
    p.add_argument("--out", default=None, help="folder for findings (default: a temporary one)")
    p.add_argument("--replay", nargs="*", help="run these inputs once each instead")
    args = p.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    rng = random.Random(seed)
    findings = args.out or tempfile.mkdtemp(prefix="fuzz-importer-")
    os.makedirs(findings, exist_ok=True)
    corpus = seeds()
    _importer()
    runs, bad = 0, 0
    with tempfile.TemporaryDirectory() as folder:
        if args.replay is not None:
            inputs = []
            for path in args.replay:
                with open(path, "rb") as f:
                    inputs.append(f.read())
        else:
            inputs = None
            pending = list(corpus)  # every seed as it is first, then mutations
        end = time.monotonic() + args.seconds
        while (inputs is not None and runs < len(inputs)) or (inputs is None and time.monotonic() < end):
            if inputs is not None:
                data = inputs[runs]
            elif pending:
                data = pending.pop(0)
            else:
                data = mutate(rng, rng.choice(corpus), corpus)
            outcome, detail = run_one(data, folder, args.memory_mib, args.input_seconds)
            runs += 1
            if outcome != "ok":
                bad += 1
                path = os.path.join(findings, f"finding-{bad}.bin")
                with open(path, "wb") as f:
                    f.write(data)
                print(f"fuzz_importer: {outcome}: {path}: {' '.join(detail.split())[:300]}", file=sys.stderr)
            elif inputs is None and len(corpus) < 200 and rng.random() < 0.05:
                corpus.append(data)
    print(f"fuzz_importer: {runs} inputs, {bad} findings (seed {seed}; limits {args.memory_mib} MiB, "
          f"{args.input_seconds} s CPU each)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
