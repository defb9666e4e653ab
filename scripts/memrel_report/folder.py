"""The report folder on disk: written whole or not at all.

A report is rendered into DIR.tmp-PID beside DIR and renamed over DIR only once complete, so a
reader never sees half a report and a failure leaves the previous report as it was (the old
folder is removed only after the new one is in place). A DIR.tmp-PID whose process is gone
(killed outright) is removed by the next report of DIR. An existing DIR is replaced only if it
is empty or an earlier report (it holds MARKER): `--out ~` must not delete a home folder.
"""

import atexit
import contextlib
import errno
import gc
import os
import re
import shutil
import signal
import stat
import tempfile

import memrel_outputs
import memrel_outputs.last_word

from .downloads import DATA_DIR
from .input_rules import InputError

MARKER = ".memrel-report"
NAME_MAX = 255  # the longest name a report file may have (prepare.slug keeps them under it)
PID_MAX_LIMIT = 1 << 22  # the kernel's PID_MAX_LIMIT on 64-bit: no process id is larger
PARTIAL = ".memrel-report-partial"  # in DIR.tmp-PID from its first moment: a folder of ours
REPLACED = ".memrel-report-replaced"  # in DIR as it becomes DIR.old-PID: a folder being replaced


def _is_mark(path):
    """A mark is a regular file of that name, never what a link points to: a folder holding a
    symbolic link named so is not made ours by it."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _write_mark(path, text):
    """Writes the mark at path, a name in a folder of ours, never through what is there already:
    a FIFO named so hung the report for ever, a symbolic link had it written through to the
    file it named (the seventeenth adversarial pass, c2-report-replaced-mark-*). What was there
    is removed first; it was in a folder the report replaces whole."""
    if os.path.lexists(path):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    with open(fd, "w", encoding="utf-8") as f:
        f.write(text)


def _working_folder():
    try:
        return os.getcwd()
    except OSError:  # removed while we run: there is nothing of ours in it to lose
        return None


MARK_TEXT = "written by memrel report; the next report replaces this folder whole\n"


def _entries(folder):
    """Every file and folder below FOLDER, as paths relative to it, links not followed."""
    found = set()
    for top, folders, files in os.walk(folder):
        for name in folders + files:
            found.add(os.path.relpath(os.path.join(top, name), folder))
    return found


def _foreign(out_dir):
    """The first entry of an earlier report's folder that the report did not write (its mark
    lists what it wrote), or None: a run's results and journal, a history database put in a
    report folder were removed with it when the next report replaced it (the fiftieth
    adversarial pass, c5-report-out-deletes-run-journal). A mark without the list (an older
    memrel's) vouches for the whole folder, as it did."""
    try:
        with open(os.path.join(out_dir, MARKER), encoding="utf-8", errors="surrogateescape") as f:
            listed = f.read().split("\n")
    except OSError:
        return None
    written = {line for line in listed[1:] if line}
    if not written:
        return None
    for path in sorted(_entries(out_dir) - written - {MARKER, REPLACED}):
        return path
    return None


def check(out_dir, inputs=()):
    """Raises InputError unless out_dir can be (re)placed by a report: the output rule
    (memrel_outputs: a real folder, none of inputs anywhere below it), then the marker."""
    try:
        memrel_outputs.check_folder(out_dir, inputs)
    except memrel_outputs.OutputRuleError as e:
        raise InputError(e.path, e.message) from None
    # Its files lie in DIR.tmp-PID and its data/ folder, a name of up to 255 bytes each: a --out
    # that leaves them no room under the system's limit on a path wrote half a report and then
    # failed, "internal error: OSError: [Errno 36]", its folders left (the seventy-eighth
    # adversarial pass, c2-report-out-path-near-max, c9-report-long-out-leaves-made-folders).
    # Refused before any work, as the C++ writers refuse a folder output whose files would not fit.
    spelt = len(memrel_outputs.absolute_as_given(out_dir))
    longest = spelt + memrel_outputs.OUTPUT_SUFFIX_BYTES + len(f"/{DATA_DIR}/") + NAME_MAX
    if longest >= memrel_outputs.PATH_MAX:
        most = memrel_outputs.PATH_MAX - (longest - spelt) - 1
        raise InputError(out_dir, f"the path is over {most} bytes long: the report's files in it "
                                  f"(names of up to {NAME_MAX} bytes, some in {DATA_DIR}/) would "
                                  f"pass the {memrel_outputs.PATH_MAX}-byte limit of a path; "
                                  "choose a shorter --out")
    # The report's temporary folders (matplotlib's) go to TMPDIR: one that is --out, or lies in
    # it, put them where the report then found a file "no report wrote", without naming TMPDIR
    # (the fifty-fourth adversarial pass, arguable).
    temporary = tempfile.gettempdir()
    if memrel_outputs.lies_in(temporary, out_dir):
        raise InputError("TMPDIR", f"{temporary} is --out {out_dir} or lies in it: the report "
                                   "keeps its temporary folders there and replaces its --out "
                                   "whole; choose another TMPDIR or --out")
    # The report replaces its folder whole: the working folder (`--out .`) or one holding it
    # cannot be renamed away from under memrel's own feet (`--out .` failed after all the work,
    # "Device or resource busy", exit 4: the twelfth adversarial pass, c2-report-out-dot-empty-cwd).
    here = _working_folder()
    if here is not None and memrel_outputs.lies_in(here, out_dir):
        raise InputError(out_dir, "is the working folder or holds it; the report replaces its "
                                  "folder whole: choose another --out")
    if os.path.lexists(out_dir):
        if not os.path.isdir(out_dir) or os.path.islink(out_dir):
            raise InputError(out_dir, "exists and is not a folder; refusing to replace it")
        if os.listdir(out_dir) and not _is_mark(os.path.join(out_dir, MARKER)):
            raise InputError(out_dir, f"exists and is not a memrel report folder (no {MARKER}); "
                                      "refusing to replace it: choose another --out")
        foreign = _foreign(out_dir)
        if foreign is not None:
            raise InputError(out_dir, f"holds {foreign}, which no report wrote; the report "
                                      "replaces its folder whole: move it away or choose another "
                                      "--out")
    # Its missing parents are made when it is written (write_atomically); the probe goes where
    # the first of them will be made.
    try:
        memrel_outputs.check_writable(out_dir)
    except memrel_outputs.OutputRuleError as e:  # said as the report says a failed write
        why = e.message[e.message.find("("):] if "(" in e.message else f"({e.message})"
        raise InputError("--out", f"{out_dir}: cannot be written {why}") from None


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's: alive
        return True
    # A zombie is dead, only not yet reaped: a report killed outright (its parent-death signal
    # is SIGKILL) is one until init reaps it, and its folder is stale already.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _holds_an_input(folder, inputs):
    """Whether any of inputs (the files this report reads) lies in folder: such a folder is the
    user's now, whatever its name and marks (a results file or history DB kept in a stale
    rep.tmp-PID or rep.old-PID was removed with it before it was read: the seventeenth adversarial
    pass, c1-report-removes-stale-*-holding-its-*)."""
    return any(os.path.lexists(given) and memrel_outputs.lies_in(given, folder) for given in inputs)


def remove_stale(out_dir, inputs=()):
    """Removes the DIR.tmp-PID folders beside out_dir that a report killed outright left (SIGKILL
    runs no cleanup), when no process PID lives any more and it holds PARTIAL (a user's folder of
    such a name, `rep.tmp-2024`, is never ours); DIR.old-PID (the previous report, kept during the
    swap, marked REPLACED as it moved aside) only once DIR itself is back in place. Never one that
    holds any of inputs."""
    parent = os.path.dirname(os.path.abspath(out_dir))
    base = re.escape(os.path.basename(os.path.normpath(out_dir)))
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        m = re.fullmatch(base + r"\.(tmp|old)-([0-9]{1,10})", name)
        # A number no process id can be (Linux's pid_max is at most 2^22) names no report's
        # folder; os.kill of one past a C int raised OverflowError, exit 4 with nothing written
        # (the forty-second adversarial pass, c4-report-folder-tmp-huge-pid-overflow).
        if not m or int(m.group(2)) > PID_MAX_LIMIT or _alive(int(m.group(2))):
            continue
        if m.group(1) == "old" and not os.path.isdir(out_dir):
            continue
        path = os.path.join(parent, name)
        mark = PARTIAL if m.group(1) == "tmp" else REPLACED
        if os.path.isdir(path) and not os.path.islink(path) and \
                _is_mark(os.path.join(path, mark)) and not _holds_an_input(path, inputs):
            shutil.rmtree(path, ignore_errors=True)
        elif m.group(1) == "tmp":
            # Made, and its report killed before it marked it: empty, its process gone (the
            # fifty-seventh adversarial pass, c9-kill-before-mark-report-tmp-left). rmdir takes
            # only an empty folder, never a user's that holds anything.
            with contextlib.suppress(OSError):
                if not os.path.islink(path):
                    os.rmdir(path)


def write_atomically(out_dir, fill, inputs=()):
    """Calls fill(tmp_dir) on a fresh DIR.tmp-PID, marks it, then puts it in place of out_dir.
    Returns out_dir (normalised)."""
    check(out_dir, inputs)
    out_dir = os.path.normpath(out_dir)
    remove_stale(out_dir, inputs)
    tmp = f"{out_dir}.tmp-{os.getpid()}"
    old = f"{out_dir}.old-{os.getpid()}"
    if os.path.lexists(tmp):  # a folder of ours left by an earlier process of this pid, or not
        if not (os.path.isdir(tmp) and not os.path.islink(tmp) and
                _is_mark(os.path.join(tmp, PARTIAL))) or _holds_an_input(tmp, inputs):
            raise InputError(tmp, "is in the way of the report's temporary folder; move it")
        shutil.rmtree(tmp)
    if os.path.lexists(old):  # checked before the work, as tmp is: the swap needs the name
        if not (os.path.isdir(old) and not os.path.islink(old) and
                _is_mark(os.path.join(old, REPLACED))) or _holds_an_input(old, inputs):
            # A user's file or folder: renaming onto it failed after all the work, exit 4 "internal
            # error", and left the earlier report marked REPLACED (the fifteenth adversarial pass,
            # c9-report-old-pid-*).
            raise InputError(old, "is in the way of the earlier report while it is replaced; "
                                  "move it")
        shutil.rmtree(old)  # ours, from an earlier process of this pid
    # Removed by its absolute path: the working folder is the process's, and a thread importing
    # matplotlib (matplotlib_defaults) is in "/" for that moment; a report stopped then removed
    # nothing and said "nothing written" beside its half-drawn folder (the twenty-second
    # adversarial pass, c9-sig*-report-delay-sweep).
    tmp_where = os.path.abspath(tmp)
    with memrel_outputs.FoldersMade(os.path.dirname(tmp_where)):  # gone again if this fails
        _fill_and_swap(out_dir, tmp, old, tmp_where, fill)
    return out_dir


def _fill_and_swap(out_dir, tmp, old, tmp_where, fill):
    try:
        # Inside the try: a SIGTERM between the two left DIR.tmp-PID behind (CI, under load).
        os.makedirs(tmp)
        open(os.path.join(tmp, PARTIAL), "w").close()
        # Named to memrel once marked: a part killed from outside while memrel lives (a SIGSEGV
        # in a library) is cleaned up by memrel, not by the next report into DIR.
        memrel_outputs.last_word.leaves(tmp_where)
        fill(tmp)
        os.remove(os.path.join(tmp, PARTIAL))
        with open(os.path.join(tmp, MARKER), "w", encoding="utf-8",
                  errors="surrogateescape") as f:
            f.write(MARK_TEXT)
            # What the report wrote, one path a line: only those are replaced (see _foreign).
            f.writelines(path + "\n" for path in sorted(_entries(tmp)))
        _sync_tree(tmp)
        _swap(out_dir, tmp, old)
        _sync_folder(os.path.dirname(os.path.abspath(out_dir)))
    except BaseException:
        _remove_on_unwind(tmp_where)
        raise


# What stops a report: ignored from the swap on.
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _sync_tree(top):
    """Every file and folder of the new report on disk before it replaces the earlier one, as
    every other writer of memrel syncs a file before its rename: renamed in unsynced, a power cut
    could leave empty files where the earlier report was (the thirty-first adversarial pass,
    c5-report-replace-without-fsync)."""
    for folder, _, files in os.walk(top):
        for name in files:
            _sync(os.path.join(folder, name), os.O_NOFOLLOW)
        _sync_folder(folder)


def _sync_folder(folder):
    _sync(folder, os.O_DIRECTORY)


def _sync(path, flags):
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | flags)
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOTSUP):  # a file system that keeps no sync
            raise
    finally:
        os.close(fd)


def _swap(out_dir, tmp, old):
    """Puts tmp in place of out_dir, with a request to stop ignored from here on: the work is
    done, and an exit of 128 + signal said "stopped" of a report that had replaced the earlier
    one (the eighteenth adversarial pass, c9-sigINT-report-after-swap-window). A swap that fails
    takes the handlers back and says its failure (the earlier report stays). Ignored, not
    blocked: a signal blocked in the main thread may still reach another thread."""
    saved = {number: signal.signal(number, signal.SIG_IGN) for number in _STOP_SIGNALS}
    try:
        _move_into_place(out_dir, tmp, old)
    except BaseException:
        for number, handler in saved.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
        raise


def _move_into_place(out_dir, tmp, old):
    # Checked again now, not only before the work: a link or a user's folder put at --out while
    # the report was drawn was replaced (the mark written through the link into its target)
    # (the nineteenth adversarial pass, c2-report-out-*-appears-midway).
    if os.path.islink(out_dir) or (os.path.lexists(out_dir) and not os.path.isdir(out_dir)):
        raise InputError(out_dir, "appeared while the report was made and is not a folder; "
                                  "refusing to replace it (nothing written)")
    if os.path.isdir(out_dir) and os.listdir(out_dir) and \
            not _is_mark(os.path.join(out_dir, MARKER)):
        raise InputError(out_dir, f"appeared while the report was made and is not a memrel report "
                                  f"folder (no {MARKER}); refusing to replace it (nothing written)")
    if os.path.isdir(out_dir) and _foreign(out_dir) is not None:
        raise InputError(out_dir, f"came to hold {_foreign(out_dir)} while the report was made, "
                                  "which no report wrote; refusing to replace it (nothing written)")
    if os.path.isdir(out_dir):
        # Said inside the folder before it moves aside: a DIR.old-PID without it is the
        # user's (`mv rep rep.old-2024` kept yesterday's report and its notes, and the next
        # report removed it as stale: the twelfth adversarial pass,
        # c1-report-deletes-users-kept-old-report).
        _write_mark(os.path.join(out_dir, REPLACED),
                    "memrel report is replacing this folder; a stale copy is removed\n")
        try:
            os.rename(out_dir, old)
        except BaseException:  # the mark goes with the failure: the folder stays the report
            with contextlib.suppress(OSError):
                os.remove(os.path.join(out_dir, REPLACED))
            raise
        try:
            os.rename(tmp, out_dir)
        except BaseException:
            os.rename(old, out_dir)
            with contextlib.suppress(OSError):
                os.remove(os.path.join(out_dir, REPLACED))
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(tmp, out_dir)


def _remove_on_unwind(tmp):
    """Removes the temporary folder of a report that failed or was stopped. A failure for want of
    file descriptors (`ulimit -n`: the fourth pass left rep.tmp-PID/) leaves none to remove it
    with while the failing frames still hold theirs: then once they are freed, and at the latest
    as the interpreter exits."""
    shutil.rmtree(tmp, ignore_errors=True)
    if os.path.lexists(tmp):
        gc.collect()
        shutil.rmtree(tmp, ignore_errors=True)
    if os.path.lexists(tmp):
        atexit.register(shutil.rmtree, tmp, True)
