"""The memrel.trace/1 file (docs/traces.md, "Trace format"):

    offset 0   8 bytes   magic "MEMTRACE"
    offset 8   u32 LE    H: bytes of the JSON header, spaces included (16 + H is a multiple of 8)
    offset 12  u32 LE    bytes per record: 16
    offset 16  H bytes   the header, UTF-8 JSON, padded with spaces
    then       16 bytes per event, counts.events of them, and nothing after:
               op u8 (1 alloc, 2 free), 3 zero bytes, block id u32 LE, size u64 LE

Written atomically (a temporary file in the same folder, renamed over the target), so a failed
import leaves what was there before.
"""

import json
import os
import struct
import tempfile

import memrel_outputs

from . import MAGIC, SCHEMA
from .builder import RECORD_BYTES

PREFIX = struct.Struct("<8sII")
# What the loader accepts (harness/workload/trace_file.{hpp,cpp}): a file the importer writes is
# always one `memrel run` reads, or it is not written.
MAX_HEADER_BYTES = 16 << 20     # kMaxHeaderBytes
MAX_FILE_BYTES = 2 << 30        # kMaxTraceFileBytes


class TooLargeForTheLoader(ValueError):
    pass


def write(path, header, records):
    body = json.dumps(header, separators=(",", ":")).encode("utf-8")
    body += b" " * (-(PREFIX.size + len(body)) % 8)  # records start 8-aligned
    if len(body) > MAX_HEADER_BYTES:
        raise TooLargeForTheLoader(
            f"its header would be {len(body)} bytes, more than the {MAX_HEADER_BYTES >> 20} MiB "
            f"the loader reads ({len(header.get('provenance', {}).get('streams') or [])} streams, "
            f"{len(header.get('marks') or [])} marks)")
    if PREFIX.size + len(body) + len(records) > MAX_FILE_BYTES:
        raise TooLargeForTheLoader(
            f"it would be {PREFIX.size + len(body) + len(records)} bytes, more than the "
            f"{MAX_FILE_BYTES >> 30} GiB the loader reads")
    folder = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".memtrace-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(PREFIX.pack(MAGIC, len(body), RECORD_BYTES))
            f.write(body)
            f.write(records)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)  # mkstemp makes the file private; a trace is as shareable as any output
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        memrel_outputs.check_file(path)  # again, just before the rename: never over a link
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def read(path):
    """(header dict, [(op, block, size), ...]); ValueError naming what is wrong. For tests and
    `show`: the replay's own reader is harness/workload/trace_file.cpp."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < PREFIX.size:
        raise ValueError(f"truncated: {len(data)} bytes")
    magic, header_bytes, record_bytes = PREFIX.unpack_from(data)
    if magic != MAGIC or record_bytes != RECORD_BYTES:
        raise ValueError(f"not a {SCHEMA} file")
    header = json.loads(data[PREFIX.size:PREFIX.size + header_bytes])
    if header.get("schema") != SCHEMA:
        raise ValueError(f"schema {header.get('schema')!r} is not {SCHEMA!r}")
    start = PREFIX.size + header_bytes
    expected = start + RECORD_BYTES * header["counts"]["events"]
    if len(data) != expected:
        raise ValueError(f"{len(data)} bytes, expected {expected}")
    return header, [tuple(r) for r in struct.iter_unpack("<B3xIQ", data[start:])]
