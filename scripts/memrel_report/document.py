"""The report as a list of blocks, and its two renderings: Markdown (report.md) and HTML
(index.html: plain HTML with inline CSS, images referenced relatively, no script, nothing
fetched from the network). One model, two outputs, so the two files never disagree."""

import html
import re
from dataclasses import dataclass, field

from memrel_outputs.markdown_text import markdown_inline, markdown_line
from memrel_outputs.one_line import visible


def _html(text):
    """Text for a page: markup as entities, control characters as one_line_text says them (a NUL
    or an escape sequence from a file memrel read went into the HTML raw)."""
    return html.escape(visible(text))


@dataclass
class Heading:
    level: int
    text: str


@dataclass
class Para:
    text: str


@dataclass
class Bullets:
    items: list


@dataclass
class Value:
    """A table cell with a main text and an optional second line (exact bytes under MiB)."""

    text: str
    sub: str = None


@dataclass
class Table:
    headers: list
    rows: list                                  # cells: str or Value
    numeric: set = field(default_factory=set)   # column indices aligned right
    anchor: str = None                          # an id for the table (HTML)


@dataclass
class Image:
    plot: object  # plots.Plot


@dataclass
class Link:
    """A link to another page or file of the report folder (relative), in a table cell or a list."""

    text: str
    href: str
    note: str = None     # said after the link


@dataclass
class Links:
    """A list of links (pages, downloads)."""

    items: list          # Link


@dataclass
class Grid:
    """Images side by side in HTML (two a row), one after the other in Markdown."""

    images: list         # Image
    captions: list = None   # a paragraph under each image (what it means)
    anchors: list = None    # an id for each (links from a table to its chart)


@dataclass
class Note:
    """A paragraph set apart: what a figure does not say, a caveat."""

    text: str


def _anchor(text):
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")


def _heading_ids(blocks):
    """An id per heading, no two alike on the page nor like a table's or a chart's: the
    headings `my_alloc` and `my-alloc` shared one, and the contents' link to the first led to
    the second (the twenty-second adversarial pass, c6-report-history-anchor-collision). A
    later one gets -2, -3, ... added; one of no letter or digit is "section"."""
    taken = {b.anchor for b in blocks if isinstance(b, Table) and b.anchor}
    taken |= {a for b in blocks if isinstance(b, Grid) and b.anchors for a in b.anchors}
    ids = {}
    for b in blocks:
        if isinstance(b, Heading):
            base = _anchor(b.text) or "section"
            unique, n = base, 2
            while unique in taken:
                unique, n = f"{base}-{n}", n + 1
            taken.add(unique)
            ids[id(b)] = unique
    return ids


# --- Markdown ---------------------------------------------------------------------------------

# Every text in report.md is text, never markup (docs/inputs.md, "Markup"): names, descriptions,
# reasons and paths come from files memrel read, and the report's own prose uses no Markdown of
# its own, so one rule serves them all (memrel_outputs.markdown_text). Tables, images and links
# are the only markup report.md writes.
md_text = markdown_inline
_md_prose = markdown_line


def _one_spaced(text):
    """text with runs of spaces made one; a newline or a tab is left to markdown_inline, which
    writes it as `\\n`, `\\t`, as in the prose: the tables turned a newline into a space (the
    fifty-ninth adversarial pass, c9-report-table-newline-as-space)."""
    return re.sub(" +", " ", str(text).strip(" "))


def _md_heading(text):
    """A heading's text: a `#` anywhere in it escaped too (a closing sequence ends a heading)."""
    return markdown_inline(_one_spaced(text)).replace("#", "\\#")


def _md_alt(title):
    """An image's alt text: a name in it is text, never markup (a `](http://...` in a backend's
    name once made report.md fetch an outside image)."""
    return md_text(_one_spaced(title))


def _md_link(link):
    return f"[{md_text(link.text)}]({link.href})" + (f" {md_text(link.note)}" if link.note else "")


def _md_cell(cell):
    if isinstance(cell, Link):
        return _md_link(cell)
    if isinstance(cell, Value):
        text = cell.text if not cell.sub else f"{cell.text} ({cell.sub})"
    else:
        text = str(cell)
    return md_text(_one_spaced(text))


def to_markdown(title, blocks):
    out = [f"# {_md_heading(title)}", ""]
    for b in blocks:
        if isinstance(b, Links):
            out += [f"- {_md_link(item)}" for item in b.items] + [""]
        elif isinstance(b, Note):
            out += [f"> {_md_prose(b.text)}", ""]
        elif isinstance(b, Grid):
            for k, image in enumerate(b.images):
                out += [f"![{_md_alt(image.plot.title)}]({image.plot.png})", "", f"[SVG]({image.plot.svg})", ""]
                if b.captions and b.captions[k]:
                    out += [_md_prose(b.captions[k]), ""]
        elif isinstance(b, Heading):
            out += ["#" * b.level + " " + _md_heading(b.text), ""]
        elif isinstance(b, Para):
            out += [_md_prose(b.text), ""]
        elif isinstance(b, Bullets):
            out += [f"- {_md_prose(item)}" for item in b.items] + [""]
        elif isinstance(b, Table):
            out.append("| " + " | ".join(_md_cell(h) for h in b.headers) + " |")
            out.append("|" + "|".join("---:" if i in b.numeric else "---" for i in range(len(b.headers))) + "|")
            out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in b.rows]
            out.append("")
        elif isinstance(b, Image):
            out += [f"![{_md_alt(b.plot.title)}]({b.plot.png})", "", f"[SVG]({b.plot.svg})", ""]
        else:
            raise TypeError(f"unknown block {b!r}")
    return "\n".join(out).rstrip() + "\n"


# --- HTML -------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2em auto;
       max-width: 1200px; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.7em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
h3 { margin-top: 1.5em; }
nav ul { columns: 2; }
.scroll { overflow-x: auto; margin: 0.8em 0; }
table { border-collapse: collapse; font-size: 0.88em; }
th, td { border: 1px solid #d0d0d0; padding: 0.25em 0.55em; vertical-align: top; }
th { background: #f3f3f3; text-align: left; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td small { color: #777; }
tr:nth-child(even) td { background: #fafafa; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #555; }
code { background: #f3f3f3; padding: 0 0.2em; }
nav.site { font-size: 0.92em; border-bottom: 1px solid #ddd; padding-bottom: 0.4em; }
nav.site a { margin-right: 1.1em; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 0.6em 1.4em; }
.grid figure { margin: 0.3em 0; }
.grid p { font-size: 0.86em; color: #333; margin: 0.2em 0 0.6em 0; }
.note { font-size: 0.9em; color: #444; background: #f6f6f6; border-left: 4px solid #bbb; padding: 0.4em 0.8em; }
td.best { font-weight: bold; }
ul.links { columns: 3; font-size: 0.92em; }
"""


def _html_link(link):
    body = f'<a href="{_html(link.href)}">{_html(link.text)}</a>'
    return body + (f" {_html(link.note)}" if link.note else "")


def _html_figure(p):
    return (f'<figure><a href="{_html(p.svg)}"><img src="{_html(p.png)}" '
            f'alt="{_html(p.title)}"></a><figcaption>{_html(p.title)} '
            f'(<a href="{_html(p.svg)}">SVG</a>)</figcaption></figure>')


def _html_cell(cell, numeric, header=False):
    tag = "th" if header else "td"
    cls = ' class="num"' if numeric and not header else ""
    if isinstance(cell, Link):
        body = _html_link(cell)
    elif isinstance(cell, Value):
        body = _html(cell.text)
        if cell.sub:
            body += f"<br><small>{_html(cell.sub)}</small>"
    else:
        body = _html(str(cell))
    return f"<{tag}{cls}>{body}</{tag}>"


def to_html(title, blocks, site_nav=None, contents=True):
    """One page. site_nav: [Link] to the site's other pages, at the top; contents: a list of the
    page's sections under the title."""
    sections = [b for b in blocks if isinstance(b, Heading) and b.level == 2]
    heading_ids = _heading_ids(blocks)
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{_html(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>"]
    if site_nav:
        out.append('<nav class="site">' + " ".join(_html_link(link) for link in site_nav) + "</nav>")
    out.append(f"<h1>{_html(title)}</h1>")
    if sections and contents:
        out.append("<nav><ul>")
        out += [f'<li><a href="#{_html(heading_ids[id(s)])}">{_html(s.text)}</a></li>' for s in sections]
        out.append("</ul></nav>")
    for b in blocks:
        if isinstance(b, Links):
            out.append('<ul class="links">' + "".join(f"<li>{_html_link(i)}</li>" for i in b.items) + "</ul>")
        elif isinstance(b, Note):
            out.append(f'<p class="note">{_html(b.text)}</p>')
        elif isinstance(b, Grid):
            cells = []
            for k, image in enumerate(b.images):
                caption = b.captions[k] if b.captions else None
                anchor = f' id="{_html(b.anchors[k])}"' if b.anchors else ""
                cells.append(f"<div{anchor}>" + _html_figure(image.plot) +
                             (f"<p>{_html(caption)}</p>" if caption else "") + "</div>")
            out.append('<div class="grid">' + "\n".join(cells) + "</div>")
        elif isinstance(b, Heading):
            out.append(f'<h{b.level} id="{_html(heading_ids[id(b)])}">{_html(b.text)}</h{b.level}>')
        elif isinstance(b, Para):
            out.append(f"<p>{_html(b.text)}</p>")
        elif isinstance(b, Bullets):
            out.append("<ul>" + "".join(f"<li>{_html(str(i))}</li>" for i in b.items) + "</ul>")
        elif isinstance(b, Table):
            rows = ["<tr>" + "".join(_html_cell(h, i in b.numeric, True) for i, h in enumerate(b.headers)) + "</tr>"]
            rows += ["<tr>" + "".join(_html_cell(c, i in b.numeric) for i, c in enumerate(row)) + "</tr>"
                     for row in b.rows]
            anchor = f' id="{_html(b.anchor)}"' if b.anchor else ""
            out.append(f'<div class="scroll"><table{anchor}>' + "\n".join(rows) + "</table></div>")
        elif isinstance(b, Image):
            out.append(_html_figure(b.plot))
        else:
            raise TypeError(f"unknown block {b!r}")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
