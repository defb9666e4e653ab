"""Where an output's first missing folder would be made, something that is not a folder: a file,
or a symbolic link to nothing. The twin of platform/not_a_folder.hpp, whose words every writer
says (the fifty-first adversarial pass, c2-dangling-link-ancestor-wrong-words)."""

import errno
import os
import stat


def not_a_folder(path):
    """Why no folder can be made in path: "d is not a folder", "d is a symbolic link to
    nowhere/x, which does not exist". "" when path is a folder (through links) or is not there."""
    try:
        st = os.lstat(path)
    except OSError:
        return ""
    if not stat.S_ISLNK(st.st_mode):
        return "" if stat.S_ISDIR(st.st_mode) else f"{path} is not a folder"
    try:
        return "" if stat.S_ISDIR(os.stat(path).st_mode) else f"{path} is not a folder"
    except OSError as e:
        if e.errno == errno.ELOOP:
            return f"{path} is a loop of symbolic links"
        if e.errno != errno.ENOENT:  # a folder not searchable: the write says
            return ""
    try:
        return f"{path} is a symbolic link to {os.readlink(path)}, which does not exist"
    except OSError:
        return f"{path} is a symbolic link to nothing"


def where_folders_are_made(path):
    """path, or its nearest ancestor that is there (a link counts), as spelled: where the first
    of its missing folders would be made; "." for a relative path none of whose folders is."""
    at = path or "."
    while not os.path.lexists(at):
        parent = os.path.dirname(at)
        if not parent or parent == at:
            return "/" if os.path.isabs(at) else "."
        at = parent
    return at
