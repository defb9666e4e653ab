"""Where matplotlib keeps its config and font cache: a folder of the report's own in TMPDIR,
removed at exit, never the user's (docs/inputs.md, "Sixth pass" and "Fifty-fourth pass")."""

import atexit
import contextlib
import os
import shutil
import stat
import tempfile
import time

from memrel_outputs.user_folders import xdg_folder

_made = None  # the folder made by prepare(), once


# A font list larger than this is no font list matplotlib wrote (its own is about 100 KiB).
_MAX_FONT_CACHE_BYTES = 16 << 20


def _valid_font_cache(path):
    """The bytes of the matplotlib font list at path when it is one (a regular file, read without
    blocking, JSON holding its "_version"), else None."""
    import json

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_FONT_CACHE_BYTES:
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(_MAX_FONT_CACHE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        # RecursionError: nested past Python's limit, no font list; it was "internal error" in
        # the report and in advise's page (the sixty-third adversarial pass,
        # c10-fontlist-deep-json-exit4, c10-fontlist-deep-json-advise-exit4).
        return None
    if not isinstance(doc, dict) or "_version" not in doc or not _fonts_are_fonts(doc):
        return None
    return data


# The first bytes of a font file matplotlib reads: TrueType, OpenType, a collection, Type 1 in
# sfnt; an AFM file is text that starts with its keyword.
_FONT_MAGICS = (b"\x00\x01\x00\x00", b"OTTO", b"true", b"ttcf", b"typ1")


def _fonts_are_fonts(doc):
    """Whether every font file the list names that is there is a font by its first bytes: a list
    naming an empty .ttf made matplotlib fail (FT_Open_Face), exit 4, where the list is only a
    cache (the sixty-third adversarial pass, c10-fontlist-entry-not-a-font-exit4). A file that is
    gone is matplotlib's to pass over, as it does."""
    for key, magics in (("ttflist", _FONT_MAGICS), ("afmlist", (b"StartFontMetrics",))):
        entries = doc.get(key, [])
        if not isinstance(entries, list):
            return False
        for entry in entries:
            name = entry.get("fname") if isinstance(entry, dict) else None
            if not isinstance(name, str):
                return False
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            except OSError:
                return False
            try:
                head = os.read(fd, 16) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
            except OSError:
                return False
            finally:
                os.close(fd)
            if not head.startswith(magics):
                return False
    return True


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
    c2-mplconfigdir-is-report-out). The user's folder is only read: a font list matplotlib wrote
    there is copied in, so that it is not made again (a second and a half)."""
    global _made
    if _made is not None:
        return
    if os.environ.get("MPLCONFIGDIR"):
        wanted = [os.environ["MPLCONFIGDIR"]]
    else:
        # A relative XDG_CACHE_HOME or HOME counts as none (memrel_outputs.user_folders).
        wanted = [xdg_folder("XDG_CACHE_HOME", ".cache")]
        wanted = [p and os.path.join(p, "matplotlib") for p in wanted]
    _remove_abandoned_folders()
    folder = tempfile.mkdtemp(prefix=_PREFIX)
    owner = os.getpid()

    def remove():
        if os.getpid() == owner:  # not a forked worker ending: the folder is the parent's
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    _claim(folder)
    for place in (p for p in wanted if p and os.path.isabs(p)):
        try:
            names = [n for n in os.listdir(place) if n.startswith("fontlist-") and n.endswith(".json")]
        except OSError:
            continue
        for name in names[:8]:
            data = _valid_font_cache(os.path.join(place, name))
            if data is not None:
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(data)
    os.environ["MPLCONFIGDIR"] = _made = folder
