"""No binary memrel builds searches the working folder for a library (docs/inputs.md, "Code from
the current folder"): CMake padded the build tree's run paths with ':' so that install could
rewrite them in place, and an empty entry is the working folder to the dynamic linker, searched
before its cache (the sixth adversarial pass: a libsqlite3.so.0 in the working folder ran)."""
import glob
import os
import shutil
import subprocess

import pytest

from conftest import memrel_binary

MEMREL = memrel_binary()
needs_memrel = pytest.mark.skipif(MEMREL is None, reason="memrel is not built")


def run_path(elf):
    """The DT_RUNPATH (or DT_RPATH) of ELF as its entries; None when it has none."""
    out = subprocess.run(["readelf", "-d", elf], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if "(RUNPATH)" in line or "(RPATH)" in line:
            return line.split("[", 1)[1].rsplit("]", 1)[0].split(":")
    return None


@needs_memrel
@pytest.mark.skipif(shutil.which("readelf") is None, reason="readelf (binutils) is not installed")
def test_no_built_binary_has_an_empty_or_relative_run_path_entry():
    build = os.path.dirname(MEMREL)
    elves = [MEMREL] + glob.glob(os.path.join(build, "*.so")) + \
        glob.glob(os.path.join(build, "benchmarks", "memrel_bench"))
    checked = 0
    for elf in elves:
        entries = run_path(elf)
        if entries is None:
            continue
        checked += 1
        bad = [e for e in entries if not e.startswith("/")]
        assert not bad, f"{elf}: run path {':'.join(entries)!r} holds {bad!r}: the working folder"
    assert checked, "no built binary has a run path: nothing was checked"


@needs_memrel
@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to build the planted library")
def test_a_library_in_the_working_folder_is_not_loaded(tmp_path):
    needed = subprocess.run(["readelf", "-d", MEMREL], capture_output=True, text=True,
                            check=True).stdout
    names = [line.split("[", 1)[1].split("]")[0] for line in needed.splitlines()
             if "(NEEDED)" in line]
    # A library memrel needs that the system's cache holds (libsqlite3.so.0 here): a planted
    # copy in the working folder is found first if any run path entry means the working folder.
    planted = tmp_path / "planted.c"
    marker = tmp_path / "RAN"
    planted.write_text('#include <stdio.h>\n__attribute__((constructor)) static void ran(void) '
                       f'{{ fclose(fopen("{marker}", "w")); }}\n')
    # Not the C and C++ runtimes: a planted libc would end the process before any constructor.
    core = ("libc.", "libm.", "libgcc_s", "libstdc++", "ld-linux", "libpthread", "libdl.", "librt.")
    names = [n for n in names if not n.startswith(core)]
    assert names, "memrel needs no library but the C and C++ runtimes: nothing to plant"
    for name in names:
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(tmp_path / name), str(planted)],
                       check=True)
    subprocess.run([MEMREL, "--version"], cwd=tmp_path, capture_output=True, timeout=60)
    assert not marker.exists(), "a library planted in the working folder was loaded"
