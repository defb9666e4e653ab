"""Command line: python3 -m memrel_trace import FILE -o TRACE [--device N] [--name NAME]
                python3 -m memrel_trace show TRACE [--events]

Exit codes: 0 written; 2 unusable input (one line on stderr naming the file and the entry;
nothing written); 4 internal error. `memrel trace ...` runs this (cli/trace_command.cpp).
"""

import argparse
import datetime
import gc
import hashlib
import json
import os
import signal
import sys

import memrel_outputs
from memrel_outputs import memrel_kinds
from memrel_outputs import last_word, standard_output
from memrel_outputs.file_name_text import as_text  # the C++ tools' path_for_json, in Python
from memrel_outputs.one_line import one_line

from . import MAGIC, SCHEMA, builder as builder_module, rmm_log, torch_snapshot, trace_file, workloads_folder

MAX_DEVICE = 1023  # CUDA device indices; no machine has more
from .builder import TraceBuilder
from .errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, AddressSpaceTooSmall, TraceInputError
from .name_characters import forbidden_name_character
from .source_file import open_source

import memrel_help  # the help layout of every memrel subcommand (scripts/memrel_help.py)

# `run -w x.pickle` imports with the file's name too, and has no --name: "give --name" sent its
# user to an option run lacks (the twenty-second adversarial pass, c10-run-pickle-name-hint).
_NAME_HINT = "; rename the file, or import it with `memrel trace import --name NAME`"


def parser():
    p = memrel_help.ArgumentParser(
        prog="memrel trace",
        description=f"Import allocation traces of real programs into {SCHEMA} (docs/traces.md).",
        epilog="Exit codes: 0 written; 2 unusable input (one line naming the file and the entry, "
               "nothing written); 4 internal error.")
    sub = p.add_subparsers(dest="command", required=True)
    i = sub.add_parser("import", help="a PyTorch snapshot pickle or an RMM log CSV into a trace",
                       description="Reads a PyTorch memory snapshot (torch.cuda.memory."
                                   "_dump_snapshot) or an RMM logging_resource_adaptor CSV and "
                                   f"writes {SCHEMA}, atomically. A pickle that names any global "
                                   "is refused and nothing in it runs.")
    i.add_argument("file", metavar="FILE", help="snapshot .pickle or RMM log .csv (told by content)")
    i.add_argument("-o", "--out", required=True, metavar="TRACE", help="the trace to write (.memtrace)")
    i.add_argument("--device", type=memrel_help.whole_number, default=0, metavar="N",
                   help="the device whose trace to replay (a snapshot holds one per device; default 0)")
    i.add_argument("--name", help="the workload name in results (default: FILE's name without extension)")
    s = sub.add_parser("show", help="a trace's header, and its events with --events")
    s.add_argument("trace", metavar="TRACE")
    s.add_argument("--events", action="store_true", help="also print every event, one a line")
    return p


def _sha256(path):
    digest, size = hashlib.sha256(), 0
    f, _ = open_source(path)
    with f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def _version(path):
    """What tells one content of path from another without reading it: its identity, size and
    modification and change times (as run's FilesUnchanged tells them)."""
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


class _CannotWrite(Exception):
    pass


def _refuse_other_memrel_kind(path, head):
    """memrel's own other kinds named by their first bytes, as every reader names them
    (memrel_outputs.memrel_kinds): a history named h.csv was "neither a PyTorch snapshot
    pickle nor an RMM log", a journal named j.pickle "truncated or malformed pickle" (the
    seventy-ninth adversarial pass, c10-importer-misnames-kind)."""
    what = "PyTorch snapshot or an RMM log"
    if memrel_kinds.is_history(head):
        raise TraceInputError(path, "", memrel_kinds.history_words(what))
    if memrel_kinds.is_journal(head):
        raise TraceInputError(path, "", memrel_kinds.journal_words(what))
    # A JSON document (a results file, a workload): said so, as the trace loader says it.
    if memrel_kinds.is_json_document(head):
        raise TraceInputError(path, "", "a JSON document (a workload or a results file?), not a "
                                        "PyTorch snapshot or an RMM log: a workload runs as it is "
                                        "(-w), a results file is read by compare and report")


def import_trace(args):
    if args.name is not None:
        try:
            args.name.encode("utf-8")
        except UnicodeEncodeError:  # i14: a --name the loader would refuse
            raise TraceInputError("--name", "", f"'{as_text(args.name)}' is not UTF-8 text: the "
                                                "trace's loader could not read it; give a name in "
                                                "UTF-8") from None
    f, source_bytes = open_source(args.file)  # a regular file under the cap, before a byte is read
    builder_module.use_numpy_for(source_bytes)
    with f:
        # A journal's header line, for _refuse_other_memrel_kind: it holds the run's whole
        # context (the eighty-first adversarial pass, c10-journal-unnamed-by-advise-and-trace).
        head = f.read(memrel_kinds.HEAD_BYTES)
    # Told by content before the name: a memrel trace named t.pickle was "truncated or malformed
    # pickle (UnicodeDecodeError ...)" (the fifty-fifth adversarial pass,
    # c10-import-trace-named-pickle), as the other readers name it (read_input_json).
    if head.startswith(MAGIC):
        raise TraceInputError(args.file, "", "a memrel trace already (it begins with MEMTRACE), "
                                             "not a PyTorch snapshot or an RMM log: nothing to "
                                             "import; a trace is a workload (-w)")
    _refuse_other_memrel_kind(args.file, head)
    if rmm_log.is_rmm_log(head):
        source = rmm_log
    elif torch_snapshot.is_snapshot(args.file, head):
        source = torch_snapshot
    else:
        raise TraceInputError(args.file, "", "neither a PyTorch snapshot pickle nor an RMM log "
                                             f"(a CSV whose header is {rmm_log.HEADER})")
    # A CUDA device index: the loader reads it as a small integer, and 2^53 or more was written,
    # then refused by every run or read back wrapped (the eleventh adversarial pass,
    # c7-import-device-*).
    if not 0 <= args.device <= MAX_DEVICE:
        raise TraceInputError(args.file, "--device", f"{args.device}: must be a whole number from 0 "
                                                     f"to {MAX_DEVICE}")
    try:  # the output rule (docs/inputs.md, "Outputs"): not a link or device, not FILE itself
        memrel_outputs.check_file(args.out, [args.file], adds_workloads=True)
        memrel_outputs.check_writable(args.out)  # before the work, as every writer
    except memrel_outputs.OutputRuleError as e:
        raise TraceInputError(f"-o {e.path}", "", e.message) from None
    name = args.name or as_text(os.path.splitext(os.path.basename(args.file))[0])
    if bad := forbidden_name_character(name):  # refused by every reader (name_characters.py)
        where = ("--name", "") if args.name else (args.file, "the name from the file name")
        raise TraceInputError(*where, f"holds {bad}, a control, invisible, text-direction or noncharacter "
                                      "code point: a name holds none"
                                      + ("" if args.name else _NAME_HINT))
    if "[" in name or "]" in name:  # as a workload's name (harness/workload/workload.cpp)
        where = ("--name", "") if args.name else (args.file, "the name from the file name")
        raise TraceInputError(*where, f"'{name}' may not contain '[' or ']' (used for group "
                                      "members)" + ("" if args.name else _NAME_HINT))
    if (folder := memrel_outputs.workloads_folder_holding(args.out)) is not None:
        if taken := workloads_folder.workload_taking(name, args.out, folder):
            where = ("--name", "") if args.name else (args.file, "the name from the file name")
            other, other_name = taken
            twin = other_name == name
            same = "is the name of" if twin else f"shares a report page with '{other_name}',"
            raise TraceInputError(*where, f"'{name}' {same} {as_text(other)} in the workloads "
                                          f"folder {as_text(folder)}: every memrel run would refuse "
                                          f"two workloads of one {'name' if twin else 'page'}" +
                                          ("; give another --name" if args.name else _NAME_HINT))
    builder = TraceBuilder()
    # The file as it was before the read, to be the same after the hash: rewritten in place while
    # it was read, the trace held the old content under the new content's sha256 and size (the
    # forty-third adversarial pass, c7-trace-import-source-changed-while-read). ctime is the
    # kernel's: no writer keeps it.
    before = _version(args.file)
    try:
        live_at_end, held, facts = source.read(args.file, args.device, builder)
        records, built = builder.finish(live_at_end, final_reserved=held)
    except OverflowError as e:
        raise TraceInputError(args.file, "", f"too large to replay: {e}") from None
    sha256, size = _sha256(args.file)
    if _version(args.file) != before:
        raise TraceInputError(args.file, "", "changed while it was read: import it again once "
                                             "nothing writes it")
    header = {
        "schema": SCHEMA,
        "name": name,
        "source": {"format": facts.pop("source_format"), "file": as_text(os.path.basename(args.file)),
                   "bytes": size, "sha256": sha256},
        "provenance": dict(facts, imported_by="memrel trace import",
                           imported_at=datetime.datetime.now(datetime.timezone.utc)
                           .strftime("%Y-%m-%dT%H:%M:%SZ")),
        "device": args.device,
        "record_bytes": 16,
        **built,
    }
    try:
        trace_file.write(args.out, header, records)
    except memrel_outputs.OutputRuleError as e:
        raise TraceInputError(f"-o {e.path}", "", e.message) from None
    except trace_file.TooLargeForTheLoader as e:
        raise TraceInputError(args.file, "", f"cannot be imported: {e}; nothing written") from None
    except OSError as e:
        if e.errno in memrel_outputs.MACHINE_STATE_ERRNOS:  # not a bad -o: exit 4
            raise _CannotWrite(f"{args.out}: cannot write ({e.strerror or e}); nothing written") from None
        raise TraceInputError(args.out, "", f"cannot write ({e.strerror or e}); nothing written") from None
    c = built["counts"]
    print(f"{one_line(args.out)}: {c['events']} events ({c['allocs']} allocs, {c['allocated_at_start']} "
          f"of them at the start, {c['freed_at_end']} frees at the end), peak requested "
          f"{built['peak_requested_bytes']} bytes at event {built['peak_requested_event']}, "
          f"{c['marks']} marks")


def show(args):
    try:
        header, records = trace_file.read(args.trace)
    except (OSError, ValueError, KeyError) as e:
        raise TraceInputError(args.trace, "", e) from None
    print(json.dumps(header, indent=1))
    if args.events:
        for op, block, size in records:
            print(f"{'alloc' if op == 1 else 'free'} {block} {size}")


class _Stopped(BaseException):
    def __init__(self, signal_number):
        super().__init__(signal_number)
        self.signal_number = signal_number


def _stop(signal_number, frame):
    raise _Stopped(signal_number)
def _drop_stdout():
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv=None):
    args = parser().parse_args(argv)  # usage errors exit 2 (argparse)
    # SIGTERM and SIGHUP unwind like Ctrl-C, so a half-written trace is removed on the way out.
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _stop)
    # A snapshot is millions of small dicts that live until the end: the cyclic collector would
    # walk them again and again while they are made (a third of the import), and finds nothing.
    gc.disable()
    try:
        (import_trace if args.command == "import" else show)(args)
    except TraceInputError as e:
        print(f"memrel trace: {one_line(e)}", file=sys.stderr)
        return EXIT_INPUT
    except (_CannotWrite, AddressSpaceTooSmall) as e:
        print(f"memrel trace: {one_line(e)}", file=sys.stderr)
        return EXIT_INTERNAL
    except KeyboardInterrupt:
        print("memrel trace: interrupted; nothing written", file=sys.stderr)
        return 130
    except _Stopped as e:
        print(f"memrel trace: stopped by {signal.Signals(e.signal_number).name}; nothing written",
              file=sys.stderr)
        return 128 + e.signal_number
    except BrokenPipeError:
        # The reader stopped early (`memrel trace show T --events | head`): what it wanted was
        # printed. Not an error; the rest of the output goes nowhere, so that the final flush
        # does not fail again.
        _drop_stdout()
        return EXIT_OK
    except MemoryError:
        raise  # the machine's limit, said by memrel_entry.py without allocating
    except Exception as e:  # a bug here, not bad input: one line, its own exit code
        if isinstance(e, OSError) and standard_output.writing_failed():
            raise  # stdout failed: said by memrel_entry.py, in its one line
        print(f"memrel trace: internal error: {type(e).__name__}: {' '.join(str(e).split())}",
              file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_OK


if __name__ == "__main__":
    code = main()
    # Leave without freeing a snapshot's millions of dicts one by one (a fifth of a second per
    # million entries): the process ends here anyway, and the output is already on disk.
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
    sys.stderr.flush()
    last_word.say(code)  # memrel_entry.py's own last word is not reached past os._exit
    os._exit(code)
