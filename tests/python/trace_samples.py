"""Small synthetic inputs of the trace importer, with the events their import must give.

SNAPSHOT is what `torch.cuda.memory._dump_snapshot()` writes in torch 2.11, shrunk: plain dicts
with the real keys, two devices, a free_requested with no completion, a free of a block the
trace never allocated, a block live in `segments` that no entry names, segment events, an oom
and a snapshot mark. RMM_LOG is a `logging_resource_adaptor` log that passes midnight, frees a
pointer it never allocated, and has an allocate failure.
"""

import pickle

MiB = 1 << 20
T0 = 1_700_000_000_000_000  # time_us of the first entry
A, B, D, E = 0x7F0000000000, 0x7F0002000000, 0x7F0003000000, 0x7F0004000000
ON_1 = 0x7E0000000000  # device 1


def _entry(action, addr, size, t, stream=0):
    return {"action": action, "addr": addr, "size": size, "stream": stream, "time_us": T0 + t,
            "frames": [{"filename": "train.py", "line": 40 + t, "name": "step"}]}


def snapshot():
    dev0 = [
        _entry("segment_alloc", B, 2 * MiB, 0),
        _entry("alloc", B, MiB, 1),                      # live at the end
        _entry("alloc", B + MiB, 524288, 2),
        _entry("free_requested", B + MiB, 524288, 3),    # completed next: freed at [4]
        _entry("free_completed", B + MiB, 524288, 4),
        _entry("alloc", B + MiB, 4096, 5),
        _entry("free_requested", B + MiB, 4096, 6),      # never completed: freed at [6]
        _entry("free_completed", D, 8192, 7),            # never allocated: allocated at start
        {"action": "oom", "device_free": 1000, "size": 1 << 30, "stream": 0, "time_us": T0 + 8,
         "frames": []},
        {"action": "snapshot", "addr": 0, "size": 0, "stream": 0, "time_us": T0 + 9},
        _entry("segment_alloc", E, 20 * MiB, 10),
        _entry("alloc", E, 3_000_000, 11, stream=7),
        _entry("free_completed", E, 3_000_000, 12, stream=7),
        _entry("segment_free", E, 20 * MiB, 13),
    ]
    dev1 = [_entry("alloc", ON_1, 777, 0), _entry("free_completed", ON_1, 777, 1)]
    segment = {"segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False,
               "stream": 0, "frames": []}
    segments = [
        dict(segment, device=0, address=A, total_size=20 * MiB, allocated_size=2 * MiB,
             active_size=2 * MiB, requested_size=2_000_000, blocks=[
                 # live, and no entry names it: allocated at the start, freed at the end
                 {"address": A, "size": 2 * MiB, "requested_size": 2_000_000,
                  "state": "active_allocated", "frames": []},
                 {"address": A + 2 * MiB, "size": 18 * MiB, "requested_size": 0, "state": "inactive"}]),
        dict(segment, device=0, address=B, total_size=2 * MiB, allocated_size=MiB,
             active_size=MiB, requested_size=MiB, segment_type="small", blocks=[
                 {"address": B, "size": MiB, "requested_size": MiB, "state": "active_allocated"},
                 {"address": B + MiB, "size": MiB, "requested_size": 0, "state": "inactive"}]),
        dict(segment, device=1, address=ON_1, total_size=2 * MiB, blocks=[
            {"address": ON_1 + MiB, "size": 512, "requested_size": 500, "state": "active_allocated"}]),
    ]
    return {"segments": segments, "device_traces": [dev0, dev1],
            "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": None, "max_split_size": -1,
                                   "garbage_collection_threshold": 0.0, "expandable_segments": False},
            "external_annotations": []}


def write_snapshot(path, value=None):
    with open(path, "wb") as f:
        pickle.dump(snapshot() if value is None else value, f, protocol=4)
    return str(path)


# Block ids are in order of appearance: [1] 0, [2] 1, [5] 2, [7] 3 (at start), [11] 4, and the
# segment-only block 5 (at start). The prologue holds 3 and 5; 0 and 5 are freed at the end.
SNAPSHOT_EVENTS = [
    ("alloc", 3, 8192), ("alloc", 5, 2_000_000),
    ("alloc", 0, MiB), ("alloc", 1, 524288), ("free", 1, 524288),
    ("alloc", 2, 4096), ("free", 2, 4096), ("free", 3, 8192),
    ("alloc", 4, 3_000_000), ("free", 4, 3_000_000),
    ("free", 0, MiB), ("free", 5, 2_000_000),
]
SNAPSHOT_MARKS = [{"event": 8, "label": "oom", "time_us": 8, "bytes": 1 << 30, "device_free": 1000},
                  {"event": 8, "label": "snapshot", "time_us": 9}]
SNAPSHOT_PEAK = (2_000_000 + MiB + 3_000_000, 9)  # 3 (8192) was freed at event 7
# 22 MiB of segments at the end, +2 MiB over the trace: 20 MiB before it.
SNAPSHOT_RESERVED = [[0, 20 * MiB], [2, 22 * MiB], [8, 42 * MiB], [10, 22 * MiB], [12, 22 * MiB]]
DEVICE_1_EVENTS = [("alloc", 1, 500), ("alloc", 0, 777), ("free", 0, 777), ("free", 1, 500)]

RMM_LOG = """Thread,Time,Action,Pointer,Size,Stream
140210,23:59:59.999000,allocate,0x7f0000000000,1024,0x0
140210,23:59:59.999500,free,0x7f0000100000,4096,0x0
140211,00:00:00.000100,allocate,0x7f0000200000,2048,0x7f00aa
140211,00:00:00.000200,allocate failure,(nil),1073741824,0x7f00aa
140210,00:00:00.000300,free,0x7f0000000000,1024,0x0
140211,00:00:00.000050,allocate,0x7f0000300000,512,0x0
"""
# The free of 0x7f0000100000 makes block 1, allocated at the start; 2 and 3 are live at the end.
RMM_EVENTS = [("alloc", 1, 4096), ("alloc", 0, 1024), ("free", 1, 4096), ("alloc", 2, 2048),
              ("free", 0, 1024), ("alloc", 3, 512), ("free", 2, 2048), ("free", 3, 512)]
# After midnight: 1.2 ms after the first row; the last row is 50 µs older than the one before it
# (another thread), not a day later.
RMM_MARKS = [{"event": 4, "label": "allocate-failure", "time_us": 1200, "bytes": 1 << 30}]
RMM_SPAN_US = 1050
