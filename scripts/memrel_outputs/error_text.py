"""An errno said for a person: the twin of platform/error_text.hpp, whose words every part of
memrel says. strerror, and for EMFILE the limit that was reached and what to do: "Too many open
files" named neither (the forty-ninth adversarial pass, c9-report-emfile-words)."""

import errno
import os
import resource


def error_text(err):
    text = os.strerror(err)
    if err == errno.EMFILE:
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        text += f" (the open-files limit, ulimit -n, is {limit}: raise it)"
    return text
