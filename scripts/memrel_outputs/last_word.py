"""A Python part's last word to memrel: the exit code memrel's code ended with, written on the
descriptor memrel gave it (MEMREL_ENTRY_FD; scripts/memrel_entry.py hands it over here), so that
an interpreter that exits 0 whatever its Python did (a wrapper, `conda run`, a shim ending in
`exit 0`) is not taken for success (cli/python_module.cpp reads it). memrel_entry.py says it as
the part ends; a part that leaves by os._exit (the trace importer, to skip freeing a snapshot's
millions of objects) says it first."""

import os

fd = None  # set by memrel_entry.py
_said = False


def say(code):
    """Writes "memrel_entry.py ended N" once; nothing where memrel gave no descriptor."""
    global _said
    if fd is None or _said:
        return
    _said = True
    number = 0 if code is None else code if isinstance(code, int) else 1
    try:
        os.write(fd, b"memrel_entry.py ended %d\n" % number)
    except OSError:
        pass


def leaves(path):
    """Tells memrel that path, a temporary file or folder this part has just made, stays behind
    should the part die before it is renamed or removed (a SIGSEGV in a library, a SIGKILL to the
    part alone): memrel removes it then (cli/python_part_leftovers.cpp; a folder only while it
    holds the report's partial marker). The path's bytes in hex: a name may hold a newline."""
    if fd is None:
        return
    try:
        os.write(fd, b"memrel_entry.py leaves %s\n" % os.fsencode(os.path.abspath(path)).hex().encode())
    except OSError:
        pass
