"""The C ABI: bindings/rdx.h and librdx.so, driven by C programs compiled with gcc.

``bindings/c/test_capi.c`` prints what the library answers about the fixture (rdx's example
project); these tests compare it with the Python API (``binding_answers.answers``) and with
real Ruby, and run its error, persistence, thread and memory sections. The programs run with
an empty environment: the library finds its Python packages by itself. The header is checked
against the error table, the library's exported symbols and the Python half.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import msgspec
import pytest
from binding_answers import answers
from conftest import run_ruby
from librdx import BINDINGS, FIXTURE, build_library, compile_c, run_clean

import rdx

HEADER = BINDINGS / "rdx.h"


@pytest.fixture(scope="module")
def library() -> Path:
    return build_library()


@pytest.fixture(scope="module")
def test_program(library: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("capi") / "test_capi"
    return compile_c(BINDINGS / "c" / "test_capi.c", out, library.parent)


def run_section(program: Path, section: str) -> str:
    proc = run_clean([str(program), str(FIXTURE), section])
    assert proc.returncode == 0, f"test_capi {section} failed:\n{proc.stderr}\n{proc.stdout[-2000:]}"
    assert re.search(r"^checks: \d+ failures: 0$", proc.stdout, re.M), proc.stdout[-2000:]
    assert proc.stderr == ""
    return proc.stdout


def _opt(text: str) -> str | None:
    return None if text == "-" else text


def _names(text: str) -> list[str]:
    return text.split(" ") if text else []


def parse_answers(output: str) -> dict[str, Any]:
    """The tab-separated lines of the answers section, shaped like binding_answers.answers."""
    decls: dict[str, dict[str, Any]] = {}
    out: dict[str, Any] = {
        "declarations": decls,
        "constant_references": [],
        "method_references": [],
        "resolve_constant": [],
        "search": {},
        "diagnostics": [],
        "counts": {},
        "names": {},
    }
    for line in output.splitlines():
        tag, *f = line.split("\t")
        if tag == "DECL":
            decls[f[0]] = {"name": f[0], "kind": f[1], "unqualified_name": f[2], "id": int(f[3]), "owner": _opt(f[4]), "definitions": []}
        elif tag in ("ANCESTORS", "DESCENDANTS", "MEMBERS"):
            decls[f[0]][tag.lower()] = _names(f[1])
        elif tag == "NAMES":
            out["names"].setdefault(f[0], {})[f[1]] = _names(f[2])
        elif tag == "SUMMARY":
            out.setdefault("summaries", {})[f[0]] = json.loads(f[1])
        elif tag == "GREP":
            out.setdefault("grep", []).append((f[0], json.loads(f[1]) if f[1] != "-" else {}, json.loads(f[2])))
        elif tag == "SINGLETON":
            decls[f[0]]["singleton_class"] = _opt(f[1])
            decls[f[0]]["singleton_ancestors"] = _names(f[2])
        elif tag == "DEF":
            decls[f[0]]["definitions"].append(
                {"kind": f[1], "name": f[2], "location": f[3], "comments": f[4].split("|") if f[4] else [], "declaration": _opt(f[5])}
            )
        elif tag == "CREF":
            out["constant_references"].append([f[0], f[1], _opt(f[2])])
        elif tag == "MREF":
            out["method_references"].append([f[0], f[1], _opt(f[2]), _opt(f[3])])
        elif tag == "RESOLVE":
            out["resolve_constant"].append([f[0], f[1].split(",") if f[1] else [], _opt(f[2])])
        elif tag == "SEARCH":
            out["search"][(f[0], f[1], _opt(f[2]))] = _names(f[3])
        elif tag == "DIAG":
            out["diagnostics"].append([f[0], f[1], f[2], _opt(f[3]), f[4]])
        elif tag in ("COUNT", "SNAPSHOT"):
            out["counts"][f"{tag} {f[0]}"] = f[1:]
    return out


@pytest.fixture(scope="module")
def c_answers(test_program: Path) -> dict[str, Any]:
    return parse_answers(run_section(test_program, "answers"))


@pytest.fixture(scope="module")
def python_answers() -> dict[str, Any]:
    return answers(str(FIXTURE))


# -- the same answers as the Python API ----------------------------------------------------


def test_declarations_match_python(c_answers: dict[str, Any], python_answers: dict[str, Any]) -> None:
    assert list(c_answers["declarations"]) == list(python_answers["declarations"])
    for name, expected in python_answers["declarations"].items():
        assert c_answers["declarations"][name] == expected, name
    product = c_answers["declarations"]["Shop::Models::Product"]
    assert product["ancestors"] == [
        "Shop::Models::Product", "Shop::Comparable", "Comparable", "Shop::Pricing", "Shop::Models::Record", "Object", "Kernel", "BasicObject",
    ]  # fmt: skip
    assert product["definitions"][0]["comments"] == ["# A product on sale."]


def test_batch_names_match_python(c_answers: dict[str, Any], python_answers: dict[str, Any]) -> None:
    """rdx_declaration_{ancestor,descendant,member}_names: the same lists as the Python API (and,
    checked inside test_capi.c, as the iterators)."""
    assert list(c_answers["names"]) == list(python_answers["declarations"])
    for name, expected in python_answers["declarations"].items():
        got = c_answers["names"][name]
        assert got == {k: expected[k] for k in ("ancestors", "descendants", "members")}, name
    assert c_answers["names"]["Shop::Models::Product#label()"]["members"] == []
    assert "Shop::Models::Product" in c_answers["names"]["Shop::Models::Record"]["descendants"]


def test_declaration_summaries_match_python(c_answers: dict[str, Any]) -> None:
    """rdx_declaration_summary_json: the same record as Declaration.summary() in Python."""
    g = rdx.Graph()
    g.index_all([str(FIXTURE)])
    summaries = c_answers["summaries"]
    assert set(summaries) == set(c_answers["declarations"])
    for name, got in summaries.items():
        expected = msgspec.to_builtins(g[name].summary())
        expected.pop("revision")
        got.pop("revision")
        assert got == expected, name
    assert summaries["Shop::Models::Product"]["ancestors"][:2] == ["Shop::Models::Product", "Shop::Comparable"]


def test_grep_matches_python(c_answers: dict[str, Any]) -> None:
    """rdx_graph_grep_json: the same page as Graph.grep in Python, options included."""
    g = rdx.Graph()
    g.index_all([str(FIXTURE)])
    assert len(c_answers["grep"]) == 2
    for pattern, options, got in c_answers["grep"]:
        page = g.grep(pattern, **options)
        expected = {"total": page.total, "files": page.files, "offset": page.offset, "complete": page.complete, "hits": list(page)}
        assert got == json.loads(msgspec.json.encode(expected))
        assert got["total"] > 0
    assert len(c_answers["grep"][1][2]["hits"]) == 3 and c_answers["grep"][1][2]["hits"][0]["before"]


def test_references_match_python(c_answers: dict[str, Any], python_answers: dict[str, Any]) -> None:
    assert c_answers["constant_references"] == python_answers["constant_references"]
    assert c_answers["method_references"] == python_answers["method_references"]
    user = [r for r in c_answers["constant_references"] if "/lib/shop/" in r[1]]
    assert ["Pricing", f"{FIXTURE}/lib/shop/models/product.rb:5:14-5:21", "Shop::Pricing"] in user
    assert any(r[2] is None for r in c_answers["method_references"])


def test_resolve_and_search_match_python(c_answers: dict[str, Any], python_answers: dict[str, Any]) -> None:
    assert c_answers["resolve_constant"] == python_answers["resolve_constant"]
    assert c_answers["resolve_constant"][0] == ["OutOfStock", ["Shop", "Models::Order"], "Shop::OutOfStock"]
    expected = {(q, mode, kind): names for q, mode, kind, _, names in python_answers["search"]}
    assert c_answers["search"] == expected


def test_diagnostics_counts_and_snapshots(c_answers: dict[str, Any], python_answers: dict[str, Any]) -> None:
    assert c_answers["diagnostics"] == python_answers["diagnostics"]
    assert c_answers["counts"]["COUNT syntax_errors"] == [str(python_answers["syntax_errors"])]
    assert c_answers["counts"]["COUNT declarations"] == [str(len(python_answers["all_declarations"]))]
    # A handle fetched before an edit still describes the graph it came from.
    assert c_answers["counts"]["SNAPSHOT Class"] == ["Module"]


def test_ancestors_match_real_ruby(c_answers: dict[str, Any], tmp_path: Path) -> None:
    namespaces = [n for n, d in c_answers["declarations"].items() if d["kind"] in ("Class", "Module")]
    script = f"""
require {str(FIXTURE / "lib" / "shop")!r}
label = lambda do |m|
  inner = m.inspect[/\\A#<Class:(.*)>\\z/, 1]
  inner ? "#{{inner}}::<#{{inner.split('::').last}}>" : m.inspect
end
{namespaces!r}.each do |name|
  mod = Object.const_get(name)
  puts [name, mod.ancestors.map(&label).join(" "), mod.singleton_class.ancestors.map(&label).join(" ")].join("\\t")
end
"""
    real = {line.split("\t")[0]: line.split("\t")[1:] for line in run_ruby(script, tmp_path).splitlines()}
    assert sorted(real) == sorted(namespaces)
    for name in namespaces:
        decl = c_answers["declarations"][name]
        assert decl["ancestors"] == real[name][0].split(" "), name
        assert decl["singleton_ancestors"] == real[name][1].split(" "), name


# -- misuse, threads, memory ---------------------------------------------------------------


def test_every_error_path(test_program: Path) -> None:
    assert "ERRORS\tdone" in run_section(test_program, "errors")


def _open_stats(stats: dict[str, object]) -> list[int]:
    return [int(stats[k]) for k in ("reused", "parsed", "deleted", "snapshot", "resolved")]  # type: ignore[call-overload]


@pytest.mark.slow  # the C test program started again per project state; the answers above stay in make check
def test_persistent_projects(test_program: Path, tmp_path: Path) -> None:
    """rdx_graph_open, rdx_graph_save and rdx_graph_open_stats (test_capi.c checks the answers
    of each open against index_all and the first open); the statistics are those the Python
    API reports for the same steps."""
    output = run_section(test_program, "persist")
    assert "PERSIST\tdone" in output
    opens = {f[0]: [int(x) for x in f[1:]] for tag, *f in (line.split("\t") for line in output.splitlines()) if tag == "OPEN"}
    # Every file the graph reads: the Ruby files and the example's Python and TypeScript ones.
    files = sum(len(list(FIXTURE.rglob(f"*.{ext}"))) for ext in ("rb", "py", "ts"))
    assert files == 13
    assert opens["cold"] == [0, files, 0, 0, 0]
    assert opens["warm"] == [files, 0, 0, 1, 1]
    assert opens["changed"] == [files - 1, 1, 0, 1, 0]
    assert opens["deleted"] == [files - 1, 0, 1, 1, 0]
    assert opens["elsewhere-warm"] == [files - 1, 0, 0, 1, 1]
    # The same steps in Python.
    project = tmp_path / "project"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns(".rdx"))
    cold = rdx.Graph.open(project, jobs=1)
    assert _open_stats(cold.open_stats) == opens["cold"]
    cold.resolve()
    assert _open_stats(rdx.Graph.open(project, jobs=1).open_stats) == opens["warm"]
    with (project / "lib" / "shop" / "models" / "product.rb").open("a") as f:
        f.write("\n# changed\n")
    assert _open_stats(rdx.Graph.open(project, jobs=1).open_stats) == opens["changed"]


@pytest.mark.slow  # the C test program indexing and querying from four threads
def test_four_threads_query_one_graph(test_program: Path) -> None:
    assert "THREADS\tdone" in run_section(test_program, "threads")


@pytest.mark.corpus  # a 10,000-cycle soak
def test_memory_stays_flat_over_ten_thousand_cycles(test_program: Path) -> None:
    output = run_section(test_program, "memory")
    before, after, growth = (int(x) for x in re.search(r"^MEMORY\t(\d+)\t(\d+)\t(-?\d+)$", output, re.M).groups())  # type: ignore[union-attr]
    assert before > 0 and after - before == growth
    assert growth < 4096, f"resident set grew by {growth} KiB over 10,000 cycles"


@pytest.mark.slow  # compiles the example and runs it three times, each starting Python
def test_example_needs_only_the_library_path(library: Path, tmp_path: Path) -> None:
    example = compile_c(BINDINGS / "c" / "example.c", tmp_path / "example", library.parent, rpath=False)
    env = {"LD_LIBRARY_PATH": str(library.parent)}
    proc = run_clean([str(example)], env)
    assert proc.returncode == 0, proc.stderr
    assert "Dog is a Class\nancestors: Dog Greeting Animal Object Kernel BasicObject\n" in proc.stdout
    assert "defined at /snippet.rb:10:0-13:3\n  # A dog says hello.\n" in proc.stdout
    assert "reference Animal at /snippet.rb:10:12-10:18 -> Animal\n" in proc.stdout
    assert "rdx-core:" not in proc.stdout
    proc = run_clean([str(example), str(FIXTURE), "Shop::Models::Order"], env)
    assert proc.returncode == 0, proc.stderr
    assert "ancestors: Shop::Models::Order Enumerable Shop::Models::Record Object Kernel BasicObject\n" in proc.stdout
    assert "reference OutOfStock at" in proc.stdout
    proc = run_clean([str(example), "/nonexistent/dir"], env)
    assert proc.returncode == 1
    assert proc.stderr.startswith("rdx_graph_index_all failed: RDX_ERR_IO: ") and "'/nonexistent/dir'" in proc.stderr


# -- the header is the source of truth -----------------------------------------------------


def _load_build_script() -> Any:
    spec = importlib.util.spec_from_file_location("build_capi", BINDINGS / "build_capi.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_status_codes_are_the_error_table() -> None:
    text = HEADER.read_text()
    codes = {name: int(value) for name, value in re.findall(r"\b(RDX_(?:OK|DONE|ERR_\w+)) = (-?\d+)", text)}
    expected = {"RDX_OK": 0, "RDX_DONE": 1} | {f"RDX_ERR_{c.name}": c.value for c in rdx.ErrorCode if c is not rdx.ErrorCode.OK}
    assert codes == expected
    # RDX_DONE is not an error and must never collide with one.
    assert 1 not in {c.value for c in rdx.ErrorCode}


def test_header_functions_are_exactly_what_the_library_exports(library: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build = _load_build_script()
    monkeypatch.syspath_prepend(str(BINDINGS / "python"))  # rdx_capi imports capi_core beside it, as librdx does
    api, native = build.header_sections(HEADER.read_text())
    python_names, native_names = build.function_names(api), build.function_names(native)
    spec = importlib.util.spec_from_file_location("rdx_capi_for_test", BINDINGS / "python" / "rdx_capi.py")
    assert spec is not None and spec.loader is not None
    half = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(half)
    assert half.exported_names() == sorted(python_names)
    nm = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True).stdout
    exported = {line.split()[-1] for line in nm.splitlines() if line.strip()}
    # Nothing else: not cffi's module init, not the rdx__ helpers or the rdx__py_ externs.
    assert exported == set(python_names) | set(native_names)
    assert len(exported) == 77


def test_embedded_python_is_the_building_environment_whatever_the_host_sets(library: Path, tmp_path: Path) -> None:
    """The interpreter starts as the virtualenv that built the library, in isolated mode: the
    host's PYTHONHOME and PYTHONPATH (here a fake rdx that would fail) change nothing."""
    shadow = tmp_path / "shadow" / "rdx"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text('raise ImportError("the host path shadowed rdx")\n')
    source = tmp_path / "maps.c"
    source.write_text(
        '#include <stdio.h>\n#include <string.h>\n#include "rdx.h"\n'
        "int main(void) {\n"
        "  rdx_graph_t *g;\n"
        '  printf("%s %s\\n", rdx_status_name(rdx_graph_new(&g)), rdx_last_error_message());\n'
        '  FILE *f = fopen("/proc/self/maps", "r"); char line[4096];\n'
        '  while (fgets(line, sizeof line, f)) if (strstr(line, "_cffi_backend")) { fputs(strchr(line, 47), stdout); break; }\n'
        "  return rdx_graph_free(g);\n}\n"
    )
    program = compile_c(source, tmp_path / "maps", library.parent)
    proc = run_clean([str(program)], {"PYTHONHOME": "/nonexistent/home", "PYTHONPATH": str(tmp_path / "shadow")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    status, backend = proc.stdout.splitlines()
    assert status == "RDX_OK "
    assert Path(backend).parent == Path(sysconfig.get_paths()["platlib"])


def test_header_stands_alone(tmp_path: Path) -> None:
    source = tmp_path / "only_header.c"
    source.write_text('#include "rdx.h"\nint main(void) { return RDX_OK + (int)RDX_NTS + 1; }\n')
    for std in ("-std=c99", "-std=c11"):
        proc = subprocess.run(
            ["gcc", std, "-pedantic", "-Wall", "-Wextra", "-Werror", f"-I{BINDINGS}", "-c", str(source), "-o", str(tmp_path / "o.o")],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr
    gxx = shutil.which("g++")
    if gxx is not None:
        proc = subprocess.run(
            [gxx, "-x", "c++", "-Wall", "-Werror", f"-I{BINDINGS}", "-c", str(source), "-o", str(tmp_path / "o.o")],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr


@pytest.mark.slow  # builds a second library with cffi and gcc
def test_a_python_half_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    """cffi returns 0 (RDX_OK) from functions whose start-up failed; the library must not."""
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "rdx_capi.py").write_text('raise ImportError("simulated start-up failure")\n')
    build = _load_build_script()
    lib = build.build(out_dir=tmp_path / "lib", python_half=broken)
    source = tmp_path / "start.c"
    source.write_text(
        '#include <stdio.h>\n#include "rdx.h"\n'
        "int main(void) { rdx_graph_t *g = NULL; rdx_status_t st = rdx_graph_new(&g);\n"
        '  printf("%s %d %s\\n", rdx_status_name(st), g == NULL, rdx_last_error_message()); return 0; }\n'
    )
    program = compile_c(source, tmp_path / "start", lib.parent)
    proc = run_clean([str(program)])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "RDX_ERR_INTERNAL 1 librdx could not start its Python half: ImportError: simulated start-up failure; rebuild it with `make capi`\n"
    )


def test_build_is_skipped_when_up_to_date(library: Path) -> None:
    before = library.stat().st_mtime_ns
    assert build_library.__wrapped__() == library  # type: ignore[attr-defined]
    assert library.stat().st_mtime_ns == before
