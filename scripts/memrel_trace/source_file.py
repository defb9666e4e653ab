"""The importer's own inputs (a snapshot, an RMM log) opened by memrel's input rules
(docs/inputs.md): a regular file only, opened without blocking and checked with fstat before a
byte is read (a FIFO would block the import forever, /dev/zero would read until memory ran out),
not empty, and under the cap, checked on the size before reading."""

import os
import stat

from memrel_outputs import kind_name, unopenable_kind  # platform/file_kind.hpp's twin, one wording

from .errors import TraceInputError

# The cap on a snapshot or a log: the trace's own cap (harness/workload/trace_file.hpp
# kMaxTraceFileBytes). The largest real source is tens of MiB.
MAX_SOURCE_BYTES = 2 << 30


def open_source(path):
    """(binary file object, size in bytes), or TraceInputError naming what is wrong."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if (kind := unopenable_kind(path)) is not None:  # a socket, say
            raise TraceInputError(path, "", f"{kind}, not a regular file") from None
        raise TraceInputError(path, "", f"cannot read ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise TraceInputError(path, "", f"{kind_name(st.st_mode)}, not a regular file")
        if st.st_size == 0:
            raise TraceInputError(path, "", "empty file")
        if st.st_size > MAX_SOURCE_BYTES:
            raise TraceInputError(path, "", f"{st.st_size} bytes, more than the "
                                            f"{MAX_SOURCE_BYTES >> 30} GiB a trace source may have")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), st.st_size
    except BaseException:
        os.close(fd)
        raise
