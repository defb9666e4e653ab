"""How tests/data/host-trace-run.json was made (SYNTHETIC input, real replay): a PyTorch-snapshot-
shaped pickle of a training loop whose activations vary in size, with segment events for the
recorded reserved curve. Not a measurement of any program.

    python3 tests/python/trace_loop_sample.py train-loop.pickle 25
    memrel trace import train-loop.pickle -o train-loop.memtrace
    memrel run -b host-malloc,host-malloc-retain -w train-loop.memtrace,single-large -o host-trace-run.json

The single-large cells were then taken out of the file (they repeat tests/data/host-run.json): it holds the
trace cells only.
"""

import pickle
import random
import sys

MiB = 1 << 20


def snapshot(steps, seed=7):
    rng = random.Random(seed)
    clock = [0]

    def entry(action, addr, size):
        clock[0] += 1
        return {"action": action, "addr": addr, "size": size, "stream": 0,
                "time_us": 1_700_000_000_000_000 + clock[0], "frames": []}

    events, weights, addr = [], [], 0x7F0000000000
    for _ in range(8):  # weights: allocated once, live at the end
        events += [entry("segment_alloc", addr, 16 * MiB), entry("alloc", addr, 16 * MiB)]
        weights.append((addr, 16 * MiB))
        addr += 32 * MiB
    for step in range(steps):  # activations of 12 layers, sized by a varying sequence length
        seq, acts = rng.choice([128, 256, 512, 1024]), []
        for _ in range(12):
            size = seq * 4096 * rng.choice([1, 2, 3])
            events.append(entry("alloc", addr, size))
            acts.append((addr, size))
            addr += 64 * MiB
        if step % 5 == 0:
            events.append(entry("segment_alloc", addr, 96 * MiB))
        for a, s in reversed(acts):
            events += [entry("free_requested", a, s), entry("free_completed", a, s)]
    segments = [{"device": 0, "address": a, "total_size": s, "stream": 0, "segment_type": "large",
                 "allocated_size": s, "active_size": s, "requested_size": s,
                 "blocks": [{"address": a, "size": s, "requested_size": s, "state": "active_allocated"}]}
                for a, s in weights]
    return {"segments": segments, "device_traces": [events], "allocator_settings": {}}


if __name__ == "__main__":
    with open(sys.argv[1], "wb") as f:
        pickle.dump(snapshot(int(sys.argv[2])), f)
