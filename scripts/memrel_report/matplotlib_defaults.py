"""matplotlib for the report's charts (and advise's), the same whatever folder memrel runs in:
nothing from the user's folders changes what is drawn or what runs (docs/inputs.md, "Code").
Import this module before anything of matplotlib.

matplotlib reads an rc file when it is imported, the first of: `matplotlibrc` in the working
folder, $MATPLOTLIBRC, $MPLCONFIGDIR/matplotlibrc (else ~/.config/matplotlib/matplotlibrc), its
own; memrel points $MATPLOTLIBRC at matplotlib's own. The working folder is wherever the report was run from, not a choice of the user's: its
`text.usetex: True` made the report run `latex` from PATH (exit 4), its `figure.dpi: 1` drew
other charts without a word (the fifth adversarial pass, c06), and a FIFO of that name blocked the
report for ever. So matplotlib is imported from the root folder, where it finds none, and then
every parameter is set to matplotlib's own default, whichever file set it: the charts' layout
(the label checks of layout.py, sizes, fonts) is made for those, and a report is comparable with
another made elsewhere. The backend is Agg whatever MPLBACKEND or a file says: the report writes
PNG and SVG files through Figure, never pyplot, and no backend module is imported.
"""

import importlib.util
import os
import sys

from . import matplotlib_config_folder

# matplotlib checks MPLBACKEND when it is imported: a name it does not know stopped the report with
# a ValueError, exit 4 (the ninth adversarial pass, c8-env-mplbackend-bogus-report). Agg it is.
os.environ["MPLBACKEND"] = "Agg"

# No rc file of the user's is read at all: every parameter is set to matplotlib's default below
# anyway, and reading one could only go wrong (a FIFO as $MATPLOTLIBRC, $MPLCONFIGDIR/matplotlibrc
# or ~/.config/matplotlib/matplotlibrc held the report for ever; a broken one printed a dozen
# warnings: the twenty-fifth adversarial pass, c8-*matplotlibrc*). matplotlib's own file, found
# without importing it, is the one it reads.
_spec = importlib.util.find_spec("matplotlib")
if _spec is not None and _spec.origin:
    os.environ["MATPLOTLIBRC"] = os.path.join(os.path.dirname(_spec.origin), "mpl-data",
                                              "matplotlibrc")

if "matplotlib" not in sys.modules:
    matplotlib_config_folder.prepare()
    _here = os.open(".", os.O_PATH | os.O_DIRECTORY)  # back here even if the folder is renamed
    try:
        os.chdir("/")
        import matplotlib

        # Nor the user's fonts: matplotlib builds its font list from the system's and the user's
        # folders (~/.fonts, ~/.local/share/fonts), and a FIFO there held the report for ever
        # (the twenty-fifth adversarial pass, c8-home-fonts-fifo-hangs-report); the charts are
        # drawn in matplotlib's own font anyway. Its cache folder is fixed first, under the
        # user's HOME; the font list is then made with HOME at "/".
        matplotlib.get_cachedir()
        _saved = {name: os.environ.get(name) for name in ("HOME", "XDG_DATA_HOME")}
        os.environ["HOME"] = "/"
        os.environ.pop("XDG_DATA_HOME", None)
        try:
            import matplotlib.font_manager  # noqa: F401
        finally:
            for _name, _value in _saved.items():
                if _value is None:
                    os.environ.pop(_name, None)
                else:
                    os.environ[_name] = _value
    finally:
        os.fchdir(_here)
        os.close(_here)
else:  # already imported (a test): only the parameters below can be put right
    import matplotlib

matplotlib.rcParams.update(matplotlib.rcParamsDefault)  # the backend is kept by this: set next
matplotlib.rcParams["backend"] = "agg"
# Every text is drawn as written: a name holding "$" (a workload `$\frac{$`, a mark, a trace, a
# benchmark, a backend) was parsed as TeX math, a ParseSyntaxException stopped the report and
# advise's page (exit 4), and `q$\alpha$` drew an alpha (the thirty-fourth adversarial pass,
# c9-report-dollar-*). memrel's own labels use no math.
matplotlib.rcParams["text.parse_math"] = False
