"""Where matplotlib keeps its config and font cache when the user's folder for it is unusable:
a folder of the report's own in TMPDIR, removed at exit, instead of the `matplotlib-*` folders
matplotlib makes itself and that were left behind (docs/inputs.md, "Sixth pass")."""

import atexit
import os
import shutil
import tempfile

from memrel_outputs.user_folders import xdg_folder

_made = None  # the folder made by prepare(), once


def _usable_folder(path):
    """Whether matplotlib would take this folder for its config/cache (its own test: made if
    missing, then a writable folder)."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.path.isdir(path) and os.access(path, os.W_OK)


def _font_cache_is_files(path):
    """Whether the font cache matplotlib would read there (fontlist-*.json) is a regular file, if
    any: a FIFO of that name held the report for ever (the twenty-fifth adversarial pass,
    c8-mplconfigdir-fontcache-fifo-hangs-report)."""
    try:
        with os.scandir(path) as entries:
            return all(e.is_file(follow_symlinks=True) for e in entries
                       if e.name.startswith("fontlist"))
    except OSError:
        return False


def prepare():
    """A config and cache folder of the report's own in TMPDIR when matplotlib's would be unusable
    (HOME a file, MPLCONFIGDIR read-only: f-home-file, f-mplcfg-ro). matplotlib would make a
    `matplotlib-*` folder there itself, with a warning on stderr, and one more in each plotting
    process that first asked for it; those were left in TMPDIR. This one is made once, by the
    report's process before its plotting workers are forked (they inherit MPLCONFIGDIR and this
    module's state), and removed when that process exits."""
    global _made
    if _made is not None:
        return
    if os.environ.get("MPLCONFIGDIR"):
        wanted = [os.environ["MPLCONFIGDIR"]]
    else:
        # A relative XDG_CONFIG_HOME or HOME counts as none (memrel_outputs.user_folders): the
        # working folder's matplotlibrc would have been read.
        wanted = [xdg_folder("XDG_CONFIG_HOME", ".config"), xdg_folder("XDG_CACHE_HOME", ".cache")]
        wanted = [p and os.path.join(p, "matplotlib") for p in wanted]
    if all(p and os.path.isabs(p) and _usable_folder(os.path.realpath(p))
           and _font_cache_is_files(os.path.realpath(p)) for p in wanted):
        return
    folder = tempfile.mkdtemp(prefix="memrel-matplotlib-")
    owner = os.getpid()

    def remove():
        if os.getpid() == owner:  # not a forked worker ending: the folder is the parent's
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    os.environ["MPLCONFIGDIR"] = _made = folder
