"""One help layout for every memrel subcommand: the Python ones (report, trace, history
changes) print theirs as the C++ ones do (CLI11): the description, then "Usage: memrel X ...",
"Positionals:", "Options:", and the exit codes last. Installed beside the packages
(share/memrel/python), which import it from memrel's Python folder on PYTHONPATH."""

import argparse
import re

_HEADINGS = {"positional arguments": "Positionals", "options": "Options",
             "optional arguments": "Options"}


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog):
        super().__init__(prog, max_help_position=30, width=100)

    def add_usage(self, usage, actions, groups, prefix=None):
        # prefix "" is argparse naming a subparser's prog, not a usage line.
        return super().add_usage(usage, actions, groups, "Usage: " if prefix is None else prefix)

    def start_section(self, heading):
        return super().start_section(_HEADINGS.get(heading, heading))


class _StoreOnce(argparse._StoreAction):
    """An option that takes one value, given once: `--out a --out b` wrote b and never a, where
    the C++ subcommands refuse it (CLI11: "At Most 1 required but received 2"; the twenty-second
    adversarial pass, c10-python-repeated-option-last-wins)."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string is not None:
            if self.dest in parser.memrel_given:
                parser.error(f"{option_string}: given twice; give it once")
            parser.memrel_given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with CLI11's layout and wording; subparsers are made of this class too. Options
    are spelled whole (`--ou` for `--out` is refused, as CLI11 refuses it) and a single-value
    option is given once (_StoreOnce)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        kwargs["add_help"] = False
        kwargs["allow_abbrev"] = False
        super().__init__(**kwargs)
        self.register("action", None, _StoreOnce)
        self.register("action", "store", _StoreOnce)
        self.memrel_given = set()
        self.add_argument("-h", "--help", action="help", help="Print this help message and exit")
        # The -q/-v of every memrel subcommand, worded as memrel's (cli/subcommands.cpp); memrel
        # passes one given before the subcommand on. SUPPRESS: a subparser's default must not
        # undo the value its parent parsed; read it with verbosity(args).
        self.add_argument("-q", "--quiet", dest="verbosity", action="store_const", const=-1,
                          default=argparse.SUPPRESS,
                          help="No progress lines (errors and the results' path still print)")
        self.add_argument("-v", "--verbose", dest="verbosity", action="store_const", const=1,
                          default=argparse.SUPPRESS,
                          help="A progress line for every cell (default: on a terminal; elsewhere "
                               "only lines worth reading)")

    def format_help(self):
        # CLI11's order: what the command does first, then how to call it.
        formatter = self._get_formatter()
        formatter.add_text(self.description)
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups)
        for group in self._action_groups:
            formatter.start_section(group.title)
            formatter.add_text(group.description)
            formatter.add_arguments(group._group_actions)
            formatter.end_section()
        formatter.add_text(self.epilog)
        return formatter.format_help()

    def parse_known_args(self, args=None, namespace=None):
        self.memrel_given = set()
        return super().parse_known_args(args, namespace)

    def error(self, message):
        """One line, exit 2, as the C++ subcommands say a usage error (docs/inputs.md, "Leftovers
        and one-line errors"): argparse's own is the usage block and the error, four lines.
        A byte of an argument that is not UTF-8 is said as \\xHH, as everywhere else in memrel:
        Python holds it as a lone surrogate, which argparse's repr() showed as '\\udcff', and
        its own words raw (the fifty-sixth adversarial pass,
        c9-python-usage-error-surrogate-escape)."""
        from memrel_outputs.one_line import one_line

        message = _REPR_SURROGATE.sub(lambda m: f"{m[1]}\\x{m[2]}", one_line(message))
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


# A lone surrogate as repr() writes it (\udc80 to \udcff), not itself escaped (\\udcff is the
# text "\udcff" the user typed).
_REPR_SURROGATE = re.compile(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])")


# Numbers on the command line by one rule for every Python subcommand (docs/inputs.md, "Numbers
# on the command line"): ASCII digits only, so that int()'s and float()'s leniency (`1_000`,
# `+5`, ` 7`, other scripts' digits such as `١٢`) and an empty value, which would mean "not
# given", are refused; a float is finite.
# No leading zero: the C++ options' parser (CLI11) reads `010` as octal, int() as 10.
_INT = r"-?(0|[1-9][0-9]*)"
_FLOAT = r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?"


# The longest spelling of a number memrel reads (cli/number_spelling.cpp, kLongestNumber): the
# C++ matcher recurses per character.
LONGEST_NUMBER = 1000


def _refuse_long(text):
    if len(text) > LONGEST_NUMBER:
        raise argparse.ArgumentTypeError(f"{text[:40]!r}... ({len(text)} characters) is longer "
                                         f"than any number memrel reads ({LONGEST_NUMBER} "
                                         "characters at most)")


def whole_number(text):
    import re

    _refuse_long(text)
    if not re.fullmatch(_INT, text, flags=re.ASCII):
        raise argparse.ArgumentTypeError(f"{text!r}: not a whole number (ASCII digits, no leading zero)")
    _refuse_negative_zero(text)
    return int(text)


def _refuse_negative_zero(text):
    """"-0" is 0 to int() and float(), and so within a range from 0: a sign no range from 0
    allows, refused as the C++ options refuse it (cli/threshold_options.hpp; the twenty-second
    adversarial pass, c4-trace-import-device)."""
    if text.startswith("-") and float(text) == 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a negative sign on zero")


whole_number.__name__ = "whole number"


def utf8_text(text):
    """An option's text as UTF-8: a byte that is none (argv's surrogate escapes) reached SQLite
    and ended in a traceback (the fiftieth adversarial pass,
    c9-history-changes-match-non-utf8-traceback)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise argparse.ArgumentTypeError(f"{text.encode('utf-8', 'surrogateescape')!r}: not UTF-8 "
                                         f"text (byte {e.start + 1})") from None
    return text


utf8_text.__name__ = "UTF-8 text"


def finite_number(text):
    import math
    import re

    _refuse_long(text)
    if not re.fullmatch(_FLOAT, text, flags=re.ASCII) or not math.isfinite(float(text)):
        raise argparse.ArgumentTypeError(f"{text!r}: not a finite number (ASCII digits)")
    # A value too small for a double reads as 0 ("1e-999"): a threshold meant to be on would be
    # off, as the C++ options refuse it (cli/threshold_options.hpp; the eighteenth adversarial
    # pass, c4-hist-minmag).
    mantissa = re.split("[eE]", text)[0]
    if float(text) == 0 and re.search("[1-9]", mantissa):
        raise argparse.ArgumentTypeError(f"{text!r}: too small for a number here (it reads as 0)")
    _refuse_negative_zero(text)
    value = _Written(text)
    value.text = text
    return value


finite_number.__name__ = "finite number"


class _Written(float):
    """A number that keeps its text, so that a range is checked against what was written: a float
    reads 10.0000000000000000001 as 10 (see outside)."""
    text = None


def outside(value, low, high):
    """Whether value lies outside [low, high] as it was written, exactly (a finite_number's text):
    `--min-magnitude 10.0000000000000000001` was 10 as a float and taken (the seventy-eighth
    adversarial pass, c4-threshold-past-bound-rounds-in), as the C++ options now compare their
    text with their bounds (platform/decimal_text.hpp)."""
    import decimal

    if not low <= value <= high:
        return True
    text = getattr(value, "text", None)
    if text is None:
        return False
    # As many digits as the text has: the default context's 28 rounded 10.000...0001 (30
    # digits) onto 10.
    exact = decimal.Context(prec=len(text) + 2, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    try:
        written = exact.create_decimal(text)
    except decimal.InvalidOperation:  # an exponent past even Decimal's: the float decides
        return False
    return not decimal.Decimal(repr(low)) <= written <= decimal.Decimal(repr(high))


def _refuse_empty(parser, action, arg_strings):
    """An empty value means nothing: refused for every option and positional, as the C++
    subcommands refuse it (docs/inputs.md, "Empty values"); `--markdown ''` wrote nothing and
    said nothing, `--byte-tolerance ''` meant the default."""
    if any(isinstance(a, str) and a == "" for a in arg_strings):
        name = action.option_strings[-1] if action.option_strings else action.metavar or action.dest
        parser.error(f"{name}: an empty value: give one, or leave the option out")


_argparse_get_values = argparse.ArgumentParser._get_values


def _get_values(self, action, arg_strings):
    if not isinstance(action, argparse._SubParsersAction):  # the subcommand's parser says it
        _refuse_empty(self, action, arg_strings)
    return _argparse_get_values(self, action, arg_strings)


ArgumentParser._get_values = _get_values

def verbosity(args):
    """-1 after -q, 1 after -v, 0 when neither was given (as memrel's GlobalOptions)."""
    return getattr(args, "verbosity", 0)
