"""Reading a pickle without running anything it says, in bounded memory.

A PyTorch snapshot is plain data (dicts, lists, strings, numbers). Unpickling can call any
importable callable (GLOBAL/STACK_GLOBAL name it, REDUCE calls it), so `find_class`, the one door
through which a pickle reaches a callable or a class, refuses every name: a file that needs one is
not a snapshot, and is rejected before anything it names is imported or called. Persistent ids
have no handler and are refused by the unpickler itself.

Memory: a few bytes of pickle can ask for gigabytes (a memo index of 2^31 makes the unpickler
allocate a table of 2^31 entries). The load runs under an address-space limit of
MEMORY_PER_BYTE times the file's size (at least MIN_MEMORY_BYTES) above what the process
already maps; past it the pickle is refused. Where the user's own limit (`ulimit -v`) is lower,
theirs governs, and running out close to it is their limit's doing (exit 4, said as such), not
the file's; a single request far past what is left is still the file's. Work: the load is one pass over the bytes; what
the object graph shares (a list referenced twice) is walked once per object, never expanded
(torch_snapshot bounds its recursive walks). One thing the unpickler itself expands: the hash of
a dict key or a set member. CPython caches no tuple's hash, so hashing a tuple hashes all it
holds, a shared tuple once per reference: t = (t, t) sixty times is 380 bytes whose hash takes
2^60 steps, inside C code that no signal interrupts (the fourth adversarial pass, i26, i27). So
a pickle that builds a tuple, a set or a frozenset at all (pickle_scan, a scan of its opcodes
before the load; a real snapshot holds none) is loaded by the pure-Python unpickler, with the
opcodes that hash (SETITEM, SETITEMS, DICT, ADDITEMS, FROZENSET) counting what each hash walks (a
tuple's size with every shared part counted as often as it is referenced, each distinct tuple
sized once; an integer's digits, as no int caches its hash either) and refusing the pickle past HASH_STEPS_PER_BYTE times its size (at least
MIN_HASH_STEPS); every other one by the C unpickler, whose hashes are then linear in the bytes.
The careful path also counts collisions: a key whose hash equals that of k keys already put in
the same dict or set is probed past all k, so it costs k steps (keys k * (2^61 - 1) all hash to
0, and so do NaNs before Python 3.10; the scan sends both here). Strings and bytes are left out
of that count: their hashes are salted per process, nobody can make them collide. A key put in
twice is counted twice (it is probed past the same keys again).
The pure-Python one is 4 to 7 times slower, the C one has no hook between building a key and
hashing it.
A tuple's hash also recurses, in C, once per level of nesting: a tuple nested a million deep (a
megabyte of TUPLE1) as a key crashed the interpreter (SIGSEGV, its stack exhausted: the
twenty-second adversarial pass, c7-pickle-deep-tuple-*). A key or member nested more than
MAX_HASHED_NESTING deep is refused before it is hashed (a snapshot's keys are strings).
"""

import contextlib
import io
import pickle
import resource
import struct

from memrel_outputs.address_space import user_limit_bytes  # the user's, as memrel hands it over

from . import pickle_scan
from .errors import AddressSpaceTooSmall, TraceInputError
from .source_file import open_source

# A snapshot's objects take 10 to 20 times its bytes (scripts/trace-perf: 61 MiB -> about 1 GiB).
MEMORY_PER_BYTE = 48
MIN_MEMORY_BYTES = 2 << 30
# A key or member costs 1 step, a tuple one per value it holds, expanded: a real snapshot's keys
# are strings (one each, at least a byte of pickle each), so 16 per byte is far above any.
HASH_STEPS_PER_BYTE = 16
MIN_HASH_STEPS = 10_000_000
# Under a user's limit below that bound, a MemoryError within this much of their limit is theirs:
# the largest single request of a real load (its bytes read whole, a list's or the memo's table
# of pointers) is a few times the file's size.
ONE_REQUEST_PER_BYTE = 32
MIN_ROOM_FOR_ONE_REQUEST = 64 << 20
# Scanned before the rest is read: a file whose first bytes are no pickle is refused at once.
HEAD_BYTES = 1 << 20
# Tuples within tuples a key or set member may hold: CPython hashes each level by a C call, and
# its default recursion limit is 1000.
MAX_HASHED_NESTING = 1000


class _Refused(Exception):
    def __init__(self, module, name):
        super().__init__(f"{module}.{name}")


class _TooMuchHashing(Exception):
    pass


class _NestedTooDeep(Exception):
    pass


def _int_hash_steps(value):
    """An int's hash walks its 30-bit digits, every time (no int caches its hash)."""
    return 1 + value.bit_length() // 30


def _hash_steps(value, sizes):
    """What hashing `value` walks: 1, or for a tuple 1 + each element's, expanded (a part
    referenced twice counts twice, as tuplehash walks it twice). `sizes` caches each distinct
    tuple's (by id; the tuple is kept alive beside its size and its nesting), so the count itself
    is linear in the distinct tuples. A frozenset caches its own hash: 1 + its length, once.
    _NestedTooDeep for a tuple nested more than MAX_HASHED_NESTING deep."""
    if type(value) is frozenset:
        return 1 + len(value)
    if type(value) is int:
        return _int_hash_steps(value)
    if type(value) is not tuple:
        return 1
    todo = [(value, False)]
    while todo:
        t, children_done = todo.pop()
        if id(t) in sizes:
            continue
        if not children_done:
            todo.append((t, True))
            todo.extend((e, False) for e in t if type(e) is tuple and id(e) not in sizes)
            continue
        total, nesting = 1, 1
        for e in t:
            if type(e) is tuple:
                total += sizes[id(e)][1]
                nesting = max(nesting, 1 + sizes[id(e)][2])
            else:
                total += _hash_steps(e, sizes)
        if nesting > MAX_HASHED_NESTING:
            raise _NestedTooDeep()
        sizes[id(t)] = (t, total, nesting)
    return sizes[id(value)][1]


class _FastPlainDataUnpickler(pickle.Unpickler):
    """The C unpickler, refusing every global: for a pickle without tuples, sets or frozensets."""

    def find_class(self, module, name):
        raise _Refused(module, name)


class _PlainDataUnpickler(pickle._Unpickler):
    """The pure-Python unpickler (its opcodes are methods we can wrap), refusing every global and
    counting the work of every hash it asks for (see the module's text)."""

    def __init__(self, f, max_hash_steps):
        super().__init__(f)
        self._max_hash_steps = max_hash_steps
        self._hash_steps_taken = 0
        self._tuple_sizes = {}
        # (id(container), hash) -> keys put there with that hash; each container kept alive
        # beside it, so its id is never another's.
        self._keys_per_hash = {}
        self._containers = {}

    def find_class(self, module, name):
        raise _Refused(module, name)

    def _count_hashes(self, values, container):
        """`values` are about to be hashed into `container` (an existing dict or set, or a new
        object standing for the one about to be built)."""
        self._containers[id(container)] = container
        for value in values:
            self._hash_steps_taken += _hash_steps(value, self._tuple_sizes)
            if self._hash_steps_taken > self._max_hash_steps:
                raise _TooMuchHashing()
            if type(value) not in (str, bytes):
                slot = (id(container), hash(value))  # bounded: its steps were counted above
                earlier = self._keys_per_hash.get(slot, 0)
                self._keys_per_hash[slot] = earlier + 1
                self._hash_steps_taken += earlier
        if self._hash_steps_taken > self._max_hash_steps:
            raise _TooMuchHashing()

    def load_setitem(self):
        self._count_hashes((self.stack[-2],), self.stack[-3])
        super().load_setitem()

    def load_setitems(self):
        # The stack above the mark: key, value, ...; the dict is the top of the one below.
        self._count_hashes(self.stack[0::2], self.metastack[-1][-1])
        super().load_setitems()

    def load_dict(self):
        self._count_hashes(self.stack[0::2], object())
        super().load_dict()

    def load_additems(self):
        self._count_hashes(self.stack, self.metastack[-1][-1])
        super().load_additems()

    def load_frozenset(self):
        self._count_hashes(self.stack, object())
        super().load_frozenset()

    # Protocol 0's numbers, as the scan checks them on the fast path: int(text, 0), which the
    # pure-Python unpickler calls, takes "0x309", "7_77" and "+777" too.
    def load_int(self):
        line = self.readline()
        pickle_scan.check_spelling(pickle_scan.INT, line)
        self.append(False if line == b"00\n" else True if line == b"01\n" else int(line))

    def load_long(self):
        line = self.readline()
        pickle_scan.check_spelling(pickle_scan.LONG, line)
        self.append(int(line[:-1].rstrip(b"L")))

    def load_float(self):
        line = self.readline()
        pickle_scan.check_spelling(pickle_scan.FLOAT, line)
        self.append(float(line[:-1]))

    dispatch = dict(pickle._Unpickler.dispatch)
    dispatch[pickle.INT[0]] = load_int
    dispatch[pickle.LONG[0]] = load_long
    dispatch[pickle.FLOAT[0]] = load_float
    dispatch[pickle.SETITEM[0]] = load_setitem
    dispatch[pickle.SETITEMS[0]] = load_setitems
    dispatch[pickle.DICT[0]] = load_dict
    dispatch[pickle.ADDITEMS[0]] = load_additems
    dispatch[pickle.FROZENSET[0]] = load_frozenset


def _mapped_bytes():
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return None


def _peak_mapped_bytes():
    """The most this process has mapped at once (VmPeak): a request the kernel refused is not in
    it, so after a MemoryError it says how close the process came to its limit."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


class _MemoryLimit:
    """RLIMIT_AS lowered to what the process maps now plus `headroom` for the block, then put
    back (an unprivileged process may raise its soft limit again, up to the hard one). Where the
    user's own limit is lower, theirs stays and `users_limit` says it."""

    def __init__(self, headroom):
        self.headroom, self.saved, self.users_limit = headroom, None, None

    def __enter__(self):
        mapped = _mapped_bytes()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = None if mapped is None else mapped + self.headroom
        if limit is not None and (hard == resource.RLIM_INFINITY or limit < hard) and \
                (soft == resource.RLIM_INFINITY or limit < soft):
            self.saved = (soft, hard)
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        else:
            finite = [x for x in (soft, hard) if x != resource.RLIM_INFINITY]
            self.users_limit = min(finite) if finite else None
        return self

    def ran_into_users_limit(self, size):
        """After a MemoryError: whether the user's lower limit, not the file, is the likely cause.
        The load came within a few of the file's sizes of it (a real snapshot's objects grow a
        little at a time, its largest single request is a list or a table of a few times its
        bytes); a hostile request for gigabytes at once fails far below it (a memo index of
        2^31, a bytes length past the file's end), and stays the file's fault."""
        if self.users_limit is None:
            return False
        peak = _peak_mapped_bytes()
        return peak is not None and \
            self.users_limit - peak < max(MIN_ROOM_FOR_ONE_REQUEST, ONE_REQUEST_PER_BYTE * size)

    def __exit__(self, *exc):
        if self.saved is not None:
            resource.setrlimit(resource.RLIMIT_AS, self.saved)
        return False


def _load_quietly(f, max_hash_steps):
    """The unpickler's load, with what CPython prints on its own while it is freed after a
    failure kept off stderr: a bytearray opcode that ran out of memory mid-read printed
    "SystemError: deallocated bytearray object has exported buffers" before memrel's one line
    (the second adversarial pass). The failure itself still raises here."""
    head = f.read(HEAD_BYTES)
    if pickle_scan.first_bytes_malformed(head):
        raise pickle.UnpicklingError("a byte in its first bytes is no pickle opcode")
    data = head + f.read()
    with contextlib.redirect_stderr(io.StringIO()):
        stream = io.BytesIO(data)
        if pickle_scan.hashes_something(data) is False:
            unpickler = _FastPlainDataUnpickler(stream)
        else:  # a tuple, a set or a frozenset, or a pickle the scan cannot follow
            unpickler = _PlainDataUnpickler(stream, max_hash_steps)
        try:
            loaded = unpickler.load()
        finally:
            del unpickler
        # Bytes after the pickle's end are none of a snapshot's (a file cut and pasted together,
        # or two dumps in one): refused, not ignored (the thirteenth adversarial pass,
        # c7-pkl-trailing).
        if stream.tell() != len(data):
            raise pickle.UnpicklingError(f"{len(data) - stream.tell()} bytes after the pickle's "
                                         "end (STOP)")
        return loaded


def load_plain(path):
    """The object a pickle file holds, built from plain data only, and the file's size in bytes;
    TraceInputError otherwise."""
    f, size = open_source(path)
    headroom = max(MIN_MEMORY_BYTES, MEMORY_PER_BYTE * size)
    limit = _MemoryLimit(headroom)
    try:
        with f, limit:
            return _load_quietly(f, max(MIN_HASH_STEPS, HASH_STEPS_PER_BYTE * size)), size
    except _Refused as e:
        raise TraceInputError(path, "", f"refused: the pickle references the global '{e}' "
                                        "(a snapshot is plain data; nothing was imported or run)") from None
    except _NestedTooDeep:
        raise TraceInputError(path, "", f"refused: a dict key or set member holds tuples nested more than "
                                        f"{MAX_HASHED_NESTING} deep (hashing one takes a C call per "
                                        "level): malformed or hostile") from None
    except _TooMuchHashing:
        raise TraceInputError(path, "", "refused: hashing its dict keys and set members takes more than "
                                        f"{max(MIN_HASH_STEPS, HASH_STEPS_PER_BYTE * size)} steps (a tuple "
                                        "shared by reference is hashed whole at every use; keys whose "
                                        "hashes collide are probed one after another): malformed or "
                                        "hostile") from None
    except MemoryError:
        if limit.ran_into_users_limit(size):
            # The user's `ulimit -v` is below memrel's bound: a valid 37 MB snapshot under
            # 293 MiB was "malformed or hostile" (the nineteenth adversarial pass,
            # c8-ulimit-v-pickle-blamed-on-file): the machine's limit, exit 4.
            raise AddressSpaceTooSmall(path, user_limit_bytes() or limit.users_limit, headroom) from None
        raise TraceInputError(path, "", f"refused: the pickle asks for more than {headroom >> 20} "
                                        f"MiB ({MEMORY_PER_BYTE} times its {size} bytes): "
                                        "malformed or hostile") from None
    except OSError as e:
        raise TraceInputError(path, "", f"cannot read ({e.strerror or e})") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError,
            AttributeError, RecursionError, UnicodeDecodeError, OverflowError, struct.error) as e:
        # EOFError: "Ran out of input"; UnpicklingError: "pickle data was truncated", bad opcodes.
        raise TraceInputError(path, "", f"truncated or malformed pickle ({type(e).__name__}: {e})") from None
