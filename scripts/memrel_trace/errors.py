"""Unusable input: one line naming the file and the entry, exit code 2, nothing written. And the
one failure of reading it that is the machine's, not the file's: exit 4."""

from memrel_outputs.one_line import one_line

EXIT_OK, EXIT_INPUT, EXIT_INTERNAL = 0, 2, 4


class TraceInputError(Exception):
    """str() is one line: 'FILE: where: what' (where may be empty)."""

    def __init__(self, path, where, what):
        # One line, whatever the cause said: a newline in a name escaped (\n), as every writer
        # says it; joined into a space it named another path (the fifty-second adversarial pass,
        # c9-report-newline-as-space).
        what = one_line(str(what).strip())
        super().__init__(f"{path}: {where}: {what}" if where else f"{path}: {what}")


class AddressSpaceTooSmall(Exception):
    """The user's own address-space limit (ulimit -v) ran out before memrel's bound for the file
    was reached: nothing says the file is malformed; str() is one line naming both."""

    def __init__(self, path, limit, bound):
        super().__init__(f"{path}: ran out of memory under the address-space limit of {limit >> 20} "
                         f"MiB (ulimit -v) before memrel's own bound for this file ({bound >> 20} "
                         "MiB); raise the limit, or import it where more memory is allowed")
