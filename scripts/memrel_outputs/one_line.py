"""An error message as one line whatever a name in it holds: a newline (or another control
character) in a path or a name made two (docs/inputs.md, "Leftovers and one-line errors"). The
same escapes as the C++ command line's (cli/subcommands.cpp)."""

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text):
    return "".join(_ESCAPES.get(c, f"\\x{ord(c):02x}" if ord(c) < 0x20 or ord(c) == 0x7f else c)
                   for c in str(text))
