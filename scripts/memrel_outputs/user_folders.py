"""The user's cache and config folders as the XDG Base Directory specification names them, and
only where they are absolute: "If an implementation encounters a relative path in any of these
variables it should consider the path invalid and ignore it." A relative XDG_CACHE_HOME (or
HOME=.) named a folder below the working folder, and `history changes` ran the Otava
interpreter found there (the tenth adversarial pass, c3-otava-venv-*-dot-*); nor the working
folder itself, under an absolute spelling. The twin of cli/history_command.cpp's
user_cache_folder."""

import os

__all__ = ["xdg_folder"]


def xdg_folder(variable, below_home):
    """$VARIABLE when it is an absolute path other than the working folder, else $HOME/BELOW_HOME
    when HOME is one, else None."""
    chosen = os.environ.get(variable, "")
    if os.path.isabs(chosen) and not _is_working_folder(chosen):
        return chosen
    home = os.environ.get("HOME", "")
    return os.path.join(home, below_home) if os.path.isabs(home) else None


def _is_working_folder(path):
    """Whether PATH is the working folder under any spelling (/proc/self/cwd, $PWD, a link): as a
    relative one, it would take programs from the folder the user stands in (the forty-ninth
    adversarial pass, c3-xdg-cache-proc-self-cwd-runs-cwd-interpreter)."""
    try:
        return os.path.samefile(path, ".")
    except OSError:
        return False
