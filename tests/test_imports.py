"""The package's import graph: acyclic, every import at module level, and job processes free of matplotlib."""

import ast
import subprocess
import sys
from pathlib import Path

import mfx

ROOT = Path(mfx.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> tuple[set[str], list[int]]:
    """(mfx modules imported at module level, line numbers of imports inside functions or classes)."""
    tree = ast.parse(path.read_text())
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    top = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            top |= {a.name for a in node.names if a.name.startswith("mfx")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    package.split(".")[: len(package.split(".")) - node.level + 1] + [base]
                ).strip(".")
            if base.startswith("mfx"):
                # `from mfx import results` imports the module mfx.results
                top |= {f"{base}.{a.name}" for a in node.names} | {base}
    nested = [
        n.lineno for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and n not in tree.body
    ]
    return top, nested


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        top, _ = _imports(path)
        graph[name] = {m for m in top if m in modules and m != name}
    return graph


def test_no_import_inside_a_function():
    nested = {str(p.relative_to(ROOT)): _imports(p)[1] for p in ROOT.rglob("*.py")}
    assert {k: v for k, v in nested.items() if v} == {}


def test_import_graph_is_acyclic():
    graph = _graph()
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError("import circle: " + " → ".join([*path, node, nxt]))
            if nxt not in state:
                visit(nxt, [*path, node])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])


def test_plots_import_analysis_never_experiments():
    graph = _graph()
    for family in ("resnet", "quadratic", "transformer"):
        deps = graph[f"mfx.{family}.plots"]
        assert not any(d.startswith(f"mfx.{family}.experiments") for d in deps), deps


def test_a_job_process_does_not_import_matplotlib():
    """What a launcher's worker imports: the job task and every experiment (not the plots)."""
    code = (
        "import sys, mfx.sweep, mfx.experiment as e; e.load_all(); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
