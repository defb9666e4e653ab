"""Unusable input: one line naming the file and the entry, exit code 2, nothing written."""

EXIT_OK, EXIT_INPUT, EXIT_INTERNAL = 0, 2, 4


class TraceInputError(Exception):
    """str() is one line: 'FILE: where: what' (where may be empty)."""

    def __init__(self, path, where, what):
        what = " ".join(str(what).split())  # one line, whatever the cause said
        super().__init__(f"{path}: {where}: {what}" if where else f"{path}: {what}")
