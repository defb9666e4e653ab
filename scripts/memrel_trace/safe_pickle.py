"""Reading a pickle without running anything it says, in bounded memory.

A PyTorch snapshot is plain data (dicts, lists, strings, numbers). Unpickling can call any
importable callable (GLOBAL/STACK_GLOBAL name it, REDUCE calls it), so `find_class`, the one door
through which a pickle reaches a callable or a class, refuses every name: a file that needs one is
not a snapshot, and is rejected before anything it names is imported or called. Persistent ids
have no handler and are refused by the unpickler itself.

Memory: a few bytes of pickle can ask for gigabytes (a memo index of 2^31 makes the unpickler
allocate a table of 2^31 entries). The load runs under an address-space limit of
MEMORY_PER_BYTE times the file's size (at least MIN_MEMORY_BYTES) above what the process
already maps; past it the pickle is refused. Work: the load is one pass over the bytes; what
the object graph shares (a list referenced twice) is walked once per object, never expanded
(torch_snapshot bounds its recursive walks).
"""

import contextlib
import io
import pickle
import resource

from .errors import TraceInputError
from .source_file import open_source

# A snapshot's objects take 10 to 20 times its bytes (scripts/trace-perf: 61 MiB -> about 1 GiB).
MEMORY_PER_BYTE = 48
MIN_MEMORY_BYTES = 2 << 30


class _Refused(Exception):
    def __init__(self, module, name):
        super().__init__(f"{module}.{name}")


class _PlainDataUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        raise _Refused(module, name)


def _mapped_bytes():
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return None


class _MemoryLimit:
    """RLIMIT_AS lowered to what the process maps now plus `headroom` for the block, then put
    back (an unprivileged process may raise its soft limit again, up to the hard one)."""

    def __init__(self, headroom):
        self.headroom, self.saved = headroom, None

    def __enter__(self):
        mapped = _mapped_bytes()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = None if mapped is None else mapped + self.headroom
        if limit is not None and (hard == resource.RLIM_INFINITY or limit < hard) and \
                (soft == resource.RLIM_INFINITY or limit < soft):
            self.saved = (soft, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            resource.setrlimit(resource.RLIMIT_AS, self.saved)
        return False


def _load_quietly(f):
    """The unpickler's load, with what CPython prints on its own while it is freed after a
    failure kept off stderr: a bytearray opcode that ran out of memory mid-read printed
    "SystemError: deallocated bytearray object has exported buffers" before memrel's one line
    (the second adversarial pass). The failure itself still raises here."""
    with contextlib.redirect_stderr(io.StringIO()):
        unpickler = _PlainDataUnpickler(f)
        try:
            return unpickler.load()
        finally:
            del unpickler


def load_plain(path):
    """The object a pickle file holds, built from plain data only; TraceInputError otherwise."""
    f, size = open_source(path)
    headroom = max(MIN_MEMORY_BYTES, MEMORY_PER_BYTE * size)
    try:
        with f, _MemoryLimit(headroom):
            return _load_quietly(f)
    except _Refused as e:
        raise TraceInputError(path, "", f"refused: the pickle references the global '{e}' "
                                        "(a snapshot is plain data; nothing was imported or run)") from None
    except MemoryError:
        raise TraceInputError(path, "", f"refused: the pickle asks for more than {headroom >> 20} "
                                        f"MiB ({MEMORY_PER_BYTE} times its {size} bytes): "
                                        "malformed or hostile") from None
    except OSError as e:
        raise TraceInputError(path, "", f"cannot read ({e.strerror or e})") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError,
            AttributeError, RecursionError, UnicodeDecodeError) as e:
        # EOFError: "Ran out of input"; UnpicklingError: "pickle data was truncated", bad opcodes.
        raise TraceInputError(path, "", f"truncated or malformed pickle ({type(e).__name__}: {e})") from None
