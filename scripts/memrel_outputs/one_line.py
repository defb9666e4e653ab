"""An error message as one line whatever a name in it holds: a newline (or another control
character) in a path or a name made two (docs/inputs.md, "Leftovers and one-line errors"). The
twin of platform/one_line_text.hpp: C0 controls as \\n \\r \\t \\xHH; C1, line-separator and
text-direction characters and the noncharacters (U+FFFE: no XML file may hold it) as \\uXXXX; a
byte of a file name that is not UTF-8 (Python holds it as a lone surrogate, U+DC80-DCFF) as
\\xHH, as the C++ side writes it."""

_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


# Also as \uXXXX: the C1 controls (U+0085 is a line break to Python's splitlines), the line and
# paragraph separators, and the text-direction controls (U+202E turns the rest of the line around).
_WIDE = {*range(0x80, 0xA0), 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
         *range(0x2066, 0x206A)}


def _escaped(c):
    code = ord(c)
    if c in _ESCAPES:
        return _ESCAPES[c]
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    noncharacter = 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE  # not an XML character
    return f"\\u{code:04X}" if code in _WIDE or noncharacter else c


def one_line(text):
    return "".join(_escaped(c) for c in str(text))


def visible(text):
    """text with every character one_line escapes escaped, except newline and tab: for a page or
    a Markdown paragraph, where a line may end, but an escape sequence or a NUL from a name, a
    cell's reason or a machine's description must not reach the reader raw (the eighth
    adversarial pass, c9-ctrl-reason-report, c9-ctrl-context-report)."""
    return "".join(c if c in "\n\t" else _escaped(c) for c in str(text))
