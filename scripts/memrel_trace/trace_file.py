"""The memrel.trace/1 file (docs/traces.md, "Trace format"):

    offset 0   8 bytes   magic "MEMTRACE"
    offset 8   u32 LE    H: bytes of the JSON header, spaces included (16 + H is a multiple of 8)
    offset 12  u32 LE    bytes per record: 16
    offset 16  H bytes   the header, UTF-8 JSON, padded with spaces
    then       16 bytes per event, counts.events of them, and nothing after:
               op u8 (1 alloc, 2 free), 3 zero bytes, block id u32 LE, size u64 LE

Written atomically (an unnamed O_TMPFILE file in the same folder, named once complete and
renamed over the target), so a failed import leaves what was there before, and a killed one
(SIGKILL included) leaves no temporary file.
"""

import json
import os
import struct
import tempfile

import memrel_outputs
import memrel_outputs.last_word
from memrel_outputs import unnamed_file

from . import MAGIC, MAX_HEADER_BYTES, SCHEMA
from .builder import RECORD_BYTES

PREFIX = struct.Struct("<8sII")
# What the loader accepts (harness/workload/trace_file.{hpp,cpp}): a file the importer writes is
# always one `memrel run` reads, or it is not written.
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
    with memrel_outputs.FoldersMade(folder):  # its missing folders, gone again if this fails
        _write_beside(path, folder, body, records)


def _write_beside(path, folder, body, records):
    fd, temporary = _unnamed_file(folder)
    if temporary is not None:  # mkstemp's: named from the start
        memrel_outputs.last_word.leaves(temporary)  # memrel removes it should this part be killed
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(PREFIX.pack(MAGIC, len(body), RECORD_BYTES))
            f.write(body)
            f.write(records)
            f.flush()
            os.fsync(f.fileno())
            umask = os.umask(0)  # a trace is as shareable as any output (mkstemp's is private)
            os.umask(umask)
            os.fchmod(f.fileno(), 0o666 & ~umask)
            if temporary is None:  # O_TMPFILE: the file gets a name only now, complete
                # The check again first: the name then lives for two system calls only (checked
                # after the link, it stood while the check ran: a SIGKILL there left it for good,
                # the forty-second adversarial pass, c9-trace-import-sigkill-tmp-left).
                memrel_outputs.check_file(path, adds_workloads=True)
                temporary = _name_beside(folder)
                memrel_outputs.last_word.leaves(temporary)  # before it has the name
                unnamed_file.link_unnamed(f.fileno(), temporary)
            else:  # again, just before the rename: never over a link
                memrel_outputs.check_file(path, adds_workloads=True)
        os.replace(temporary, path)
        temporary = None
        _sync_folder(folder)
    except BaseException:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
        raise


def _unnamed_file(folder):
    """(fd, None) for a file with no name in folder (memrel_outputs.unnamed_file), or (fd, name)
    of a mkstemp file where the file system has no O_TMPFILE."""
    fd = unnamed_file.open_unnamed(folder)
    if fd is not None:
        return fd, None
    fd, name = tempfile.mkstemp(dir=folder, prefix=".memtrace-", suffix=".tmp")
    return fd, name


def _name_beside(folder):
    return os.path.join(folder, f".memtrace-{os.getpid()}-{os.urandom(4).hex()}.tmp")


def _sync_folder(folder):
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

def read(path):
    """(header dict, [(op, block, size), ...]); ValueError naming what is wrong. For tests and
    `show`: the replay's own reader is harness/workload/trace_file.cpp."""
    # The input rules (docs/inputs.md): a regular file under the cap, checked before a byte is
    # read (a FIFO blocked `show`, /dev/zero read until memory ran out).
    from .source_file import open_source

    f, _ = open_source(path)
    with f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) < PREFIX.size:
        raise ValueError(f"truncated: {len(data)} bytes")
    magic, header_bytes, record_bytes = PREFIX.unpack_from(data)
    if magic != MAGIC or record_bytes != RECORD_BYTES:
        raise ValueError(f"not a {SCHEMA} file")
    if header_bytes > MAX_HEADER_BYTES:
        raise ValueError(f"a header of {header_bytes} bytes, more than {MAX_HEADER_BYTES >> 20} MiB")
    try:
        header = json.loads(data[PREFIX.size:PREFIX.size + header_bytes])
    except RecursionError:  # 100,000 levels: exit 4 (the fourth adversarial pass, i58)
        raise ValueError("its header is JSON nested too deep to read") from None
    # A malformed header is bad input (exit 2), not memrel's failure (it was exit 4).
    if not isinstance(header, dict) or header.get("schema") != SCHEMA:
        raise ValueError(f"its header is not a {SCHEMA} header")
    counts = header.get("counts")
    events = counts.get("events") if isinstance(counts, dict) else None
    if not isinstance(events, int) or isinstance(events, bool) or events < 0:
        raise ValueError("its header has no event count (counts.events)")
    start = PREFIX.size + header_bytes
    expected = start + RECORD_BYTES * events
    if len(data) != expected:
        raise ValueError(f"{len(data)} bytes, expected {expected}")
    return header, [tuple(r) for r in struct.iter_unpack("<B3xIQ", data[start:])]
