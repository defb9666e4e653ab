"""The attributes with which a file system refuses what every output does last: rename a file
written beside it over it (chattr's immutable and append-only). The twin of
platform/replace_barrier.hpp: seen only at the rename, they made the trace importer exit 4
"internal error: PermissionError" and leave its probe file in a folder that takes no removal (the
thirty-sixth adversarial pass, c9-append-only-python-permissionerror)."""

import fcntl
import os
import struct

# linux/fs.h: FS_IOC_GETFLAGS is _IOR('f', 1, long); the kernel reads and writes an int.
_FS_IOC_GETFLAGS = 0x80086601
_FS_IMMUTABLE_FL = 0x00000010
_FS_APPEND_FL = 0x00000020


def replace_barrier(path):
    """What stops a file being renamed over path, or into it when it is a folder, in words ("is
    immutable (chattr +i)", "is append-only (chattr +a)"); "" when neither is set, the file system
    keeps no such attributes, or path cannot be opened to ask (then the write says)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY | os.O_NOFOLLOW)
    except (OSError, ValueError):
        return ""
    try:
        flags = struct.unpack("i", fcntl.ioctl(fd, _FS_IOC_GETFLAGS, bytes(8))[:4])[0]
    except OSError:
        return ""
    finally:
        os.close(fd)
    if flags & _FS_IMMUTABLE_FL:
        return "is immutable (chattr +i)"
    if flags & _FS_APPEND_FL:
        return "is append-only (chattr +a)"
    return ""
