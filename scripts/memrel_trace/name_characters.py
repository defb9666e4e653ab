"""The characters a trace's name may not hold: a control character (U+0000-001F, U+007F-009F) and
a bidirectional control (U+061C, U+200E, U+200F, U+202A-202E, U+2066-2069), a line or paragraph
separator (U+2028, U+2029), a noncharacter (U+FDD0-FDEF, U+FFFE and U+FFFF of every plane:
not characters XML may hold) and an invisible character that joins nothing (U+00AD, U+180E,
U+200B, U+2060-2064, U+FEFF). The twin of
platform/name_characters.hpp, which says why; tests/data/name_characters.json holds names and the
verdict both give."""

_BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}
_LINE_SEPARATORS = {0x2028, 0x2029}
_INVISIBLE = {0x00AD, 0x180E, 0x200B, *range(0x2060, 0x2065), 0xFEFF}


def _noncharacter(code):
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


def forbidden_name_character(name):
    """The first such character of name, as "\\uXXXX", or "" when it holds none."""
    for ch in name:
        code = ord(ch)
        if (code < 0x20 or 0x7F <= code <= 0x9F or code in _BIDI or code in _LINE_SEPARATORS
                or code in _INVISIBLE or _noncharacter(code)):
            return f"\\u{code:04X}"
    return ""
