"""What the sixty-third adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Sixty-third pass"). Each test fails on the code before its fix."""

import glob
import json
import os
import subprocess
import sys

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")
RMM_HEADER = "Thread,Time,Action,Pointer,Size,Stream\n"
RMM_LINE = "1,08:09:22.861542,allocate,0x10,100,0x1\n"


def memrel(tmp_path, *args, env=None, **kwargs):
    return subprocess.run([MEMREL, *map(str, args)], capture_output=True, text=True, cwd=tmp_path,
                          timeout=300, env=env, **kwargs)


def refused_in_one_line(r, *words):
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    for word in words:
        assert word in r.stderr, r.stderr


@needs_memrel
@pytest.mark.parametrize("option", ["--bench", "--baseline-verdict", None])
def test_a_deep_document_ending_in_a_newline_is_refused_by_its_depth(tmp_path, option):
    """c10-report-journal-sniff-deep-json-exit4: a document nested 200000 deep with a newline
    after it was "internal error: RecursionError", exit 4 (the check for a journal's header line
    caught ValueError only); without the newline it was "nested deeper than 512 levels"."""
    (tmp_path / "deep.json").write_text('{"x":' + "[" * 200000 + "]" * 200000 + "}\n")
    args = [option, "deep.json"] if option else ["deep.json"]
    if option:  # beside a results file, which the report needs
        args = [HOST_RUN] + args
    refused_in_one_line(memrel(tmp_path, "report", "--out", "rep", *args), "deep.json", "deeper")
    assert not (tmp_path / "rep").exists()


def _font_cache(tmp_path, name, text):
    cache = tmp_path / "cache"
    cache.mkdir(exist_ok=True)
    (cache / name).write_text(text)
    return dict(os.environ, MPLCONFIGDIR=str(cache), TMPDIR=str(tmp_path))


@needs_memrel
def test_a_font_cache_nested_too_deep_is_passed_over(tmp_path):
    """c10-fontlist-deep-json-exit4 (and advise's page, -advise-exit4): a fontlist-*.json nested
    200000 deep in the user's matplotlib cache was "internal error: RecursionError", no report."""
    env = _font_cache(tmp_path, "fontlist-v390.json", "[" * 200000 + "]" * 200000)
    r = memrel(tmp_path, "-q", "report", "--out", "rep", HOST_RUN, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "rep" / "index.html").exists()


@needs_memrel
def test_a_font_cache_naming_a_file_that_is_no_font_is_passed_over(tmp_path):
    """c10-fontlist-entry-not-a-font-exit4: a current font list whose DejaVu Sans entries named
    an empty .ttf made matplotlib fail (FT_Open_Face), exit 4: the list is a cache, taken only
    when every font file it names that is there is a font."""
    made = tmp_path / "made"
    made.mkdir()
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], check=True,
                   env=dict(os.environ, MPLCONFIGDIR=str(made)), capture_output=True)
    lists = glob.glob(str(made / "fontlist-*.json"))
    if not lists:
        pytest.skip("matplotlib wrote no font list here")
    doc = json.loads(open(lists[0]).read())
    (tmp_path / "empty.ttf").write_bytes(b"")
    for entry in doc["ttflist"]:
        if "DejaVuSans" in entry["fname"]:
            entry["fname"] = str(tmp_path / "empty.ttf")
    env = _font_cache(tmp_path, os.path.basename(lists[0]), json.dumps(doc))
    r = memrel(tmp_path, "-q", "report", "--out", "rep", HOST_RUN, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "rep" / "index.html").exists()


@needs_memrel
@pytest.mark.parametrize("command", [["trace", "import", "/dev/stdin", "-o", "o.memtrace"],
                                     ["report", "--out", "rep", "/dev/stdin"]])
def test_a_pipe_given_as_dev_stdin_to_a_python_part_is_named_a_fifo(tmp_path, command):
    """c7-dev-stdin-pipe-told-char-device: `cat in.csv | memrel trace import /dev/stdin` was
    "/dev/stdin: a character device" (the part's own /dev/null), where validate, run and compare
    say "a FIFO" of the same input."""
    text = RMM_HEADER + RMM_LINE if command[0] == "trace" else open(HOST_RUN).read()
    r = memrel(tmp_path, *command, input=text)
    refused_in_one_line(r, "/dev/stdin: a FIFO, not a regular file")
    assert not (tmp_path / "o.memtrace").exists() and not (tmp_path / "rep").exists()


@needs_memrel
@pytest.mark.parametrize("value", ["05", "010", "0001"])
def test_run_timeout_with_a_leading_zero_is_refused(tmp_path, value):
    """c4-run-timeout-leading-zero-taken: `run --timeout 05` was read as 5 s, where bench's and
    advise's --timeout refuse a leading zero."""
    refused_in_one_line(memrel(tmp_path, "run", "-b", "null", "--include-null", "-w",
                               "temp-then-delete", "-o", "r.json", "--timeout", value),
                        "--timeout", "no leading zero")
    assert not (tmp_path / "r.json").exists()


@needs_memrel
def test_bench_arg_repetitions_with_a_leading_zero_is_refused(tmp_path):
    """c4-bench-arg-repetitions-leading-zero-taken: --bench-arg=--benchmark_repetitions=05 was
    passed on as it was, exit 0."""
    refused_in_one_line(memrel(tmp_path, "bench", "-b", "null", "--quick", "-o", "bo",
                               "--bench-arg=--benchmark_repetitions=05"),
                        "--benchmark_repetitions=05", "no leading zero")
    assert not (tmp_path / "bo").exists()


def _segv_wrapper(tmp_path):
    wrapper = tmp_path / "w.sh"
    wrapper.write_text(f'#!/bin/bash\n{sys.executable} "$@"; r=$?\n'
                       'case "$*" in *memrel_entry*) kill -SEGV $$;; esac\nexit $r\n')
    wrapper.chmod(0o755)
    return dict(os.environ, MEMREL_PYTHON=str(wrapper))


@needs_memrel
def test_a_wrapper_killed_after_a_refusal_leaves_the_refusal_alone(tmp_path):
    """c8-python-wrapper-segv-after-part-two-lines: a wrapper that died of SIGSEGV after memrel's
    code refused the input gave the refusal and "ended by SIGSEGV", exit 4."""
    (tmp_path / "bad.csv").write_text(RMM_HEADER + "bad\n")
    r = memrel(tmp_path, "trace", "import", "bad.csv", "-o", "b.memtrace",
               env=_segv_wrapper(tmp_path))
    refused_in_one_line(r, "bad.csv")
    assert not (tmp_path / "b.memtrace").exists()


@needs_memrel
def test_a_wrapper_killed_after_a_success_says_the_outputs_are_in_place(tmp_path):
    """The same wrapper after a trace was written: "ended by SIGSEGV" alone, the trace in place
    unsaid; now said as a wrapper's exit is."""
    (tmp_path / "ok.csv").write_text(RMM_HEADER + RMM_LINE)
    r = memrel(tmp_path, "trace", "import", "ok.csv", "-o", "o.memtrace",
               env=_segv_wrapper(tmp_path))
    assert r.returncode == 4, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert ("ended by SIGSEGV, but memrel's code ended with 0, its outputs in place"
            in r.stderr), r.stderr
    assert (tmp_path / "o.memtrace").exists()
