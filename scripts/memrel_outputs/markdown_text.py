"""Text from a file memrel read, written into Markdown as text and never as markup (docs/inputs.md,
"Markup"): report.md, `history changes --markdown`. The twin of gate/format.hpp's markdown_cell
(compare --markdown); both are checked against tests/data/markdown_texts.json.

- Control, direction and line-separator characters first, as every error line says them
  (one_line.one_line), a newline too: a line in a name that starts with `#` or `<` would start a
  heading or an HTML block.
- A backslash, and every character that opens inline markup: `*` and `~` (emphasis,
  strikethrough), `[` `]` (links and images: `![x](http://...)` in a backend's description made
  report.md fetch an outside image, the tenth adversarial pass), a backquote (code spans), `|`
  (a table's cell boundary). The backslash comes first: `a\\|b` escaped only at its `|` became
  `a\\\\|b`, an escaped backslash and then a raw cell boundary that split the row.
- `_` where it could open or close emphasis, that is unless it stands between two letters or
  digits (CommonMark's flanking rule), so that `peak_reserved` reads as it is.
- `<`, `>` and `&` as entities: raw HTML and character references show as typed.
- The `:` of `://`, the `.` of `www.` and every `@`, backslashed: GitHub links bare addresses.

markdown_line does the same for a text that starts a line (a paragraph, a bullet, a heading), and
also escapes what would make that line a heading, a list item, a quote or a rule.
"""

import re

from memrel_outputs.one_line import one_line

__all__ = ["markdown_inline", "markdown_line"]

_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_BACKSLASHED = set("\\`*~[]|$")
_LINE_START = re.compile(r"^(?:[#+=-]|\d{1,9}(?=[.)](?:[ \t]|$)))")


def _word(c):
    return c.isascii() and c.isalnum()


def _starts_an_autolink(s, k):
    """Whether s[k] is where GitHub's Markdown would see a bare link (its autolink extension):
    the ':' of "://", the '.' of "www.", any '@' (an e-mail address). Backslashed, each renders
    as itself and breaks the link: a workload named https://evil.example/x was a live link in
    report.md and compare's table (the fifty-second adversarial pass,
    c9-bare-url-autolinks-in-markdown)."""
    c = s[k]
    if c == "@":
        return True
    if c == ":":
        return s.startswith("//", k + 1)
    return c == "." and s[max(0, k - 3):k].lower() == "www" and (k < 4 or not _word(s[k - 4]))


def markdown_inline(text):
    s = one_line(text)
    out = []
    for k, c in enumerate(s):
        if c in _ENTITIES:
            out.append(_ENTITIES[c])
        elif c in _BACKSLASHED:
            out.append("\\" + c)
        elif c == "_" and not (0 < k < len(s) - 1 and _word(s[k - 1]) and _word(s[k + 1])):
            out.append("\\_")
        elif _starts_an_autolink(s, k):
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def markdown_line(text):
    """Leading spaces dropped (four make a code block); then a leading `#`, `-`, `+` or `=`
    backslashed, and the `.` or `)` after leading digits that make an ordered list's marker."""
    escaped = markdown_inline(str(text).lstrip(" \t"))
    m = _LINE_START.match(escaped)
    if not m:
        return escaped
    if m.group(0)[0].isdigit():
        end = m.end()
        return escaped[:end] + "\\" + escaped[end:]
    return "\\" + escaped
