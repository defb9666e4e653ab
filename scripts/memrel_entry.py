"""Runs one of memrel's Python packages with nothing from the user's folders importable:
    python3 -I scripts/memrel_entry.py PACKAGE ARGS...
is `python3 -m PACKAGE ARGS...` without the working folder on the module path. `python3 -m` puts
the working folder first, so a `json.py` (or `runpy.py`, `argparse.py`...) beside a snapshot would
run during `trace import`; here the module path is this folder (memrel's packages), then the
interpreter's own, then the folders of PYTHONPATH (after the standard library, which they cannot
shadow; from them, and from the user's site-packages, only what pip installed: _OnlyWhatPipInstalled)
but never the working folder (an empty or
relative PYTHONPATH entry, which Python turns into the working folder, is dropped). memrel's
command line runs its Python parts this way (cli/python_module.cpp); docs/inputs.md, "Code".

-I (isolated): the interpreter reads no PYTHON* variable, so nothing from PYTHONPATH or
PYTHONHOME is loaded at start-up (an `encodings` package there killed it before this file ran);
memrel hands PYTHONPATH's absolute entries over as MEMREL_PYTHONPATH, added below. -I leaves out
the user's site-packages too (`pip install --user`, scripts/install-deps' fallback): it is added
back below, after the interpreter's own folders, unless it is the working folder.

Nothing but builtin modules and those already loaded at start-up is imported before the path is
fixed.
"""

import os  # already loaded at start-up (site): taken from sys.modules, not searched for
import sys

_here = os.path.dirname(os.path.abspath(__file__))
# The working folder, unless it is one of the folders the interpreter started with (its standard
# library, its site-packages) or memrel's own: those hold what they hold wherever memrel is run
# from, and dropping them refused every Python part run from scripts/ and took matplotlib away
# from a report run from site-packages (the fifteenth adversarial pass, c3-cwd-is-*).
# A working folder removed while memrel ran from it has no name: nothing of it can be imported,
# and the part runs on (with absolute paths), where it said the interpreter could not start (the
# twenty-second adversarial pass, c8-deleted-cwd-blames-interpreter).
try:
    _cwd = {os.getcwd(), os.path.realpath(os.getcwd())}
except FileNotFoundError:
    _cwd = set()
if _cwd & {os.path.realpath(p) for p in [_here, *sys.path] if os.path.isabs(p)}:
    _cwd = set()
_user = [p for p in os.environ.get("MEMREL_PYTHONPATH", "").split(os.pathsep) if p]
# PYTHONPATH's folders come after the interpreter's own: they can add packages, never stand in
# for the standard library's (a `pickle.py` in a PYTHONPATH folder ran during `trace import`).
_own = [p for p in sys.path if os.path.isabs(p) and p != _here and os.path.realpath(p) not in _cwd]
sys.path[:] = [_here] + _own + [p for p in _user if os.path.isabs(p) and p != _here and p not in _own
                                and os.path.realpath(p) not in _cwd]


# The user's site-packages as Python finds it without PYTHONUSERBASE: -I means no PYTHON*
# variable, but `site` reads that one itself, and a folder it named had its .pth files run.
# Only under a HOME that is an absolute path: HOME=. made the working folder's
# .local/lib/pythonX.Y/site-packages the user's, and its .pth files ran (the eighth adversarial
# pass, c3-home-dot-pth-*).
# Said to memrel first of all (MEMREL_ENTRY_FD, cli/python_module.cpp): an interpreter that
# answers the version probe as Python does and then runs nothing of this file exited 0 with
# nothing written, and memrel took it for success (the thirteenth adversarial pass,
# c8-fakepy-exit0-*). Kept, not inherited by what the package starts, for the last word:
# how memrel's code ended (_say_end).
try:
    _entry_fd = int(os.environ.pop("MEMREL_ENTRY_FD", ""))
except ValueError:
    _entry_fd = None
if _entry_fd is not None:
    # memrel gave a descriptor that is gone (a MEMREL_PYTHON wrapper that closed it): the part
    # ran and wrote its output, and memrel, told nothing, said it "exited 0 without running
    # memrel's code", exit 4, the output left (the fifty-second adversarial pass,
    # c8-python-wrapper-closes-fd3-output-left-exit4). Nothing is run that memrel cannot hear end.
    try:
        os.write(_entry_fd, b"memrel_entry.py ran\n")
        os.set_inheritable(_entry_fd, False)
    except OSError as e:
        sys.stderr.write("memrel python: descriptor %d, on which memrel hears how this part ends, "
                         "is not open here (%s): does MEMREL_PYTHON close it? nothing run\n"
                         % (_entry_fd, os.strerror(e.errno)))
        os._exit(4)


def _say_end(code):
    """Tells memrel the exit code memrel's code chose, as the process ends: a wrapper that runs
    Python and then exits 0 (a shim, `conda run`) turned a refusal into exit 0 with nothing
    written (the twenty-seventh adversarial pass,
    c8-python-wrapper-loses-status-exit0-nothing-written)."""
    if _entry_fd is None:
        return
    number = 0 if code is None else code if isinstance(code, int) else 1
    try:
        os.write(_entry_fd, b"memrel_entry.py ended %d\n" % number)
    except OSError:
        pass

_home = os.path.expanduser("~")
_user_site = os.path.join(_home, ".local", "lib", "python%d.%d" % sys.version_info[:2],
                          "site-packages")
# Its folder is put on the path, and nothing in it is run: site.addsitedir would run its .pth
# files, code in a user folder (the ninth adversarial pass, c3-usersite-pth-*). The packages
# memrel needs from there (pip install --user matplotlib) import without them.
if os.path.isabs(_home) and os.path.isdir(_user_site) and os.path.realpath(_user_site) not in _cwd:
    sys.path.append(_user_site)

# Start-up (site, .pth files) ran before this file, on the path as the environment gave it: a
# module it loaded from the working folder has run already; say so rather than go on with it.
for _name, _module in list(sys.modules.items()):
    _file = getattr(_module, "__file__", None)
    if _file and os.path.realpath(os.path.dirname(_file)) in _cwd:
        print(f"memrel: {_file}: the module {_name} was loaded from the working folder at "
              "start-up (PYTHONPATH names it); run from another folder", file=sys.stderr)
        sys.exit(2)


import importlib.machinery  # noqa: E402  (the path is fixed: the interpreter's own)


class _OtherPlatformsModules:
    """Refuses the modules the standard library imports only to learn it is not running on
    Jython, Windows or macOS (pickle's `from org.python.core import PyStringMap`, subprocess's
    `msvcrt` and `_winapi`): none is this interpreter's, so a PYTHONPATH folder or the user's
    site-packages, which may add packages, supplied them, and their code ran in `trace import`,
    `report` and `advise` (the thirteenth adversarial pass, c3-pythonpath-org-*,
    c3-usersite-winapi-report). First on the meta path: the import fails as on any Linux."""

    NAMES = frozenset({"org", "java", "msvcrt", "_winapi", "winreg", "_winreg", "nt", "_overlapped",
                       "_scproxy", "vms_lib"})

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.partition(".")[0] in cls.NAMES and name not in sys.builtin_module_names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None




class _OwnFoldersFirst:
    """A top-level name the interpreter's own folders hold in any form is taken from them, never
    from a PYTHONPATH folder or the user's site-packages after them. The path's order does that
    for modules and regular packages, not for a namespace package: a later folder's regular
    package of the same name wins over every portion, so a PYTHONPATH folder's
    `mpl_toolkits/__init__.py` ran in place of matplotlib's (the thirteenth adversarial pass,
    c3-pythonpath-winapi-report)."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if path is not None:
            return None  # a submodule: its package's own path decides
        return importlib.machinery.PathFinder.find_spec(name, _own_folders, target)


def _installed_names(folder):
    """The top-level names pip installed in FOLDER: the first part of each file its .dist-info
    RECORDs list (`foo/__init__.py`, `foo.py`, `_foo.cpython-311-x86_64-linux-gnu.so`), and the
    names of each top_level.txt (.dist-info, .egg-info)."""
    names = set()
    try:
        entries = os.listdir(folder)
    except OSError:
        return names
    for entry in entries:
        if not entry.endswith((".dist-info", ".egg-info")):
            continue
        for record in ("RECORD", "top_level.txt"):
            try:
                with open(os.path.join(folder, entry, record), encoding="utf-8", errors="replace") as f:
                    lines = f.read(1 << 22).splitlines()
            except OSError:
                continue
            for line in lines:
                first = line.strip() if record == "top_level.txt" else line.split(",")[0].split("/")[0]
                name = first.split(".")[0]
                if name.isidentifier():
                    names.add(name)
    return names


class _OnlyWhatPipInstalled:
    """From a PYTHONPATH folder or the user's site-packages, only a package pip installed there
    (named by its .dist-info or .egg-info record) is imported; a loose file or folder is not. A
    library's optional import of a name the interpreter lacks (scipy's `try: import cython`,
    under Otava) was otherwise answered by a user's `cython.py`, and its code ran in `history
    changes` and `report --history` (the twenty-second adversarial pass,
    c3-pythonpath-cython-*, c3-usersite-cython-*). After _OwnFoldersFirst: what the
    interpreter's own folders hold never reaches it."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        # Folder by folder, in the path's order: a name pip installed in one folder let a loose
        # file of that name in an earlier folder be imported (PYTHONPATH=B:A, A's numpy
        # installed, B's numpy.py ran: the fifty-fourth adversarial pass,
        # c3-pythonpath-loose-module-passes-as-pip-installed-from-other-folder).
        if path is not None or name in sys.builtin_module_names:
            return None
        loose = None
        for folder in _user_folders:
            spec = importlib.machinery.PathFinder.find_spec(name, [folder], target)
            if spec is None:
                continue
            if name in _installed_in[folder]:
                return spec
            loose = loose or folder
        if loose is not None:
            raise ModuleNotFoundError(f"No module named {name!r} (only packages pip "
                                      f"installed are taken from {loose})", name=name)
        return None


_own_folders = [_here] + _own
_user_folders = [p for p in sys.path if p not in _own_folders]
_installed_in = {folder: _installed_names(folder) for folder in _user_folders}
sys.meta_path.insert(0, _OnlyWhatPipInstalled)
sys.meta_path.insert(0, _OwnFoldersFirst)
sys.meta_path.insert(0, _OtherPlatformsModules)

# The last word goes through memrel_outputs.last_word, where a part that leaves by os._exit says
# it too; this file's own _say_end where that module is missing (an incomplete installation,
# said below when the part imports it).
try:
    import memrel_outputs.last_word as _last_word  # noqa: E402  (the path is fixed)

    _last_word.fd = _entry_fd
    _say_end = _last_word.say
except ImportError:
    pass

if len(sys.argv) < 2:
    print("usage: memrel_entry.py PACKAGE [ARGS...]", file=sys.stderr)
    sys.exit(4)

_package = sys.argv[1]
del sys.argv[1]

import runpy  # noqa: E402  (only now: a runpy.py in the working folder is not on the path)
import warnings  # noqa: E402

# A library's warning is no line of memrel's: matplotlib's "constrained_layout not applied" came
# with a source path under -q, the run otherwise fine (the thirteenth adversarial pass,
# c9-report-history-python-warning). What goes wrong is said by memrel's own lines.
warnings.simplefilter("ignore")



import errno  # noqa: E402  (builtin)
import io  # noqa: E402  (loaded at start-up: the standard streams are made of it)


class _Stdout(io.FileIO):
    """fd 1, remembering the first error of a write to it: a flush that fails once leaves no
    trace in the stream (a second flush succeeds with nothing to write)."""
    error = None

    def write(self, data):
        try:
            return super().write(data)
        except OSError as e:
            _Stdout.error = _Stdout.error or e
            raise


# A MEMREL_PYTHON wrapper that closed standard output (`>&-`): the stream cannot be made, and a
# traceback came before memrel's line (`history changes` then exited 0: the sixty-first
# adversarial pass, c8-python-wrapper-closes-stdout-traceback). Nothing is run whose output has
# nowhere to go.
try:
    os.fstat(1)
except OSError as _closed:
    sys.stderr.write("memrel python: standard output (descriptor 1) is not open here (%s): does "
                     "MEMREL_PYTHON close it? nothing run\n" % os.strerror(_closed.errno))
    _say_end(4)
    os._exit(4)
sys.stdout = io.TextIOWrapper(io.BufferedWriter(_Stdout(1, "w", closefd=False)),
                              encoding=sys.stdout.encoding, errors=sys.stdout.errors,
                              line_buffering=sys.stdout.line_buffering)


def _stdout_error():
    """The error of writing what the package printed, None when it all reached stdout."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    return _Stdout.error


_OUT_OF_MEMORY = (b"memrel: the Python part ran out of memory (an address-space limit, ulimit -v, "
                  b"or the machine's memory)\n")

# What was printed reached stdout, or one line and exit 4, as memrel's own subcommands say it:
# `trace show > /dev/full` was a traceback and "Exception ignored" (the fourth pass, f14).
def _own_module_missing(error):
    """The name of memrel's own module that an ImportError says is missing or incomplete, else
    None (a library's own import failure stays the bug it is)."""
    name = getattr(error, "name", None) or ""
    return name if name.partition(".")[0].startswith("memrel_") else None


def _printable(text):
    """One line whatever a path holds (memrel_outputs, which says it so, may be what is missing)."""
    return "".join(c if c.isprintable() else "\\x%02x" % ord(c) if ord(c) < 256 else
                   "\\u%04x" % ord(c) for c in str(text))


try:
    runpy.run_module(_package, run_name="__main__", alter_sys=True)
    _code = 0
except SystemExit as e:
    _code = e.code
except ImportError as e:
    # A file of memrel's own missing (a copy of scripts/ half made, a package removed): its
    # installation, said in one line, not a traceback of runpy (the seventeenth adversarial
    # pass, c8-missing-outputs-package, c8-missing-*-submodule, c8-missing-memrel-help).
    _missing = _own_module_missing(e)
    if _missing is not None:
        print(f"memrel: its installation is incomplete: the module {_printable(_missing)} is "
              f"missing or broken under {_printable(_here)} ({_printable(e)}); reinstall or "
              "rebuild memrel", file=sys.stderr)
    elif getattr(e, "name", None):
        # A library the part needs and this interpreter lacks (advise's page without
        # matplotlib: an 18-line traceback, where the report said it in one line, the
        # seventeenth adversarial pass, c8-no-matplotlib-advise): the machine's install.
        print(f"memrel: {_printable(sys.executable)} cannot import {_printable(e.name)} "
              f"({_printable(e)}): run scripts/install-deps, or choose a Python that has it "
              "(MEMREL_PYTHON)", file=sys.stderr)
    else:
        raise
    _code = 4
except MemoryError:
    # The machine's limit, not a bug: under `ulimit -v` numpy's import ran out and the part died
    # with a traceback, or "exited 1" (the tenth adversarial pass, c8-import-ulimit-v-openblas).
    # The memory a traceback would need is what ran out: say it plainly, with bytes made at
    # start-up and a bare write, and end at once: sys.stderr.write itself raised MemoryError
    # there, and its traceback followed the line (CI, ulimit -v 100000).
    try:
        os.write(2, _OUT_OF_MEMORY)
        _say_end(4)
    except BaseException:  # noqa: B036  (nothing is left to say it with)
        pass
    os._exit(4)
except OSError:
    if _stdout_error() is None:
        raise
    _code = 4
_error = _stdout_error()
if _error is not None:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # what is left unwritten goes nowhere, quietly
    sys.stdout = open(os.devnull, "w")
    # A reader that left (`| head -1`) is not a failure: the part's own exit code stands, as
    # memrel's C++ subcommands have it (cli/subcommands.cpp, checked_stdout; the fifty-third
    # adversarial pass, c9-closed-stdout-pipe-two-rules).
    if getattr(_error, "errno", None) != errno.EPIPE:
        print("memrel: cannot write to standard output (%s)" % (_error.strerror or _error),
              file=sys.stderr)
        _code = 4
_say_end(_code)
sys.exit(_code)
