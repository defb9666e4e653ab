"""Does a pickle build a tuple, a set or a frozenset? A scan of its opcodes, before any load.

The C unpickler hashes every dict key and set member as it loads, and CPython caches no tuple's
hash: a tuple shared 2^60 times as a key is hashed for ever inside C code (the fourth
adversarial pass, i26, i27). Without a tuple, a set or a frozenset in the pickle, every hash is
linear in its bytes (a str, bytes or int), so the fast C unpickler is safe; with one, safe_pickle
loads with the pure-Python unpickler, which counts each hash's work. Real snapshots hold none
(dicts, lists, strings, numbers), so they take the fast path.

The scan walks opcode by opcode with each opcode's argument size from pickletools: the plain
opcodes (and the 1-byte-length ones up to 31 bytes, most of a snapshot's strings) in runs matched
by one regular expression, at C speed; any other opcode stepped over here. About half
the C load's time (a 18 MiB snapshot: 0.56 s, its load 1.23 s).

Hashes that collide on purpose take the careful path too. A dict's keys that share one hash are
probed one after another at every insert: quadratic. A string's hash is salted per process, but
an int's is its value modulo 2^61 - 1, so the keys k * (2^61 - 1) all hash to 0 (80,000 of them,
1.1 MB of pickle, took 42 s in C: the sixteenth adversarial pass,
c7-pk-dict-hash-collision-quadratic); before Python 3.10 every NaN hashes to 0 as well. So an
integer of 2^61 - 1 or more (a snapshot's are addresses, sizes and microseconds, below 2^53) and,
before 3.10, a NaN send the pickle to the unpickler that counts each key's collisions.
"""

import math
import pickletools
import re
import struct
import sys


# Each opcode's argument: n >= 0 bytes; -1, -4, -8: a length of that many bytes, then that many
# bytes; -10: up to a newline; -20: up to the second newline (GLOBAL, INST: module, then name).
def _argument_sizes():
    sizes = [None] * 256
    for op in pickletools.opcodes:
        a, code = op.arg, op.code.encode("latin-1")[0]
        if a is None:
            n = 0
        elif a.n >= 0:
            n = a.n
        elif a.n == pickletools.UP_TO_NEWLINE:
            n = -20 if op.name in ("GLOBAL", "INST") else -10
        elif a.n == pickletools.TAKEN_FROM_ARGUMENT1:
            n = -1
        elif a.n in (pickletools.TAKEN_FROM_ARGUMENT4, pickletools.TAKEN_FROM_ARGUMENT4U):
            n = -4
        elif a.n == pickletools.TAKEN_FROM_ARGUMENT8U:
            n = -8
        else:
            raise AssertionError(op.name)
        sizes[code] = n
    return sizes


SIZES = _argument_sizes()
# Tuples, sets and frozensets; and LONG4, an integer of up to 2^32 bytes: CPython caches no int's
# hash either, so one 1 MiB integer memoised and used as a key 800,000 times hashed 800 GB inside
# C code (the twelfth adversarial pass, c7-pickle-int-hash-bomb). A snapshot's integers fit LONG1
# (at most 255 bytes); the text opcodes INT and LONG are held to 4300 digits by int() itself.
HASHED = frozenset(b")t\x85\x86\x87\x8f\x90\x91\x8b")
STOP = ord(".")
# Integers whose hash others can share (hash(n) is n modulo this): LONG1 holds one in 8 bytes or
# more, the text opcodes INT and LONG in 19 digits or more; those are read here, not in runs.
HASH_MODULUS = (1 << 61) - 1
LONG1, INT, LONG = 0x8a, ord("I"), ord("L")
BINFLOAT, FLOAT = ord("G"), ord("F")
LONG1_SHORTEST_COLLIDING = 8
TEXT_DIGITS_OF_MODULUS = len(str(HASH_MODULUS))  # 19
# How protocol 0 writes numbers (pickle.py: INT and LONG as repr(int), FLOAT as repr(float),
# True and False as I01 and I00). The unpicklers read more: int(text, 0) and strtol take "7_77",
# "+777", " 777", "0x309", and "01411" as octal 777; a snapshot so spelled was imported, exit 0,
# where an RMM log's numbers are ASCII digits only (the seventeenth adversarial pass,
# c7-pickle-proto0-int-spellings).
SPELLINGS = {INT: re.compile(rb"(-?(0|[1-9][0-9]*)|00|01)\n"),
             LONG: re.compile(rb"-?(0|[1-9][0-9]*)L?\n"),
             FLOAT: re.compile(rb"-?(inf|nan|(0|[1-9][0-9]*)(\.[0-9]+)?(e[-+][0-9]+)?)\n")}


class BadNumber(ValueError):
    """A protocol-0 number spelled as no pickler writes it."""

    def __init__(self, text, position=None):
        where = "" if position is None else f" at byte {position}"
        super().__init__(f"the number {text!r}{where} is spelled as no pickler writes one "
                         "(ASCII digits, no sign but '-', no '_', no leading zero)")


def check_spelling(code, line, position=None):
    """Raises BadNumber unless `line` (the argument of the text opcode `code`, newline included)
    is spelled as a pickler writes it."""
    if code in SPELLINGS and not SPELLINGS[code].fullmatch(line):
        raise BadNumber(line[:-1][:40].decode("latin-1"), position)


# Before Python 3.10 every NaN hashes to 0 and equals nothing: each one is a new collision.
NANS_COLLIDE = sys.version_info < (3, 10)


def _run_of_plain_opcodes():
    alternatives = []
    for code, n in enumerate(SIZES):
        if n is None or code in HASHED or code == STOP or (code == BINFLOAT and NANS_COLLIDE):
            continue
        byte = re.escape(bytes([code]))
        if n >= 0:
            alternatives.append(byte + (b".{%d}" % n if n else b""))
        elif n == -1:  # short lengths only; a longer one is stepped over in Python
            shortest_stepped = LONG1_SHORTEST_COLLIDING if code == LONG1 else 32
            lengths = (re.escape(bytes([k])) + (b".{%d}" % k if k else b"")
                       for k in range(shortest_stepped))
            alternatives.append(byte + b"(?:" + b"|".join(lengths) + b")")
    # Runs of at most 4096: a greedy repeat keeps a little state per step (a possessive one, which
    # keeps none, needs Python 3.11); the loop below calls it again.
    return re.compile(b"(?:" + b"|".join(alternatives) + b"){0,4096}", re.DOTALL)


RUN = _run_of_plain_opcodes()


def hashes_something(data):
    """True when the pickle has an opcode that makes a tuple, a set, a frozenset or a long
    integer (what the unpickler may hash without bound), or a number whose hash others can share
    (an integer of 2^61 - 1 or more; a NaN before Python 3.10); False when it reaches STOP without
    one; None when it cannot tell (malformed): the careful path then."""
    found = _scan(data)
    return True if found == "hashes" else False if found == "plain" else None


def first_bytes_malformed(head):
    """Whether the first bytes of a pickle (`head`, a prefix of it) already hold an opcode that
    no pickle has: the file is refused without reading the rest (a 1.9 GB file whose third byte
    is no opcode was read whole first: the twelfth adversarial pass,
    c7-sparse-1900m-pickle-read-whole)."""
    return _scan(head) == "malformed"


def _scan(data):
    """"hashes", "plain" (STOP reached without a hashing opcode), "malformed" (a byte that is
    no opcode), or "cut" (the data ends first)."""
    pos, end = 0, len(data)
    while pos < end:
        pos = RUN.match(data, pos).end()
        if pos >= end:
            return "cut"
        c = data[pos]
        pos += 1
        if c in HASHED:
            return "hashes"
        if c == STOP:
            return "plain"
        n = SIZES[c]
        if n is None:
            return "malformed"
        if n >= 0:
            if c == BINFLOAT and _is_nan(data[pos:pos + n]):
                return "hashes"
            pos += n
        elif n < -9:
            start = pos
            for _ in range(n // -10):
                pos = data.find(b"\n", pos) + 1
                if pos == 0:
                    return "cut"
            check_spelling(c, data[start:pos], start - 1)
            if _text_number_collides(c, data[start:pos]):
                return "hashes"
        else:
            width = -n
            length = int.from_bytes(data[pos:pos + width], "little")
            if c == LONG1 and _long1_collides(data[pos + 1:pos + 1 + length]):
                return "hashes"
            pos += width + length
    return "cut"


def _long1_collides(little_endian):
    return abs(int.from_bytes(little_endian, "little", signed=True)) >= HASH_MODULUS


def _text_number_collides(code, line):
    """INT and LONG: an integer of 2^61 - 1 or more (read only when it has no more digits than
    that: int() of 4300 digits, many times over, is work of its own); FLOAT: a NaN, where NaNs
    collide. Malformed text is left to the unpickler, which refuses it."""
    if code in (INT, LONG):
        digits = line.strip().rstrip(b"L").lstrip(b"+-")
        if len(digits) != TEXT_DIGITS_OF_MODULUS:
            return len(digits) > TEXT_DIGITS_OF_MODULUS
        try:
            return int(digits) >= HASH_MODULUS
        except ValueError:
            return False
    if code == FLOAT and NANS_COLLIDE:
        try:
            return math.isnan(float(line))
        except ValueError:
            return False
    return False


def _is_nan(big_endian_double):
    if not NANS_COLLIDE or len(big_endian_double) != 8:
        return False
    return math.isnan(struct.unpack(">d", big_endian_double)[0])
