"""Where matplotlib keeps its config and font cache: a folder of the report's own in TMPDIR,
removed at exit, never the user's (docs/inputs.md, "Sixth pass" and "Fifty-fourth pass")."""

import atexit
import os
import shutil
import tempfile

from memrel_outputs.user_folders import xdg_folder

_made = None  # the folder made by prepare(), once


# A font list larger than this is no font list matplotlib wrote (its own is about 100 KiB).
_MAX_FONT_CACHE_BYTES = 16 << 20


def _valid_font_cache(path):
    """The bytes of the matplotlib font list at path when it is one (a regular file, read without
    blocking, JSON holding its "_version"), else None."""
    import json
    import stat

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
    except ValueError:
        return None
    return data if isinstance(doc, dict) and "_version" in doc else None


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
    folder = tempfile.mkdtemp(prefix="memrel-matplotlib-")
    owner = os.getpid()

    def remove():
        if os.getpid() == owner:  # not a forked worker ending: the folder is the parent's
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
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
