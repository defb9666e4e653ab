"""Whether a write to standard output failed, as scripts/memrel_entry.py records it (its _Stdout,
fd 1 remembering its first error): a part's handler of its own errors leaves such an OSError to
memrel_entry.py, which says it in memrel's one line ("cannot write to standard output"), where
the part said "internal error" and memrel_entry.py its line after it (two lines: the
thirty-first adversarial pass, c9-trace-show-events-full-stdout-two-lines)."""

import sys


def writing_failed():
    raw = getattr(getattr(sys.stdout, "buffer", None), "raw", None)
    return getattr(raw, "error", None) is not None
