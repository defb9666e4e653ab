"""The C++ and the Python subcommands spell numbers alike (docs/inputs.md, "Numbers on the
command line"): cli/number_spelling.cpp holds the patterns of scripts/memrel_help.py."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_cpp_number_patterns_are_the_python_ones():
    import sys

    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        import memrel_help
    finally:
        sys.path.pop(0)
    with open(os.path.join(ROOT, "cli", "number_spelling.cpp"), encoding="utf-8") as f:
        cpp = f.read()
    literals = [bytes(m, "ascii").decode("unicode_escape")
                for m in re.findall(r'std::regex pattern\{"((?:[^"\\]|\\.)*)"\}', cpp)]
    assert literals == [memrel_help._INT, memrel_help._FLOAT]
