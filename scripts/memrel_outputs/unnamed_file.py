"""A file that gets its name only once it is whole (O_TMPFILE): a kill while it is written, even
SIGKILL, leaves nothing behind (OUT.tmp.PID stayed for good beside `history changes --markdown`
and a `.memtrace-*.tmp` beside `trace import -o`: the forty-second adversarial pass,
c9-*-sigkill-tmp-left). platform/atomic_file.cpp writes memrel's own outputs the same way."""

import os

from . import last_word


def open_unnamed(folder):
    """A descriptor for writing a file without a name in folder, or None where the file system
    (or this Python) has no O_TMPFILE: the caller then writes a named temporary."""
    try:
        return os.open(folder, os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o600)
    except (AttributeError, OSError):
        return None


def link_unnamed(fd, name):
    """Gives the unnamed file of fd the path name: linkat(/proc/self/fd/FD, NAME,
    AT_SYMLINK_FOLLOW). A folder fd makes os.link use linkat (plain link() would try to link the
    /proc entry itself). FileExistsError when name is taken."""
    folder_fd = os.open(os.path.dirname(os.path.abspath(name)),
                        os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.link(f"/proc/self/fd/{fd}", os.path.basename(name), dst_dir_fd=folder_fd,
                follow_symlinks=True)
    finally:
        os.close(folder_fd)


def replace_whole(path, data, check=None):
    """Writes DATA (bytes) as PATH: into a file without a name, synced, check() called once more,
    then named PATH.tmp.PID (or .1, .2, ...: a name taken already is never ours, a user's file
    named like it: the twenty-seventh adversarial pass, c1-tmp-name-is-input-deleted) and
    renamed over PATH at once. Where there is no O_TMPFILE the named temporary is written
    instead. The temporary's name is said to memrel (last_word), which removes it should this
    part be killed while it stands."""
    fd = open_unnamed(os.path.dirname(os.path.abspath(path)))
    tmp = None
    try:
        if fd is not None:
            with os.fdopen(fd, "wb") as f:
                _write_synced(f, data)
                umask = os.umask(0)  # as open() of a named file would leave it
                os.umask(umask)
                os.fchmod(f.fileno(), 0o666 & ~umask)
                if check is not None:
                    check()
                tmp = _free_name(path, lambda name: link_unnamed(f.fileno(), name))
        else:
            created = []
            tmp = _free_name(path, lambda name: created.append(
                os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)))
            with os.fdopen(created[0], "wb") as f:
                _write_synced(f, data)
            if check is not None:
                check()
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _write_synced(f, data):
    f.write(data)
    f.flush()
    os.fsync(f.fileno())


def _free_name(path, take):
    for attempt in range(100):
        tmp = f"{path}.tmp.{os.getpid()}" + (f".{attempt}" if attempt else "")
        try:
            take(tmp)
        except FileExistsError:
            if attempt == 99:
                raise
            continue
        last_word.leaves(tmp)
        return tmp
