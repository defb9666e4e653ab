"""An output's missing folders, made just before its first byte is written and removed again
(each while empty, deepest first) when the write fails or is stopped: the rule every memrel writer
keeps, as platform/folders_made_here.hpp does for the C++ tools (docs/inputs.md, "Outputs"). Some
writers made them and others refused (the thirty-third adversarial pass,
c2-missing-parent-folder-two-rules)."""

import os


class FoldersMade:
    """with FoldersMade(folder): ... makes folder and its missing parents; an exception out of the
    block (a failed write, KeyboardInterrupt from a stop signal) removes what was made while empty.
    A folder there already, or a link of any kind, is never this writer's."""

    def __init__(self, folder):
        self.folder = folder
        self.made = []  # deepest first

    def __enter__(self):
        missing = []
        path = os.path.abspath(self.folder) if self.folder else ""
        while path and not os.path.lexists(path) and path != os.path.dirname(path):
            missing.append(path)
            path = os.path.dirname(path)
        try:
            for path in reversed(missing):
                os.mkdir(path)
                self.made.insert(0, path)
        except BaseException:
            self._remove_empty()
            raise
        return self

    def __exit__(self, kind, value, traceback):
        if kind is not None:
            self._remove_empty()
        return False

    def _remove_empty(self):
        for path in self.made:
            try:
                os.rmdir(path)
            except OSError:  # not empty (or not ours any more): it stays
                pass
        self.made = []
