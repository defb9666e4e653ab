"""Output paths whose spelling the system and a lexical reading take for two different places
(`rep/missing/..`, `link/../x`, `link/`): the twin of platform/path_spelling.cpp, which says why
each is refused. Python's os.path.normpath and abspath read `..` lexically, so a report checked
`rep/missing/..` as absent and then replaced ./rep (the twelfth adversarial pass)."""

import errno
import os
import stat


def spelling_problem(path):
    """Why path is refused as an output's spelling, or "" when it is not."""
    stripped = path
    while True:  # trailing "/" and "/." follow a link (`link/.` is its target)
        if len(stripped) > 1 and stripped.endswith("/"):
            stripped = stripped[:-1]
        elif len(stripped) > 2 and stripped.endswith("/."):
            stripped = stripped[:-2]
        else:
            break
    if len(stripped) < len(path):
        try:
            if stat.S_ISLNK(os.lstat(stripped).st_mode):
                return ("is a symbolic link (a trailing / or /. follows it); refusing to write "
                        "through it")
        except (OSError, ValueError):
            pass
    so_far = "/" if path.startswith("/") else ""
    for part in stripped.split("/"):
        if not part:
            continue
        before = so_far or "."
        so_far += ("" if not so_far or so_far.endswith("/") else "/") + part
        if part != "..":
            continue
        try:
            system = os.stat(so_far)
        except (OSError, ValueError) as e:
            # Said as what stops it, as the C++ writers say it (platform/path_spelling.cpp).
            err = getattr(e, "errno", None)
            why = ("which does not exist" if err in (errno.ENOENT, None) else
                   "which is not a folder" if err == errno.ENOTDIR else
                   f"which cannot be reached ({e.strerror})")
            return (f"goes up (..) out of {before}, {why}: the system and memrel would read two "
                    "different folders; spell the path without ..")
        try:
            lexical = os.stat(os.path.normpath(os.path.abspath(so_far)))
        except (OSError, ValueError):
            lexical = None
        if lexical is None or (lexical.st_dev, lexical.st_ino) != (system.st_dev, system.st_ino):
            return (f"goes up (..) out of {before}, which is reached through a symbolic link: the "
                    "system goes up from the link's target; spell the path without ..")
    return ""
