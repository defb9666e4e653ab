"""What the sixty-sixth adversarial pass of issue 23 found and was fixed (docs/inputs.md,
"Sixty-sixth pass"). Each test fails on the code before its fix."""

import glob
import json
import os
import subprocess
import sys

import pytest

from test_hostile_inputs import MEMREL, ROOT, needs_memrel

HOST_RUN = os.path.join(ROOT, "tests", "data", "host-run.json")
RMM_LOG = os.path.join(ROOT, "benchmarks", "trace-sources", "rmm-pool-convnet.csv")


def _matplotlibs_font_list(tmp_path):
    """The font list matplotlib writes here, as a document, and its file name."""
    made = tmp_path / "made"
    made.mkdir()
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], check=True,
                   env=dict(os.environ, MPLCONFIGDIR=str(made)), capture_output=True, timeout=120)
    lists = glob.glob(str(made / "fontlist-*.json"))
    if not lists:
        pytest.skip("matplotlib wrote no font list here")
    return json.loads(open(lists[0]).read()), os.path.basename(lists[0])


def _spoil(doc, how, tmp_path):
    if how == "fonts-true-type-by-their-first-bytes-alone":
        fake = tmp_path / "fake.ttf"
        fake.write_bytes(b"\x00\x01\x00\x00" + b"garbage" * 100)
        for entry in doc["ttflist"]:
            entry["fname"] = str(fake)
    elif how == "fields-of-the-wrong-type":
        for entry in doc["ttflist"]:
            entry["weight"] = []
    elif how == "no-fonts":
        doc["ttflist"] = []
    return doc


def ab_side_setting_is_refused(tmp_path, side, setting, words):
    """`ab --SIDE-env SETTING` is refused, exit 2, in one line naming the option and holding
    `words`, before anything is made."""
    r = subprocess.run([MEMREL, "-q", "ab", "-b", "null", "--quick", "--out", "ab",
                        f"--{side}-env", setting], capture_output=True, text=True, cwd=tmp_path,
                       timeout=300)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and f"--{side}-env" in r.stderr, r.stderr
    assert words in r.stderr, r.stderr
    assert not (tmp_path / "ab").exists()


SPOILED = ["fonts-true-type-by-their-first-bytes-alone", "fields-of-the-wrong-type", "no-fonts"]


@needs_memrel
@pytest.mark.parametrize("how", SPOILED)
def test_no_font_list_of_the_users_is_read_by_the_report(tmp_path, how):
    """c10-fontlist-entry-magic-only-exit4, c10-fontlist-entry-field-types-exit4,
    c10-fontlist-empty-ttflist-exit4: a font list in MPLCONFIGDIR whose fonts were TrueType by
    their first four bytes alone, whose entries' fields had the wrong types, or which held no font
    made the report fail, exit 4 (FT_Open_Face, TypeError, "Failed to find font DejaVu Sans"). The
    list is a cache of the user's: the report makes its own and reads none."""
    doc, name = _matplotlibs_font_list(tmp_path)
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / name).write_text(json.dumps(_spoil(doc, how, tmp_path)))
    r = subprocess.run([MEMREL, "-q", "report", "--out", "rep", HOST_RUN], capture_output=True,
                       text=True, cwd=tmp_path, timeout=300,
                       env=dict(os.environ, MPLCONFIGDIR=str(cache), TMPDIR=str(tmp_path)))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert (tmp_path / "rep" / "index.html").exists()


@needs_memrel
def test_no_font_list_of_the_users_is_read_by_advise(tmp_path):
    """c10-fontlist-magic-only-advise-exit4: the same list in XDG_CACHE_HOME/matplotlib made
    advise run its sweep and then fail, exit 4, with no advise.html."""
    doc, name = _matplotlibs_font_list(tmp_path)
    cache = tmp_path / "xdg" / "matplotlib"
    cache.mkdir(parents=True)
    (cache / name).write_text(json.dumps(_spoil(doc, SPOILED[0], tmp_path)))
    env = {k: v for k, v in os.environ.items() if k != "MPLCONFIGDIR"}
    env.update(XDG_CACHE_HOME=str(tmp_path / "xdg"), TMPDIR=str(tmp_path))
    r = subprocess.run([MEMREL, "-q", "advise", RMM_LOG, "-b", "null", "--out", "adv"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "adv" / "advise.html").exists()


@needs_memrel
@pytest.mark.parametrize("setting", ["LD_LIBRARY_PATH=/usr/lib:", "LD_LIBRARY_PATH=:",
                                     "LD_LIBRARY_PATH=.", "LD_LIBRARY_PATH=lib:/usr/lib",
                                     "LD_LIBRARY_PATH={cwd}", "PATH=/usr/bin::/bin"])
@pytest.mark.parametrize("side", ["candidate", "reference"])
def test_ab_takes_no_search_path_of_the_working_folder_for_a_side(tmp_path, setting, side):
    """c3-ab-candidate-env-ld-library-path-empty-entry-loads-cwd-library: `ab --candidate-env
    LD_LIBRARY_PATH=/usr/lib:` (an empty entry: the working folder to the dynamic linker) made the
    candidate's memrel_bench load ./libpwn.so (with LD_PRELOAD=libpwn.so) or a fake
    ./libbenchmark.so, where the same value in memrel's own environment is cleaned for children
    (docs/inputs.md, "Code"). A side's search path is refused, exit 2, before any round."""
    ab_side_setting_is_refused(tmp_path, side, setting.format(cwd=tmp_path), "working folder")


@needs_memrel
@pytest.mark.parametrize("command", [["report", "--out", "rep", "/dev/stdin"],
                                     ["trace", "import", "/dev/stdin", "-o", "o.memtrace"]])
def test_dev_stdin_that_is_a_device_is_named_as_given(tmp_path, command):
    """c10-report-names-stdin-target (arguable): `memrel report /dev/stdin < /dev/null` said
    "/dev/null: a character device", a file the user never named, where compare names /dev/stdin
    and a pipe behind /dev/stdin is named so (the sixty-third pass)."""
    with open(os.devnull) as null:
        r = subprocess.run([MEMREL, *command], stdin=null, capture_output=True, text=True,
                           cwd=tmp_path, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert "/dev/stdin: a character device, not a regular file" in r.stderr, r.stderr
    assert not (tmp_path / "o.memtrace").exists() and not (tmp_path / "rep").exists()
