"""A file name as text for a page, a table or a JSON document: Linux names are bytes, Python keeps
the ones that are not UTF-8 as lone surrogates, which no UTF-8 writer takes (`report` of
`r\\xff.json` exited 4). Each such byte is written as `\\xff`, as the C++ tools write a name
(platform/path_for_json.hpp) and the trace importer a snapshot's (docs/inputs.md, "Fifth pass")."""

import os


def as_text(name):
    return os.fsencode(name).decode("utf-8", "backslashreplace")
