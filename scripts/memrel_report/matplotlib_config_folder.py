"""Where matplotlib keeps its config and font cache: a folder of the report's own in TMPDIR,
removed at exit, never the user's, whose font list is not read either (docs/inputs.md, "Sixth
pass", "Fifty-fourth pass", "Sixty-sixth pass")."""

import atexit
import contextlib
import os
import shutil
import stat
import tempfile
import time


_made = None  # the folder made by prepare(), once


_PREFIX = "memrel-matplotlib-"
# Written once the folder is locked: a folder holding it is one of ours, and memrel removes it
# when the part is killed (cli/python_part_leftovers.cpp takes a folder holding this marker).
_MARKER = ".memrel-report-partial"
# Far longer than the instant between a folder's making and its marking.
_MARKING_SECONDS = 60
_lock = None  # the descriptor holding the folder's lock while this process (and its workers) live


def _claim(folder):
    """Locks folder for this process's life (flock: released by the kernel however it ends; the
    forked workers share it) and tells memrel it is left behind should the part be killed. A
    part killed from outside left it in TMPDIR, one per report, and nothing ever removed it (the
    fifty-fifth adversarial pass, c8-report-part-killed-leaves-matplotlib-folder)."""
    global _lock
    import fcntl

    import memrel_outputs.last_word

    try:
        _lock = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        fcntl.flock(_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        open(os.path.join(folder, _MARKER), "x").close()
    except OSError:
        return  # unlocked or unmarked, it is never taken for an abandoned one
    memrel_outputs.last_word.leaves(folder)


def _holds_only_ours(folder):
    """Only what the report puts there: the marker and matplotlib's font lists. A folder holding
    anything else is not one of ours (a user's memrel-matplotlib-notes), and is kept."""
    try:
        with os.scandir(folder) as entries:
            names = [(e.name, e.is_file(follow_symlinks=False)) for e in entries]
    except OSError:
        return False
    return any(n == _MARKER for n, _ in names) and all(
        regular and (n == _MARKER or (n.startswith("fontlist-") and n.endswith(".json")))
        for n, regular in names)


def _remove_abandoned_folders():
    """What reports killed outright (memrel itself SIGKILLed, or a part past the grace of a
    stop) left in TMPDIR: their folders, marked and no longer locked, as trace import clears
    its abandoned memrel-run-* folders (cli/trace_import.cpp)."""
    import fcntl
    import stat

    tmp = tempfile.gettempdir()
    try:
        with os.scandir(tmp) as entries:
            names = [e.name for e in entries if e.name.startswith(_PREFIX)]
    except OSError:
        return
    for name in names:
        path = os.path.join(tmp, name)
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
                continue
            if not _holds_only_ours(path):
                # Made and not yet marked: a report killed in that instant left it empty (the
                # fifty-seventh adversarial pass, c9-kill-before-mark-matplotlib-folder-left).
                # An empty one a minute old is no live report's; rmdir takes only an empty one.
                if time.time() - st.st_mtime > _MARKING_SECONDS:
                    with contextlib.suppress(OSError):
                        os.rmdir(path)
                continue
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # its report lives
        finally:
            os.close(fd)  # releases the lock taken
        shutil.rmtree(path, ignore_errors=True)


def prepare():
    """matplotlib's config and cache folder: always one of the report's own in TMPDIR, made once
    by the report's process before its plotting workers are forked (they inherit MPLCONFIGDIR and
    this module's state), and removed when that process exits. matplotlib writes its font list
    into that folder: in the user's (MPLCONFIGDIR, XDG_CACHE_HOME/matplotlib) it overwrote a
    results file or a grid kept there under that name, wrote into memrel's own workloads folder
    and into the report's --out (the fifty-fourth adversarial pass, c1-mplconfigdir-*,
    c1-xdg-cache-fontcache-is-input, c1-advise-grid-in-mplconfigdir-overwritten,
    c2-mplconfigdir-is-report-out).

    Nor is a font list of the user's read: matplotlib takes its cache on trust, and one naming
    files that were fonts by their first bytes alone, holding fields of the wrong types or no
    font at all failed the report and advise's page, exit 4, after each check of ours (the
    sixty-third and sixty-sixth adversarial passes, c10-fontlist-*). matplotlib makes the list
    again in the report's folder: a few tenths of a second here, a second or two where many fonts
    are installed."""
    global _made
    if _made is not None:
        return
    _remove_abandoned_folders()
    folder = tempfile.mkdtemp(prefix=_PREFIX)
    owner = os.getpid()

    def remove():
        if os.getpid() == owner:  # not a forked worker ending: the folder is the parent's
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    _claim(folder)
    os.environ["MPLCONFIGDIR"] = _made = folder
