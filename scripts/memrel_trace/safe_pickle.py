"""Reading a pickle without running anything it says.

A PyTorch snapshot is plain data (dicts, lists, strings, numbers). Unpickling can call any
importable callable (GLOBAL/STACK_GLOBAL name it, REDUCE calls it), so `find_class`, the one door
through which a pickle reaches a callable or a class, refuses every name: a file that needs one is
not a snapshot, and is rejected before anything it names is imported or called. Persistent ids
have no handler and are refused by the unpickler itself.
"""

import pickle

from .errors import TraceInputError


class _Refused(Exception):
    def __init__(self, module, name):
        super().__init__(f"{module}.{name}")


class _PlainDataUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        raise _Refused(module, name)


def load_plain(path):
    """The object a pickle file holds, built from plain data only; TraceInputError otherwise."""
    try:
        with open(path, "rb") as f:
            return _PlainDataUnpickler(f).load()
    except _Refused as e:
        raise TraceInputError(path, "", f"refused: the pickle references the global '{e}' "
                                        "(a snapshot is plain data; nothing was imported or run)") from None
    except OSError as e:
        raise TraceInputError(path, "", f"cannot read ({e.strerror or e})") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError,
            AttributeError, MemoryError, RecursionError, UnicodeDecodeError) as e:
        # EOFError: "Ran out of input"; UnpicklingError: "pickle data was truncated", bad opcodes.
        raise TraceInputError(path, "", f"truncated or malformed pickle ({type(e).__name__}: {e})") from None
