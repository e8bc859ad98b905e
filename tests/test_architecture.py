"""The shape of the tree: what a light import loads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _loaded_by(statement: str) -> set[str]:
    code = f"import json, sys; {statement}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return {m.split(".")[0] for m in json.loads(out.stdout.strip().splitlines()[-1])}


@pytest.mark.parametrize("statement", ["import loophole_store", "from loophole_store import read_tables, open_run"])
def test_the_store_loads_no_gymnasium_tau2_ray_or_application(statement):
    loaded = _loaded_by(statement)
    assert not loaded & {"gymnasium", "tau2", "ray", "litellm", "harness"}, sorted(loaded & {
        "gymnasium", "tau2", "ray", "litellm", "harness"})


def test_importing_the_harness_does_not_load_gymnasium():
    assert "gymnasium" not in _loaded_by("import harness, harness.cli.main")
    assert "gymnasium" in _loaded_by("import harness.gym")  # the measure can see gymnasium load


def _library_modules() -> dict[str, list[Path]]:
    """The library's packages (import-linter's root packages: one list for both checks) and their modules."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    roots = config["tool"]["importlinter"]["root_packages"]
    return {root: sorted((ROOT / root).rglob("*.py")) for root in roots}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_over_400_lines_without_a_reason_at_its_top():
    """A long module says why at its top (``# Over 400 lines: ...``); the rest stay small."""
    too_long = [
        f"{path.relative_to(ROOT)} ({_lines(path)} lines)"
        for modules in _library_modules().values()
        for path in modules
        if _lines(path) > 400 and "# Over 400 lines:" not in "\n".join(path.read_text().splitlines()[:5])
    ]
    assert not too_long, too_long


def test_the_application_is_at_most_40_percent_of_the_library():
    """``harness/`` is the application and the CLI; the stages below it hold the rest of the code."""
    sizes = {root: sum(_lines(p) for p in modules) for root, modules in _library_modules().items()}
    assert len(sizes) >= 7 and all(sizes.values()), sizes  # the measure sees every stage
    share = sizes["harness"] / sum(sizes.values())
    assert share <= 0.40, f"harness/ is {share:.0%} of the library: {sizes}"


def _imports(path: Path) -> list[tuple[int, str, int]]:
    """(line, module, level) of every import in a module, including those inside functions."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found.append((node.lineno, node.module or "", node.level))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, 0) for alias in node.names]
    return found


def test_other_packages_are_used_through_their_facade_only():
    """``from envs import ReplayEngine``, never ``from envs._replay import ...``: a package's modules are
    its own, so a public name has one import path and a private module can move without breaking others."""
    packages = _library_modules()
    reaching_in = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for root, modules in packages.items()
        for path in modules
        for line, module, level in _imports(path)
        if level == 0 and "." in module and module.split(".")[0] in packages and module.split(".")[0] != root
    ]
    assert not reaching_in, reaching_in


def test_one_facade_style_and_one_import_path_per_name():
    """Every package's ``__init__.py`` is the lazy stub over its ``__init__.pyi``; a stub lists only names its
    own modules define (relative imports), and no name is exported by two packages."""
    import ast
    import importlib

    owners: dict[str, list[str]] = {}
    for root in _library_modules():
        init = ROOT / root / "__init__.py"
        body = [ast.unparse(n) for n in ast.parse(init.read_text()).body
                if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]  # the docstring
        if root == "harness":  # the application quiets tau2's import-time warnings before anything loads
            body = [line for line in body if line not in ("from harness._quiet import quiet_imports", "quiet_imports()")]
        assert body == [
            "import lazy_loader",
            "__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)",
        ], f"{init.relative_to(ROOT)}: not the one facade style: {body}"
        stub = ast.parse((ROOT / root / "__init__.pyi").read_text())
        for node in stub.body:
            if isinstance(node, ast.ImportFrom):
                assert node.level == 1, f"{root}/__init__.pyi re-exports {node.module}: one import path per name"
        module = importlib.import_module(root)
        for name in module.__all__:
            getattr(module, name)  # every listed name resolves
            owners.setdefault(name, []).append(root)
    shared = {name: where for name, where in owners.items() if len(where) > 1}
    assert not shared, f"names exported by more than one package: {shared}"


def _test_sources() -> list[Path]:
    return sorted((ROOT / "tests").rglob("*.py"))


def _imported(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, relative imports resolved, and each name a ``from`` import takes (it
    may be a module): (line, dotted name)."""
    import ast

    package = ".".join(path.relative_to(ROOT).parent.parts)
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def test_no_test_module_imports_another():
    """Shared helpers and fixtures live in tests/conftest.py (or tests/e2e/conftest.py), never in a test
    module another one imports (``from tests.test_x import _helper``, ``from .test_x import ...``)."""
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in _test_sources()
        for line, name in _imported(path)
        if name.startswith("tests.") and any(part.startswith("test_") for part in name.split(".")[1:])
    ]
    assert bad == []


def test_the_cli_is_driven_one_way():
    """Tests run the CLI through tests.conftest.harness (a subprocess, as a user runs it): no other test
    module imports the CLI's main or app, typer's CliRunner, or spawns ``python -m harness.cli.main``."""
    import ast

    main = ".".join(("harness", "cli", "main"))  # not spelled out: this module would match itself
    # test_cli_api_parity reads the typer app's declared options to compare them with the API; it runs nothing
    readers = {"conftest.py", "test_cli_api_parity.py"}
    bad = []
    for path in _test_sources():
        if path.name in readers:
            continue
        for line, name in _imported(path):
            if name.startswith((main, "typer.testing")):
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {name}")
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Constant) and node.value == main:
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: runs python -m harness.cli.main")
    assert bad == []
