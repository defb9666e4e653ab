"""scripts/check-format, the formatting gate of scripts/test, run on a throwaway repository."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("clang-format") is None or shutil.which("git") is None,
                                reason="clang-format or git not installed (scripts/install-deps)")


def make_repo(tmp_path, source):
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "check-format", tmp_path / "scripts" / "check-format")
    shutil.copy(ROOT / ".clang-format", tmp_path / ".clang-format")
    (tmp_path / "a.cpp").write_text(source)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return subprocess.run(["bash", str(tmp_path / "scripts" / "check-format")],
                          capture_output=True, text=True)


def test_a_deviating_file_fails_the_check_and_is_named(tmp_path):
    result = make_repo(tmp_path, "int  main( ){return 0;}\n")
    assert result.returncode == 1
    assert "a.cpp" in result.stderr


def test_a_formatted_file_passes(tmp_path):
    result = make_repo(tmp_path, "int main() { return 0; }\n")
    assert result.returncode == 0, result.stderr
