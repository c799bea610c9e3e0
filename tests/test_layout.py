"""The package layout keeps its promises (see the README's "Development" section):
no import cycles, no module hidden behind a function of its name, and no package
importing another package's private names (only ``ranklens._shared`` is shared)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import ranklens

SRC = Path(ranklens.__file__).parent
MODULES = sorted(m.name for m in pkgutil.walk_packages([str(SRC)], "ranklens."))


def _module_file(name: str) -> Path:
    rel = Path(*name.split(".")[1:])
    pkg = SRC / rel / "__init__.py"
    return pkg if pkg.is_file() else SRC / rel.with_suffix(".py")


def _imports(name: str, *, lazy: bool) -> list[tuple[str, list[str]]]:
    """(module imported, names taken) for every ranklens import of ``name``: the ones run
    on import (outside functions and ``if TYPE_CHECKING:``), or all with ``lazy``."""
    tree = ast.parse(_module_file(name).read_text())
    found: list[tuple[str, list[str]]] = []

    def visit(node: ast.AST, top: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if lazy:
                    visit(child, False)
                continue
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if (
                isinstance(child, ast.ImportFrom)
                and child.module
                and child.module.startswith("ranklens")
            ):
                found.append((child.module, [a.name for a in child.names]))
            elif isinstance(child, ast.Import):
                found.extend((a.name, []) for a in child.names if a.name.startswith("ranklens"))
            visit(child, top)

    visit(tree, True)
    return found


def _resolve(module: str, names: list[str]) -> set[str]:
    """The ranklens modules an import loads (``from pkg import submodule`` counts)."""
    subs = {f"{module}.{n}" for n in names if f"{module}.{n}" in MODULES}
    if subs and len(subs) == len(names):
        return subs  # the package only as the parent of what is imported
    return subs | ({module} if module in MODULES or module == "ranklens" else set())


def _cycles(lazy: bool) -> list[list[str]]:
    graph = {
        m: set().union(*(_resolve(mod, names) for mod, names in _imports(m, lazy=lazy)), set())
        - {m, "ranklens"}
        for m in MODULES
    }
    seen: set[tuple[str, ...]] = set()
    cycles: list[list[str]] = []

    def walk(node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                cyc = path[path.index(nxt) :]
                key = tuple(sorted(cyc))
                if key not in seen:
                    seen.add(key)
                    cycles.append([*cyc, nxt])
            elif len(path) < 12:
                walk(nxt, [*path, nxt])

    for m in MODULES:
        walk(m, [m])
    return cycles


def test_no_import_cycles() -> None:
    """Counting the imports inside functions too (only ``if TYPE_CHECKING:`` ones are
    left out): a lazy import that closes a circle is still a circle to the reader."""
    assert _cycles(lazy=True) == []


def test_no_module_hidden_behind_a_function() -> None:
    hidden = []
    for name in ["ranklens", *MODULES]:
        if name.endswith("__main__"):
            continue  # running it is the command line
        mod = importlib.import_module(name)
        if not hasattr(mod, "__path__"):
            continue
        for sub in pkgutil.iter_modules(mod.__path__):
            value = getattr(mod, sub.name, None)
            if value is not None and not hasattr(value, "__file__"):
                hidden.append(f"{name}.{sub.name} is {type(value).__name__}")
    assert hidden == []


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


@pytest.mark.parametrize("module", MODULES)
def test_no_private_names_across_packages(module: str) -> None:
    """A package uses another package's public names only; ``ranklens._shared`` is the
    shared layer, and ``ranklens.errors`` holds every exception type."""
    bad = [
        f"{src}.{n}"
        for src, names in _imports(module, lazy=True)
        for n in names
        if n.startswith("_")
        and _package(src) != _package(module)
        and _package(src) != "ranklens._shared"
    ]
    assert bad == [], f"{module} imports private names of other packages: {bad}"


def test_the_version_is_the_installed_packages() -> None:
    """Provenance records ``ranklens.__version__`` (reading the package metadata costs
    every command's start 13 ms): it must be the version pyproject.toml installs."""
    from importlib.metadata import version

    assert ranklens.__version__ == version("ranklens")


def test_a_command_loads_only_its_own_module() -> None:
    """``ranklens evaluate`` does not import the other commands (nor what they need:
    statistics, the results store, the HTML report), which keeps its start fast."""
    import subprocess
    import sys

    code = (
        "import sys; from ranklens.cli import main; main.get_command(None, 'evaluate'); "
        "print(sorted(m for m in sys.modules if m.startswith('ranklens.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = eval(out)  # a printed list of module names
    assert "ranklens.cli.evaluate" in loaded
    for other in (
        "cli.gate",
        "cli.report",
        "cli.score",
        "cli.detect",
        "cli.ab",
        "gates",
        "history",
        "history.store",
        "render.html",
        "online",
    ):
        assert f"ranklens.{other}" not in loaded, loaded


def test_import_ranklens_loads_nothing_heavy() -> None:
    """``import ranklens`` (the package and its exception types) loads neither numpy,
    pyarrow nor any other package (not even ``typing``): every other public name is
    imported on first use."""
    import subprocess
    import sys

    code = (
        "import sys; import ranklens; "
        "print(sorted({m.split('.')[0] for m in sys.modules} - set(sys.builtin_module_names)))"
    )
    bare = "import sys; print(sorted({m.split('.')[0] for m in sys.modules}))"
    run = [sys.executable, "-c"]
    loaded = set(
        eval(subprocess.run([*run, code], capture_output=True, text=True, check=True).stdout)
    )
    before = set(
        eval(subprocess.run([*run, bare], capture_output=True, text=True, check=True).stdout)
    )
    assert loaded - before <= {"ranklens", "__future__"}, loaded - before


def _lazy_packages() -> list[str]:
    return [
        m
        for m in ["ranklens", *MODULES]
        if _module_file(m).name == "__init__.py" and "lazy_exports(" in _module_file(m).read_text()
    ]


@pytest.mark.parametrize("package", _lazy_packages())
def test_lazy_names_are_their_modules_objects(package: str) -> None:
    """Every name a package lists in ``__all__`` resolves (in a fresh process, so the
    lazy path is the one tested), is the object its ``if TYPE_CHECKING:`` import names,
    and is listed by ``dir()``."""
    import subprocess
    import sys

    tree = ast.parse(_module_file(package).read_text())
    checked = [
        (node.module, alias.name)
        for block in tree.body
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]
    code = (
        f"import importlib, sys; pkg = importlib.import_module({package!r}); "
        f"names = {checked!r}; "
        "bad = [n for m, n in names if getattr(pkg, n) is not "
        "getattr(importlib.import_module(m), n)]; "
        "bad += [n for n in pkg.__all__ if n not in dir(pkg) or getattr(pkg, n) is None]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    exported = {n for _, n in checked}
    module = importlib.import_module(package)
    assert set(module.__all__) - set(ranklens.FAMILIES) - exported <= set(vars(module))


# ------------------------------------------------------------------ the command line

CLI = "ranklens.cli"
COMMAND_MODULES = sorted(
    m for m in MODULES if m.startswith(f"{CLI}.") and not m.split(".")[-1].startswith("_")
)
SHARED_CLI = sorted(m for m in MODULES if m.startswith(f"{CLI}._"))


def _cli_imports(module: str) -> set[str]:
    """The ranklens.cli modules ``module`` imports (inside functions too)."""
    return {
        m
        for src, names in _imports(module, lazy=True)
        for m in _resolve(src, names)
        if m.startswith(f"{CLI}.")
    }


def test_the_command_modules_are_found() -> None:
    assert {"ranklens.cli.evaluate", "ranklens.cli.gate", "ranklens.cli.ab"} <= set(COMMAND_MODULES)
    assert "ranklens.cli._options" in SHARED_CLI


@pytest.mark.parametrize("module", COMMAND_MODULES)
def test_no_command_imports_another(module: str) -> None:
    """A command module imports the shared layer (``ranklens.cli._*``) and the library,
    never another command's module (whose private helpers drifted apart before)."""
    others = sorted(m for m in _cli_imports(module) if m in COMMAND_MODULES and m != module)
    assert others == [], f"{module} imports other commands: {others}"


@pytest.mark.parametrize("module", SHARED_CLI)
def test_the_shared_layer_imports_no_command(module: str) -> None:
    found = sorted(m for m in _cli_imports(module) if m in COMMAND_MODULES)
    assert found == [], f"{module} imports commands: {found}"


def test_the_group_imports_no_command_module() -> None:
    """``ranklens.cli`` names its commands' modules as text (imported when one runs)."""
    assert sorted(m for m in _cli_imports(CLI) if m in COMMAND_MODULES) == []


def _private_module(name: str) -> bool:
    return any(part.startswith("_") for part in name.split(".")[1:])


@pytest.mark.parametrize("module", [m for m in MODULES if m.startswith(f"{CLI}")] + [CLI])
def test_the_command_line_uses_only_public_library_modules(module: str) -> None:
    """The command line reaches the library through its public modules (and the shared
    ``ranklens._shared`` layer): no private module or name of another package."""
    bad = sorted(
        src
        for src, _ in _imports(module, lazy=True)
        if not src.startswith(CLI)
        and _private_module(src)
        and _package(src) != "ranklens._shared"
        and not src.startswith("ranklens._shared")
    )
    assert bad == [], f"{module} imports private modules of the library: {bad}"


def test_the_command_line_uses_no_private_attribute_of_the_library() -> None:
    """``plots._check_path`` and the like: a private attribute of a library module used
    from the command line (read in the source, as the imports are)."""
    found = []
    for module in [CLI, *(m for m in MODULES if m.startswith(f"{CLI}."))]:
        tree = ast.parse(_module_file(module).read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id not in ("self", "cls", "sys", "os", "exc", "defn")
            ):
                found.append(f"{module}: {ast.unparse(node)}")
    assert found == []


# ---------------------------------------------------------------------------------- io

#: What ``io`` may use of the engine: the data model (``ranking.data``, and
#: ``ranking.intents``: diversity qrels), and ``index_ahead`` (qrels read from a file
#: start building their judgment index in the background).
IO_MAY_USE = {
    "ranklens.ranking.data": None,
    "ranklens.ranking.intents": None,
    "ranklens.ranking.engine": {"index_ahead"},
}


@pytest.mark.parametrize("module", [m for m in MODULES if m.startswith("ranklens.io")])
def test_io_reads_and_writes_and_does_not_evaluate(module: str) -> None:
    """``io`` is below the engine: no evaluation, evaluator, metric or driver (the
    streaming driver, :func:`ranklens.evaluate_files`, lives in ``ranking.files``)."""
    bad = []
    for src, names in _imports(module, lazy=True):
        for target in _resolve(src, names):
            pkg = _package(target)
            if pkg in ("ranklens.ranking", "ranklens.metrics", "ranklens.recsys"):
                allowed = IO_MAY_USE.get(target, set())
                if target not in IO_MAY_USE or (allowed is not None and not set(names) <= allowed):
                    bad.append(f"{target} ({', '.join(names)})")
    assert bad == [], f"{module} uses the engine: {bad}"
