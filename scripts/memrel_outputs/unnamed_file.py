"""A file that gets its name only once it is whole (O_TMPFILE): a kill while it is written, even
SIGKILL, leaves nothing behind (OUT.tmp.PID stayed for good beside `history changes --markdown`
and a `.memtrace-*.tmp` beside `trace import -o`: the forty-second adversarial pass,
c9-*-sigkill-tmp-left). platform/atomic_file.cpp writes memrel's own outputs the same way."""

import os


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
