"""The workloads folder a trace is imported into: the names of the workloads already there.

`trace import -o` is the one writer meant to add a file to the folder every `memrel run` without
-w reads whole (memrel_outputs, _refuse_in_read_folders). A trace named as a workload there (or
with a report page that differs from one's only by letters' case) made every such run refuse the
folder, naming both files, after the import had said ok (the sixty-fifth adversarial pass,
c6-trace-import-name-twin-in-workloads-dir). The run's rule (cli/duplicate_names.cpp) is asked
here, before the source is read.

A workload's name is read as the run reads it (harness/workload/workload_files.cpp, own_name): a
workload file's "name", a trace header's "name", else the file's name without its extension. A
file the run would refuse is named by its file name as there: the run refuses the folder anyway.
"""

import json
import os
import stat
import struct

from memrel_report.prepare import slug  # the report's page name (harness/results/report_page_name)

from . import MAGIC, MAX_HEADER_BYTES

MAX_WORKLOAD_FILE_BYTES = 4 << 20  # harness/workload/workload.hpp, kMaxWorkloadFileBytes
_PREFIX = struct.Struct("<8sII")


def _open_regular(path):
    """The file for reading where it is a regular file that opens, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return os.fdopen(fd, "rb")
    except OSError:
        pass
    os.close(fd)
    return None


def _body(path):
    """A workload file's bytes, a trace's header's; None where the run could not read them."""
    f = _open_regular(path)
    if f is None:
        return None
    with f:
        try:
            if not path.endswith(".memtrace"):
                data = f.read(MAX_WORKLOAD_FILE_BYTES + 1)
                return data if len(data) <= MAX_WORKLOAD_FILE_BYTES else None
            prefix = f.read(_PREFIX.size)
            if len(prefix) < _PREFIX.size:
                return None
            magic, header_bytes, _ = _PREFIX.unpack(prefix)
            if magic != MAGIC or header_bytes > MAX_HEADER_BYTES:
                return None
            return f.read(header_bytes)
        except OSError:
            return None


def _own_name(path):
    body = _body(path)
    if body is not None:
        try:
            document = json.loads(body.decode("utf-8"))
        except (ValueError, RecursionError):
            document = None
        if isinstance(document, dict) and isinstance(document.get("name"), str):
            return document["name"]
    return os.path.splitext(os.path.basename(path))[0]


def _workload_files(folder):
    """The folder's *.json and *.memtrace but folders, as the run lists them (all_workload_files)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []  # the run says why it cannot read the folder
    files = []
    for entry in entries:
        try:
            if entry.is_dir():
                continue
        except OSError:
            pass
        if os.path.splitext(entry.name)[1] in (".json", ".memtrace"):
            files.append(entry.path)
    return files


def workload_taking(name, out, folder):
    """(file, its workload name) of the first workload in `folder`, other than `out` (the file the
    import replaces, by identity), whose name is `name` or has a page differing from its page by
    case alone; None when there is none."""
    try:
        replaced = os.stat(out)
        replaced = (replaced.st_dev, replaced.st_ino)
    except OSError:
        replaced = None
    page = slug(name).lower()
    for path in _workload_files(folder):
        try:
            here = os.stat(path)
            if (here.st_dev, here.st_ino) == replaced:
                continue
        except OSError:
            pass
        other = _own_name(path)
        if other == name or slug(other).lower() == page:
            return path, other
    return None
