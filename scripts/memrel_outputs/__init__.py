"""The one rule for every output path, as platform/atomic_file.hpp states it for the C++ tools
(docs/inputs.md, "Outputs"), for memrel's Python parts (the trace importer, the report, the
history's change points):

- what is at the path already is absent or a regular file (a folder, for a folder output): never
  a symbolic link, FIFO, device or socket, which a rename would replace or a write would go
  through;
- it is none of the command's inputs, told by identity (st_dev, st_ino), not by spelling; a
  folder output holds none of them anywhere below it (it is replaced whole).

Each check raises OutputRuleError with the one line to print ("PATH: what"); callers turn it into
their own input error (exit 2).
"""

import errno
import os
import re
import stat
import sys

from .folders_made import FoldersMade
from .not_a_folder import not_a_folder, where_folders_are_made
from .path_spelling import spelling_problem
from .replace_barrier import replace_barrier

__all__ = ["OutputRuleError", "check_file", "check_folder", "kind_name", "MACHINE_STATE_ERRNOS",
           "FoldersMade"]

# A write that fails for these is the machine's state (a full disk, a file size limit, a quota,
# an I/O error, no memory or descriptors left), not a bad output path: exit 4, as every memrel
# writer says it (docs/inputs.md, "Failures that are not the allocator's"); any other failed
# write (no such folder, not writable) is the path's, exit 2.
MACHINE_STATE_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO, errno.EMFILE,
                                  errno.ENFILE, errno.ENOMEM})


class OutputRuleError(ValueError):
    def __init__(self, path, message):
        super().__init__(f"{path}: {message}")
        self.path, self.message = path, message


def kind_name(mode):
    """What is at a path (lstat's mode), in words: the twin of platform/file_kind.hpp."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "a file" if stat.S_ISREG(mode) else "a file of an unknown kind"


def unopenable_kind(path):
    """What is at path in words where it is neither a regular file nor a folder, else None: the
    words for an input whose open failed (a socket takes no open, ENXIO), as the C++ readers say
    it (platform/input_rules.cpp, InputFd; the sixty-second adversarial pass,
    c2-socket-input-not-named)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else kind_name(mode)


def _same(a, b):
    return a.st_dev == b.st_dev and a.st_ino == b.st_ino


def _program():
    """What memrel runs, an input of every command (docs/inputs.md, "Outputs"): the folder of its
    Python parts (nothing below it is an output) and the interpreter running them. The fourth
    pass: `./memrel run -o ./memrel` replaced the running program."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # And memrel's own data, which memrel names (MEMREL_OWN_DATA_DIR, cli/python_module.cpp): no
    # writer puts an output there, as no C++ writer does.
    data = os.environ.get("MEMREL_OWN_DATA_DIR", "")
    if not os.path.isabs(data):
        # A part started without memrel (scripts/report) finds it as install_layout does: an
        # installed prefix's share/memrel beside its python/, a source tree's benchmarks/ beside
        # its scripts/. `scripts/report --out benchmarks/workloads/rep` wrote there, which
        # `memrel report` refuses (the thirty-seventh adversarial pass,
        # c1-scripts-report-into-own-data).
        parent = os.path.dirname(here)
        data = parent if os.path.basename(here) == "python" else os.path.join(parent, "benchmarks")
        if not os.path.isdir(data):
            data = ""
    # And the virtual environment's pyvenv.cfg that interpreter read as it started, beside its
    # bin/ or in it: `history changes --markdown` wrote over Otava's venv config, `trace import -o`
    # over MEMREL_PYTHON's (the fifty-eighth adversarial pass, c1-*-pyvenv-cfg).
    configs = []
    if sys.executable:
        bin_folder = os.path.dirname(sys.executable)
        configs = [p for p in (os.path.join(bin_folder, "pyvenv.cfg"),
                               os.path.join(os.path.dirname(bin_folder), "pyvenv.cfg"))
                   if os.path.isfile(p)]
    return [here] + ([data] if data else []) + ([sys.executable] if sys.executable else []) + \
        configs


_PROGRAM_FILES = None


def _regular_files_below(folder):
    """Every regular file below folder (not through a symbolic link), by identity
    {(st_dev, st_ino): path}."""
    files = {}
    for top, _dirs, names in os.walk(folder):
        for name in names:
            p = os.path.join(top, name)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                files[(st.st_dev, st.st_ino)] = p
    return files


# What a file of _program_files() is, in a refusal: the words of the C++ side's (atomic_file.cpp).
_OWN_FILE = "a file of memrel's own (its code, its data or a program it runs)"


def _program_files():
    """The files memrel runs, by identity {(st_dev, st_ino): name}, cached per process: the C++
    side's program_inputs() (its program, memrel_bench, the plugins, every file below its Python
    folder), passed as MEMREL_PROGRAM_FILES ("DEV:INO ..."; one definition, platform/atomic_file),
    and every file below _program()'s folders for a Python part started without memrel. The sixth
    pass: `trace import -o` onto a hard link of the memrel binary or a plugin replaced it, and a
    hard link of scripts/memrel_entry.py anywhere was taken as an output."""
    global _PROGRAM_FILES
    if _PROGRAM_FILES is None:
        files = {}
        for item in os.environ.get("MEMREL_PROGRAM_FILES", "").split():
            dev, _, ino = item.partition(":")
            if dev.isascii() and ino.isascii() and dev.isdigit() and ino.isdigit():
                files[(int(dev), int(ino))] = None  # named by identity alone
        for program in _program():
            try:
                st = os.stat(program)
            except OSError:
                continue
            files[(st.st_dev, st.st_ino)] = program
            files.update(_regular_files_below(program))
        _PROGRAM_FILES = files
    return _PROGRAM_FILES


def lies_in(path, folder):
    """Whether path (existing) is folder or lies below it, by identity of each of its folders."""
    try:
        top = os.stat(folder)
    except OSError:
        return False
    p = os.path.realpath(path)
    while True:
        try:
            if _same(os.stat(p), top):
                return True
        except OSError:
            pass
        parent = os.path.dirname(p)
        if parent == p:
            return False
        p = parent


# The longest suffix memrel adds to an output's name for a file beside it (platform/atomic_file.hpp,
# kOutputSuffixBytes): each name of an output's path leaves this much room under the limit.
OUTPUT_SUFFIX_BYTES = 16
# <limits.h>'s PATH_MAX on Linux, the longest path a system call takes, as the C++ check reads it.
PATH_MAX = 4096


def _check_name_lengths(path):
    """Each name of path fits the file system with room for a temporary's suffix: a 300-byte
    `report --out` name read every input and then failed with "File name too long", exit 4 (the
    eighth adversarial pass, c8-longname-report)."""
    existing = os.path.abspath(path)
    while not os.path.exists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    try:
        name_max = os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    # Only the output's own name takes a suffix; a folder on its way needs no room past the
    # file system's limit (the seventy-eighth adversarial pass, c8-existing-long-folder-output-
    # refused), as the C++ writers say it (check_output_name_lengths).
    parts = os.fsencode(path).rstrip(b"/").split(b"/")
    for part in parts:
        suffixed = part == parts[-1]
        if len(part) + (OUTPUT_SUFFIX_BYTES if suffixed else 0) > name_max:
            room = (f"{name_max - OUTPUT_SUFFIX_BYTES} at most ({name_max}, less "
                    f"{OUTPUT_SUFFIX_BYTES} for the suffix of a temporary beside it)"
                    if suffixed else f"{name_max} at most")
            raise OutputRuleError(path, f"the name '{os.fsdecode(part[:40])}...' is {len(part)} "
                                        f"bytes; a name here holds {room}")
    # Nor a path the system takes no more: `report --out` and `trace import -o` of a path past
    # 4096 bytes were "internal error: OSError: [Errno 36]", or left their temporary behind
    # (the seventy-eighth adversarial pass, c2-report-out-path-too-long-internal-error,
    # c9-trace-import-long-out-leaves-tmp-file), as the C++ writers refuse it.
    # Spelt absolute as given (`..` kept, as the system reads it and the C++ check measures it);
    # PATH_MAX counts the terminating NUL.
    if len(absolute_as_given(path)) + OUTPUT_SUFFIX_BYTES >= PATH_MAX:
        raise OutputRuleError(path, f"the path is over {PATH_MAX - OUTPUT_SUFFIX_BYTES - 1} bytes "
                                    "long")


def absolute_as_given(path):
    """PATH's bytes spelt absolute without collapsing `..` (os.path.abspath collapses it, and a
    long path of `x/../` then measured short)."""
    path = os.fsencode(path)
    return path if path.startswith(b"/") else os.getcwdb().rstrip(b"/") + b"/" + path


def _check_spelling(path):
    problem = spelling_problem(path)
    if problem:
        raise OutputRuleError(path, problem)


def _refuse_loaded_name_in_library_folder(path):
    """A new *.so or memrel_bench in the folder memrel loads its plugins and memrel_bench from
    (MEMREL_LIBRARY_DIR, as memrel's C++ writers refuse it): the next run loaded the output as one
    of its own (the twenty-ninth adversarial pass, c1-trace-import-into-memrel-lib-folder)."""
    name = os.path.basename(path)
    library = os.environ.get("MEMREL_LIBRARY_DIR", "")
    if not library or not (name == "memrel_bench" or (len(name) > 3 and name.endswith(".so"))):
        return
    try:
        parent, folder = os.stat(os.path.dirname(path) or "."), os.stat(library)
    except OSError:
        return
    if (parent.st_dev, parent.st_ino) == (folder.st_dev, folder.st_ino):
        raise OutputRuleError(path, f"is in {library}, where memrel loads its plugins and "
                                    "memrel_bench from, under a name it would load; write the "
                                    "output elsewhere")


# The files SQLite keeps beside a database, by name (they come and go: no identity to compare).
_SQLITE_SIDE_FILES = ("-journal", "-wal", "-shm")


def _refuse_sqlite_side_files(path, inputs):
    """An output named where SQLite keeps an input's side files (the history's journal): `history
    changes --markdown h.sqlite-journal` and `report --history h.sqlite --out h.sqlite-wal` wrote
    there, exit 0, and every later history command refused the database (the thirtieth adversarial
    pass, c1-changes-markdown-onto-db-*, c1-report-out-onto-history-journal)."""
    here = os.path.realpath(path)
    for given in inputs:
        real = os.path.realpath(given)
        if any(here == real + suffix for suffix in _SQLITE_SIDE_FILES):
            raise OutputRuleError(path, f"is where SQLite keeps the side file of the input {given} "
                                        "(its journal); write the output elsewhere")


def _refuse_in_program(path):
    _refuse_loaded_name_in_library_folder(path)
    for program in _program():
        if lies_in(path, program):
            raise OutputRuleError(path, f"is {program} or in it, memrel's own code or data; "
                                        "write the output elsewhere")


# What the folders memrel reads whole take (cli/read_folders.cpp, the C++ writers' twin): every
# run without -w (-b) reads the workloads folder's *.json and *.memtrace (the backends folder's
# *.json). memrel tells its Python parts which folders those are.
_READ_FOLDERS = (("MEMREL_WORKLOADS_DIR", (".json", ".memtrace"), "workload"),
                 ("MEMREL_BACKENDS_DIR", (".json",), "backend file"))


def _refuse_in_read_folders(path, adds_workloads):
    """An output their readers would take is refused, told by the identity of the folder that
    holds it. `adds_workloads`: the writer of traces (`trace import`), the one meant to add a
    *.memtrace there."""
    try:
        parent = os.stat(os.path.dirname(path) or ".")
    except OSError:
        return  # a folder made for it: none of those
    extension = os.path.splitext(path)[1]
    for variable, extensions, kind in _READ_FOLDERS:
        folder = os.environ.get(variable, "")
        if not folder or extension not in extensions:
            continue
        if adds_workloads and kind == "workload" and extension == ".memtrace":
            continue
        try:
            same = _same(os.stat(folder), parent)
        except OSError:
            continue
        if same:
            raise OutputRuleError(path, f"a {extension} file in {folder} is read as a {kind} by "
                                        "every memrel run; write it elsewhere")


def workloads_folder_holding(path):
    """The workloads folder (as memrel named it) when it is the folder holding path, told by
    identity; None otherwise (or where memrel named none)."""
    folder = os.environ.get(_READ_FOLDERS[0][0], "")
    try:
        if folder and _same(os.stat(folder), os.stat(os.path.dirname(path) or ".")):
            return folder
    except OSError:
        pass
    return None


def _refuse_journal_folder_on_the_way(path):
    """No folder made for an output is named as a run's journal (check_output_file: the
    forty-seventh adversarial pass, c2-markdown-folder-at-run-journal)."""
    folder = os.path.dirname(path)
    while folder and folder != os.path.dirname(folder) and not os.path.lexists(folder):
        if folder.endswith(".journal"):
            raise OutputRuleError(path, f"would make the folder {folder}, named as a run's "
                                        "journal (-o X keeps X.journal); name it otherwise")
        folder = os.path.dirname(folder)


def check_file(path, inputs=(), adds_workloads=False):
    """Raises OutputRuleError unless path is absent or a regular file that is none of inputs (nor
    a file of a folder memrel reads whole, see _refuse_in_read_folders)."""
    if not path:
        raise OutputRuleError(repr(path), "an empty path; name the file to write")
    # A trailing "/" names a folder, as the C++ writers say it (check_output_file): `trace import
    # -o t.memtrace/` read the whole source before the write failed (the forty-seventh
    # adversarial pass, c2-trace-import-out-trailing-slash, c2-changes-markdown-trailing-slash).
    if path.endswith("/"):
        raise OutputRuleError(path, "names a folder (it ends in /); a file is wanted")
    # So does one whose last name is "." or ".." (the fifty-fifth adversarial pass,
    # c2-run-out-dot-makes-folders-and-journal; trace import said "cannot write").
    last = os.path.basename(path)
    if last in (".", ".."):
        raise OutputRuleError(path, f"names a folder (its last name is {last}); a file is wanted")
    _check_spelling(path)
    _check_name_lengths(path)
    _refuse_journal_folder_on_the_way(path)
    # Whether or not a file is there yet: a new output in memrel's own Python folder went through
    # (`trace import -o scripts/json.py` then shadowed the standard `json`: the eleventh
    # adversarial pass, c1-mkcopy-*-new-*).
    _refuse_in_program(path)
    _refuse_sqlite_side_files(path, inputs)
    _refuse_in_read_folders(path, adds_workloads)
    try:
        out = os.lstat(path)
    except OSError:
        # A new file named as a run's journal (check_output_file, the forty-sixth adversarial
        # pass, c5-results-named-as-journal).
        if path.endswith(".journal"):
            raise OutputRuleError(path, "ends in .journal, the name a run gives its journal "
                                        "(-o X keeps X.journal); name the output otherwise")
        return _refuse_replace_barrier(path, itself=False)
    if not stat.S_ISREG(out.st_mode):
        raise OutputRuleError(path, f"is {kind_name(out.st_mode)}, not a regular file; refusing to "
                                    "write over it")
    _refuse_mount_point(path, "a file is written beside it and renamed over it")
    _refuse_replace_barrier(path, itself=True)
    # A run's journal holds the cells an interrupted run finished, as the C++ writers refuse it
    # (check_output_file): `trace import -o r.json.journal` replaced one, and a live run then
    # removed the trace as its journal (the twelfth adversarial pass, c5-output-onto-*-journal).
    if path.endswith(".journal"):
        raise OutputRuleError(path, "is a run's journal (the cells of an interrupted run); "
                                    "refusing to write over it")
    identity = (out.st_dev, out.st_ino)
    if identity in _program_files():
        program = _program_files()[identity]
        raise OutputRuleError(path, (f"is {program} (the same file), a file memrel runs"
                                     if program else "is a file memrel runs (its code, its data "
                                     "or a program it runs)") + "; write the output elsewhere")
    for given in inputs:
        try:
            st = os.stat(given)
        except (OSError, ValueError):
            continue
        if _same(st, out):
            raise OutputRuleError(path, f"is the input {given} (the same file); write the output "
                                        "elsewhere")


def _mount_points():
    """Every mount point of this process, as /proc/self/mountinfo writes them (its fifth field,
    with a space, tab, newline or backslash as an octal escape); none where it cannot be read."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
            fields = [line.split(" ") for line in f]
    except OSError:
        return []
    return [re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), f[4])
            for f in fields if len(f) > 4]


def _mount_point_at_or_below(path):
    """A mount point at path or anywhere below it, or None. A bind mount of a folder of the same
    file system has that file system's st_dev, so only the mount table tells it."""
    top = os.path.realpath(path)
    for point in _mount_points():
        if point == top or point.startswith(top.rstrip("/") + "/"):
            return point
    return None


def _refuse_mount_point(path, what):
    """The tenth adversarial pass, c2-report-replace-deletes-through-mount: `report --out rep`
    over an earlier report holding a bind mount removed the files of the mounted folder, which
    lie outside the report; an output that is a mount point itself cannot be renamed over (EBUSY)
    and failed with exit 4 after all the work."""
    point = _mount_point_at_or_below(path)
    if point is not None:
        where = "is a mount point" if point == os.path.realpath(path) else f"holds the mount point {point}"
        raise OutputRuleError(path, f"{where}; {what}: unmount it or write the output elsewhere")


def _refuse_replace_barrier(path, itself):
    """Every output is written beside its place and renamed into it: a folder (existing) that
    takes no rename, or the output itself (itself: once known to be what is replaced) that cannot
    be replaced, is refused before any work, as check_output_file does (platform/atomic_file)."""
    folder = os.path.dirname(path) or "."
    if os.path.isdir(folder):
        barrier = replace_barrier(folder)
        if barrier:
            raise OutputRuleError(path, f"its folder {folder} {barrier}: nothing can be renamed "
                                        "into it; write the output elsewhere")
    if itself:
        barrier = replace_barrier(path)
        if barrier:
            raise OutputRuleError(path, f"{barrier}: it cannot be written over; write the output "
                                        "elsewhere")


def _refuse_unremovable_below(folder):
    """A folder replaced whole is moved aside and removed: a file or folder below it that the
    file system keeps (chattr +i, +a) left the old one beside the new for good, exit 0, unsaid (the
    thirty-sixth adversarial pass, c9-report-old-folder-left-behind). Refused before any work."""
    for top, dirs, names in os.walk(folder):
        for name in dirs + names:
            p = os.path.join(top, name)
            if os.path.islink(p) or not (os.path.isfile(p) or os.path.isdir(p)):
                continue
            barrier = replace_barrier(p)
            if barrier:
                raise OutputRuleError(folder, f"holds {p}, which {barrier}: the folder is replaced "
                                              "whole and it could not be removed; write the output "
                                              "elsewhere")


def check_writable(path):
    """Raises OutputRuleError unless a file can be made in path's folder, probed by making one and
    removing it at once (a read-only file system says so only then): checked before any work, as
    the C++ tools' check_output_writable. A missing folder is made when the output is written
    (FoldersMade): the probe goes where the first of them will be made."""
    why = not_a_folder(where_folders_are_made(os.path.dirname(path)))
    if why:  # said as every writer says it (platform/not_a_folder.hpp)
        raise OutputRuleError(path, f"cannot create its folder ({why})")
    folder = where_folders_are_made(os.path.dirname(os.path.abspath(path)))
    # A folder that keeps what is made in it would keep the probe, and the folders made there
    # should the write fail (check_output_folder_writable's rule).
    barrier = replace_barrier(folder)
    if barrier:
        raise OutputRuleError(path, f"{folder} {barrier}: nothing made in it can be removed; "
                                    "write the output elsewhere")
    try:
        fd = os.open(os.path.join(folder, f".memrel-probe-{os.getpid()}"),
                     os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except OSError as e:
        raise OutputRuleError(path, f"cannot write in its folder ({e.strerror})") from None
    os.close(fd)
    try:
        os.unlink(os.path.join(folder, f".memrel-probe-{os.getpid()}"))
    except OSError as e:  # a folder that takes files and keeps them: no output's temporary goes
        raise OutputRuleError(path, f"cannot remove a file from its folder ({e.strerror})") from None


def check_folder(path, inputs=(), option="--out"):
    """Raises OutputRuleError unless path is absent or a real folder holding none of inputs.
    `option` names what wants a folder when path is a file."""
    if not path:
        raise OutputRuleError(repr(path), "an empty path; name the folder to write")
    _check_spelling(path)
    _check_name_lengths(path)
    _refuse_in_program(path)
    _refuse_sqlite_side_files(path, inputs)
    try:
        out = os.lstat(path)
    except OSError:
        return _refuse_replace_barrier(path, itself=False)
    if stat.S_ISREG(out.st_mode):  # the common slip: say what the option wants
        raise OutputRuleError(path, f"is a file; {option} wants a folder")
    if not stat.S_ISDIR(out.st_mode):
        raise OutputRuleError(path, f"is {kind_name(out.st_mode)}, not a folder; refusing to write "
                                    "over it")
    for given in list(inputs) + _program():
        try:
            p = os.path.realpath(given)
            os.stat(p)
        except (OSError, ValueError):
            continue
        while True:
            try:
                if _same(os.stat(p), out):
                    raise OutputRuleError(path, f"holds the input {given} and would be replaced; "
                                                "write the output elsewhere")
            except OSError:
                pass
            parent = os.path.dirname(p)
            if parent == p:
                break
            p = parent
    _refuse_mount_point(path, "the folder is replaced whole")
    _refuse_replace_barrier(path, itself=True)
    _refuse_unremovable_below(path)
    held = _input_below(path, inputs)
    if held:
        raise OutputRuleError(path, f"holds {held}; write the output elsewhere")


def _input_below(folder, inputs):
    """An existing regular file below folder (any depth, links not followed) that is one of inputs
    or a file memrel runs, by identity (a hard link), as "FILE (the input NAME) and would be
    replaced" or "FILE, a file of memrel's own ..."; "" if none. An
    input folder's inputs are the files directly in it. The sixth pass: `advise --out ex` with
    ex/x.bin a hard link of its trace was taken."""
    ids = {}
    for given in inputs:
        try:
            st = os.stat(given)
        except (OSError, ValueError):
            continue
        ids[(st.st_dev, st.st_ino)] = given
        if stat.S_ISDIR(st.st_mode):
            for name in os.listdir(given):
                try:
                    st = os.stat(os.path.join(given, name))
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    ids[(st.st_dev, st.st_ino)] = os.path.join(given, name)
    for identity, p in _regular_files_below(folder).items():
        if identity in _program_files():
            return f"{p}, {_OWN_FILE}, which no output may take the place of"
        if identity in ids:
            return f"{p} (the input {ids[identity]}) and would be replaced"
    return ""
