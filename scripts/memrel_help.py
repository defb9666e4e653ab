"""One help layout for every memrel subcommand: the Python ones (report, trace, history
changes) print theirs as the C++ ones do (CLI11): the description, then "Usage: memrel X ...",
"Positionals:", "Options:", and the exit codes last. Installed beside the packages
(share/memrel/python), which import it from memrel's Python folder on PYTHONPATH."""

import argparse

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


class ArgumentParser(argparse.ArgumentParser):
    """argparse with CLI11's layout and wording; subparsers are made of this class too."""

    def __init__(self, **kwargs):
        kwargs.setdefault("formatter_class", _Formatter)
        kwargs["add_help"] = False
        super().__init__(**kwargs)
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


def verbosity(args):
    """-1 after -q, 1 after -v, 0 when neither was given (as memrel's GlobalOptions)."""
    return getattr(args, "verbosity", 0)
