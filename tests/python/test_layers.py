"""The layer rule of docs/design.md, enforced: every #include of memrel's own headers points down.

    platform <- allocators <- harness <- gate <- cli;   benchmarks: allocators, platform

A file may include its own layer and the layers below it, never one above. CLI11 belongs to the
command line alone; the CUDA runtime's headers to platform, the CUDA backends and the pluggable
backends (device fills, the CUDA example library). tests/ may include anything. The check reads
the sources, so it fails on the commit that breaks the rule, before any link error could say so
(or fail to, when a header-only include slips through).
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Each layer and the layers it may include (itself included).
ALLOWED = {
    "platform": {"platform"},
    "allocators": {"allocators", "platform"},
    "harness": {"harness", "allocators", "platform"},
    "gate": {"gate", "harness", "allocators", "platform"},
    "cli": {"cli", "gate", "harness", "allocators", "platform"},
    "benchmarks": {"benchmarks", "allocators", "platform"},
}
# System headers that only some layers may use, and which.
RESTRICTED_SYSTEM = {
    "CLI/": {"cli"},
    "cuda_runtime": {"platform", "allocators/cuda", "allocators/torch", "allocators/pluggable",
                     "allocators/rmm"},
}
SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".cu", ".cuh"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.MULTILINE)


def layer_of(relative):
    """'gate/rules/x.cpp' -> 'gate'; None for files outside the layers (tests, docs)."""
    top = relative.parts[0]
    return top if top in ALLOWED else None


def violations(root):
    """Every include of a layered file that breaks the rule, as 'FILE:LINE: why'."""
    found = []
    for layer in ALLOWED:
        for path in sorted((root / layer).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            relative = path.relative_to(root)
            text = path.read_text(encoding="utf-8", errors="replace")
            for match in INCLUDE.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                quote, target = match.groups()
                where = f"{relative}:{line}"
                if quote == '"':
                    target_layer = target.split("/", 1)[0]
                    if target_layer in ALLOWED and target_layer not in ALLOWED[layer]:
                        found.append(f'{where}: {layer} includes "{target}" from the '
                                     f"{target_layer} layer above it")
                    continue
                for prefix, owners in RESTRICTED_SYSTEM.items():
                    if target.startswith(prefix) and not any(
                            str(relative).startswith(owner + "/") for owner in owners):
                        found.append(f"{where}: <{target}> is only for {', '.join(sorted(owners))}")
    return found


def test_every_include_of_the_project_points_down_the_layers():
    assert violations(ROOT) == []


def test_every_layer_is_a_cmake_library_linking_only_downwards():
    """Each layer's CMakeLists.txt builds memrel_<layer> and links only the next layer down."""
    expected = {"platform": None, "allocators": "memrel_platform", "harness": "memrel_allocators",
                "gate": "memrel_harness", "cli": "memrel_gate", "benchmarks": "memrel_allocators"}
    for layer, below in expected.items():
        cmake = (ROOT / layer / "CMakeLists.txt").read_text(encoding="utf-8")
        target = "memrel_bench_lib" if layer == "benchmarks" else f"memrel_{layer}"
        assert f"add_library({target} STATIC" in cmake, layer
        links = re.findall(rf"target_link_libraries\({target}\s+([^)]*)\)", cmake)
        linked = {word for text in links for word in text.split() if word.startswith("memrel_")}
        assert linked == ({below} if below else set()), f"{layer} links {sorted(linked)}"


@pytest.mark.parametrize("layer,target,bad", [
    ("platform", '"allocators/allocator.hpp"', True),
    ("allocators", '"harness/results/results.hpp"', True),
    ("harness", '"gate/compare.hpp"', True),
    ("gate", '"cli/subcommand.hpp"', True),
    ("benchmarks", '"harness/execution/cell.hpp"', True),
    ("benchmarks", '"gate/verdict.hpp"', True),
    ("harness", "<CLI/CLI.hpp>", True),
    ("gate", "<cuda_runtime_api.h>", True),
    ("cli", '"gate/compare.hpp"', False),
    ("benchmarks", '"allocators/allocator.hpp"', False),
    ("platform", "<cuda_runtime_api.h>", False),
])
def test_the_check_catches_an_upward_include(tmp_path, layer, target, bad):
    (tmp_path / layer).mkdir()
    (tmp_path / layer / "x.cpp").write_text(f"// a file\n#include {target}\n")
    found = violations(tmp_path)
    assert bool(found) == bad, found
    if bad:
        assert found[0].startswith(f"{layer}/x.cpp:2: ")


# Inside harness, three subjects (harness/CMakeLists.txt): the workload model and the results
# model know nothing of each other nor of execution, which uses both.
HARNESS_ALLOWED = {
    "workload": {"workload"},
    "results": {"results"},
    "execution": {"execution", "workload", "results"},
}


def harness_violations(root):
    """Every include inside harness/ that crosses its subjects the wrong way, as 'FILE:LINE: why'."""
    found = []
    for subject, allowed in HARNESS_ALLOWED.items():
        for path in sorted((root / "harness" / subject).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for match in INCLUDE.finditer(text):
                parts = match.group(2).split("/")
                if match.group(1) != '"' or parts[0] != "harness" or len(parts) < 3:
                    continue
                if parts[1] not in allowed:
                    line = text.count("\n", 0, match.start()) + 1
                    found.append(f"{path.relative_to(root)}:{line}: harness/{subject} includes "
                                 f'"{match.group(2)}"')
    return found


def test_harness_subjects_depend_one_way():
    assert harness_violations(ROOT) == []
    loose = [p.name for p in (ROOT / "harness").iterdir() if p.suffix in SOURCE_SUFFIXES]
    assert loose == [], f"harness sources belong in one of {sorted(HARNESS_ALLOWED)}: {loose}"


def test_the_harness_check_catches_results_including_execution(tmp_path):
    (tmp_path / "harness" / "results").mkdir(parents=True)
    (tmp_path / "harness" / "results" / "x.hpp").write_text(
        '#include "harness/execution/cell.hpp"\n')
    assert harness_violations(tmp_path) == [
        'harness/results/x.hpp:1: harness/results includes "harness/execution/cell.hpp"']


# Backend families own their knowledge (allocators/backend_family.hpp): outside allocators/ no
# source includes a family's folder, and the harness, platform and gate name no family in code
# (comments may: a trace recorded from PyTorch is still PyTorch's).
FAMILY_WORDS = re.compile(r"(?<![a-z])(torch|rmm|pluggable|BackendKind)(?![a-z])", re.IGNORECASE)
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def families(root):
    """The family folders of allocators/, each with its <name>_family.cpp."""
    return sorted(p.parent.name for p in (root / "allocators").glob("*/*_family.cpp"))


def family_leaks(root):
    """Every place outside allocators/ that reaches into a family, as 'FILE:LINE: why'."""
    found = []
    names = families(root)
    for layer in ALLOWED:
        if layer == "allocators":
            continue
        for path in sorted((root / layer).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            relative = path.relative_to(root)
            text = path.read_text(encoding="utf-8", errors="replace")
            for match in INCLUDE.finditer(text):
                parts = match.group(2).split("/")
                if parts[0] == "allocators" and len(parts) > 2 and parts[1] in names:
                    line = text.count("\n", 0, match.start()) + 1
                    found.append(f'{relative}:{line}: includes "{match.group(2)}" of the '
                                 f"{parts[1]} family")
            if layer in ("harness", "platform", "gate"):
                code = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)
                for match in FAMILY_WORDS.finditer(code):
                    line = code.count("\n", 0, match.start()) + 1
                    found.append(f"{relative}:{line}: names the family word '{match.group(1)}'")
    return found


def test_every_family_is_a_folder_and_nothing_outside_allocators_names_one():
    assert set(families(ROOT)) >= {"cuda", "host", "rmm", "torch", "pluggable"}
    assert family_leaks(ROOT) == []


@pytest.mark.parametrize("layer,text", [
    ("harness", '#include "allocators/torch/variants.hpp"\n'),
    ("cli", '#include "allocators/pluggable/backend_file.hpp"\n'),
    ("harness", 'int x = 1;\nif (b.family == "torch") {}\n'),
    ("platform", "std::optional<std::string> torch_version;\n"),
    ("gate", "auto k = BackendKind::kRmm;\n"),
])
def test_the_family_check_catches_a_leak(tmp_path, layer, text):
    for family in ("torch", "pluggable", "rmm"):
        (tmp_path / "allocators" / family).mkdir(parents=True)
        (tmp_path / "allocators" / family / f"{family}_family.cpp").write_text("")
    (tmp_path / layer).mkdir()
    (tmp_path / layer / "x.cpp").write_text(text)
    assert family_leaks(tmp_path), text


def test_the_family_check_lets_comments_name_a_framework(tmp_path):
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "x.cpp").write_text("// a PyTorch snapshot, an RMM log\nint x;\n")
    assert family_leaks(tmp_path) == []
