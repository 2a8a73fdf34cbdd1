"""Each install command the book documents works in a bare environment (issue 37).

The published notebooks start with a cell that installs mlnotes from the book's repository
(``book/_ext/publish.py`` fills its ``MLNOTES`` requirement: the distribution with the
notebook's own extras, ``@ git+<repository>.git@main``). The notebooks share a few distinct
cells; for each one (``make test-install``, which ``.ci/run`` calls after ``make test``):

* a bare virtual environment is made (``python -m venv``: no system site packages, no mlnotes,
  no numpy);
* the cell, as the published book fills it, runs in that environment's Python with ONE
  substitution: the repository's address ``git+https://github.com/OWNER/REPO.git@main`` becomes
  ``file://`` of a copy of this checkout's tracked files (what a clone of the repository holds;
  pip builds both the same way). Nothing else of the cell changes. The versions pip picks are
  the lock file's (``PIP_CONSTRAINT=requirements.txt``'s pins: the book's tested versions, which
  pip's cache from set-up already holds);
* every import statement of every notebook of the group (read from its code cells), and every
  submodule of mlnotes it reaches as ``ml.<submodule>``, is executed in that environment; a
  failure names the notebook and the missing module;
* the check can fail: the notebooks of a group that needs an extra the environment lacks (the
  UMAP chapter's ``umap``) are shown to fail there.

The README's route without a clone (``pip install "mlnotes-nldr[plot] @ git+..."``) is run the
same way. The cheap checks (the cells' grouping and substitution, the README's commands, every
missing-extra hint naming an extra pyproject.toml defines, and the import checker itself) run
in ``make test``; the environments only under ``MLNOTES_TEST_INSTALL=1`` (``make test-install``).
"""

import ast
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from test_packaging import _tracked_files

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DISTRIBUTION = PYPROJECT["project"]["name"]
EXTRAS = set(PYPROJECT["project"]["optional-dependencies"])
# The address the published book fills in; the README writes the same placeholder.
URL = "https://github.com/OWNER/REPO"
RUN = os.environ.get("MLNOTES_TEST_INSTALL") == "1"
needs_install = pytest.mark.skipif(not RUN, reason="makes virtual environments and installs "
                                   "from the package index: make test-install")


def _publish():
    spec = importlib.util.spec_from_file_location("publish", ROOT / "book" / "_ext" / "publish.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


publish = _publish()


def published_notebooks():
    """The notebooks the book publishes with an install cell: chapters and homework (not the
    instructor's copies, which stay in the repository)."""
    return sorted(p for p in (ROOT / "book").rglob("*.ipynb")
                  if not {"instructor", "_build", ".ipynb_checkpoints"} & set(p.parts))


def _read(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def install_groups():
    """Published notebooks grouped by their install requirement (the only part of the cell
    that differs between notebooks): ``{requirement: [notebook, ...]}``."""
    groups = {}
    for path in published_notebooks():
        requirement = publish.install_requirement(URL, publish.notebook_extras(_read(path)))
        groups.setdefault(requirement, []).append(path)
    return groups


def filled_install_cells(paths, tmp_path):
    """The install cell of each notebook as the published book writes it
    (:func:`publish.fill_install_cells` on copies), ``{notebook: source}``."""
    sources = tmp_path / "_sources"
    copies = {}
    for path in paths:
        copy = sources / path.relative_to(ROOT)
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, copy)
        copies[path] = copy
    publish.fill_install_cells(sources, URL)
    cells = {}
    for path, copy in copies.items():
        for cell in _read(copy)["cells"][:3]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and "MLNOTES = " in source:
                cells[path] = source
                break
    missing = [p.relative_to(ROOT).as_posix() for p in paths if p not in cells]
    assert not missing, f"published notebooks without the install cell: {missing}"
    return cells


def local_cell(cell, source_dir):
    """The cell with its one substitution: the repository's address becomes the local copy."""
    published = f"git+{URL}.git@{publish.SOURCE_BRANCH}"
    assert cell.count(published) == 1, f"the install cell no longer names {published}:\n{cell}"
    return cell.replace(published, f"file://{source_dir}")


# --- what a notebook imports -------------------------------------------------------------------
_MAGIC = re.compile(r"^\s*[%!]")


def import_statements(nb):
    """Every import statement of the notebook's code cells (source text, in order, once each),
    and ``import mlnotes.<sub>`` for each submodule it reaches as an attribute (``ml.plotting``):
    mlnotes imports its submodules on first use, so an attribute is an import."""
    import mlnotes

    statements = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", []))
        code = "\n".join("" if _MAGIC.match(line) else line for line in source.splitlines())
        tree = ast.parse(code)
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                statements.append(ast.unparse(node))
                if isinstance(node, ast.Import):
                    aliases |= {a.asname or a.name for a in node.names if a.name == "mlnotes"}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr in mlnotes._SUBMODULES):
                statements.append(f"import mlnotes.{node.attr}")
    return list(dict.fromkeys(statements))


# Runs inside the environment: executes each statement of each notebook, prints the failures
# as JSON {notebook: [[statement, missing module or error], ...]}.
CHECKER = r"""
import json, sys
wanted = json.load(open(sys.argv[1]))
failed = {}
for notebook, statements in wanted.items():
    for statement in statements:
        try:
            exec(statement, {})
        except ModuleNotFoundError as exc:   # with the message when it says more (an extra's)
            why = f"no module {exc.name!r}" + ("" if str(exc).startswith("No module") else f": {exc}")
            failed.setdefault(notebook, []).append([statement, why])
        except Exception as exc:
            failed.setdefault(notebook, []).append([statement, f"{type(exc).__name__}: {exc}"])
print(json.dumps(failed))
"""


def failed_imports(python, statements, workdir, env=None):
    """Run :data:`CHECKER` with ``python`` on ``{notebook: [statement, ...]}``."""
    workdir = Path(workdir)
    (workdir / "check_imports.py").write_text(CHECKER)
    (workdir / "imports.json").write_text(json.dumps(statements))
    result = subprocess.run([str(python), "check_imports.py", "imports.json"], cwd=workdir,
                            env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def describe(failed):
    return "\n".join(f"{notebook}: `{statement}` fails: {why}"
                     for notebook, rows in failed.items() for statement, why in rows)


# --- cheap checks (make test) ------------------------------------------------------------------
def test_the_notebooks_share_a_few_install_commands_and_each_has_one_address(tmp_path):
    groups = install_groups()
    notebooks = [p for paths in groups.values() for p in paths]
    assert len(notebooks) >= 15 and len(groups) <= 6, sorted(groups)
    cells = filled_install_cells(notebooks, tmp_path)
    for requirement, paths in groups.items():
        # one command per group: its notebooks' cells are the same text
        assert len({cells[p] for p in paths}) == 1, requirement
        local = local_cell(cells[paths[0]], tmp_path / "src")
        assert URL not in local and f"file://{tmp_path / 'src'}" in local
        parsed = Requirement(requirement)
        assert parsed.name == DISTRIBUTION and parsed.extras <= EXTRAS, requirement
    umap = publish.notebook_extras(_read(ROOT / "book" / "umap.ipynb"))
    assert "umap" in umap.split(",")                  # the groups differ by what is imported


def test_import_statements_are_read_from_code_cells():
    nb = {"cells": [
        {"cell_type": "markdown", "source": ["import not_code\n"]},
        {"cell_type": "code", "source": ["%matplotlib inline\n", "import numpy as np\n",
                                         "import mlnotes as ml\n", "def f():\n",
                                         "    from scipy import sparse\n",
                                         "    return ml.plotting.scatter, ml.PCA\n"]},
        {"cell_type": "code", "source": ["from umap.umap_ import fuzzy_simplicial_set\n"]},
    ]}
    assert import_statements(nb) == [
        "import numpy as np", "import mlnotes as ml", "from scipy import sparse",
        "import mlnotes.plotting", "from umap.umap_ import fuzzy_simplicial_set"]
    umap = import_statements(_read(ROOT / "book" / "umap.ipynb"))
    assert any(s.startswith(("import umap", "from umap")) for s in umap), umap


def test_the_import_check_names_the_notebook_and_the_missing_module(tmp_path):
    failed = failed_imports(sys.executable, {
        "book/a.ipynb": ["import numpy", "import no_such_module_of_mlnotes as x"],
        "book/b.ipynb": ["from mlnotes import no_such_name", "import json"],
        "book/c.ipynb": ["import numpy.linalg"],
    }, tmp_path)
    assert set(failed) == {"book/a.ipynb", "book/b.ipynb"}, failed
    assert failed["book/a.ipynb"] == [["import no_such_module_of_mlnotes as x",
                                       "no module 'no_such_module_of_mlnotes'"]]
    ((statement, why),) = failed["book/b.ipynb"]
    assert statement == "from mlnotes import no_such_name"
    assert why.startswith("ImportError: cannot import name 'no_such_name'"), why
    assert "book/a.ipynb: `import no_such_module_of_mlnotes as x` fails: no module " \
           "'no_such_module_of_mlnotes'" in describe(failed)


def _install_section():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## Installing the package")
    return text[start: text.index("\n## ", start + 1)]


def readme_routes():
    """The README's install commands: ``make`` targets and ``pip install`` requirements."""
    section = _install_section()
    targets = re.findall(r"\bmake ([a-z][\w-]*)", section)
    requirements = re.findall(r'pip install (?:-e )?"([^"]+)"', section)
    return section, targets, requirements


def test_the_readme_names_install_commands_that_exist():
    """Clone + ``make lab`` names a Makefile target whose JupyterLab the lock file installs;
    every ``pip install`` requirement of the install section is this distribution (or the
    checkout) with extras pyproject.toml defines, and the route without a clone is a direct
    reference to the repository."""
    section, targets, requirements = readme_routes()
    makefile = (ROOT / "Makefile").read_text()
    assert "lab" in targets and "git clone" in section, "the install section has no clone route"
    for target in targets:
        assert re.search(rf"^{re.escape(target)}:", makefile, flags=re.MULTILINE), target
    lab = subprocess.run(["make", "-n", "--no-print-directory", "lab"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert "jupyter lab" in lab.stdout, lab.stdout + lab.stderr
    pins = (ROOT / "requirements.txt").read_text()
    assert re.search(r"^jupyterlab==", pins, flags=re.MULTILINE)
    assert requirements
    direct = []
    for text in requirements:
        requirement = Requirement(text if not text.startswith(".") else f"{DISTRIBUTION}{text[1:]}")
        if requirement.name != DISTRIBUTION:
            continue                                 # a hint's own packages
        assert requirement.extras <= EXTRAS, f"{text}: no such extra"
        if requirement.url:
            assert re.fullmatch(rf"git\+{re.escape(URL)}\.git(@[\w.-]+)?", requirement.url), text
            direct.append(text)
    assert direct, "the install section names no route without a clone"


def test_every_make_target_the_run_instructions_name_exists():
    """The introduction's "Run this book" and the install cell's message (a kernel without
    mlnotes) send readers to ``make`` targets: each is one the Makefile defines."""
    sys.path.insert(0, str(ROOT / ".dev"))
    try:
        import add_setup_cell
    finally:
        sys.path.pop(0)
    makefile = (ROOT / "Makefile").read_text()
    texts = {"book/intro.md": (ROOT / "book" / "intro.md").read_text(encoding="utf-8"),
             "the install cell": add_setup_cell.SOURCE}
    # `make x` in prose, or a code line "make x   # ..." (not the verb in "make sense")
    pattern = re.compile(r"`make ([a-z][\w-]*)|^make ([a-z][\w-]*)[ \t]*(?:#|$)", flags=re.M)
    named = {(where, quoted or line) for where, text in texts.items()
             for quoted, line in pattern.findall(text)}
    assert ("the install cell", "lab") in named and ("book/intro.md", "lab") in named, named
    unknown = sorted((w, t) for w, t in named
                     if not re.search(rf"^{re.escape(t)}:", makefile, flags=re.MULTILINE))
    assert not unknown, f"make targets named but not defined: {unknown}"


def _hint_extras(sources=None):
    """Every extra the package's messages name: ``extra=`` arguments of the optional imports,
    and each ``.[extra]`` / ``mlnotes-nldr[extra]`` written in a string of mlnotes/."""
    found = {}
    if sources is None:
        sources = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
                   for path in sorted((ROOT / "mlnotes").rglob("*.py"))}
    for where, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.keyword) and node.arg == "extra" and isinstance(
                    node.value, ast.Constant) and isinstance(node.value.value, str):
                found.setdefault(node.value.value, where)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                # extras are lower case (a regex's ".[A-Za-z_]" is not a hint)
                for group in re.findall(rf'(?:\.|{DISTRIBUTION})\[([a-z0-9_,\s{{}}-]+)\]', node.value):
                    for extra in group.split(","):
                        if "{" not in extra:             # a format field, filled from EXTRAS
                            found.setdefault(extra.strip(), where)
    return found


def test_every_missing_extra_hint_names_an_extra_pyproject_defines():
    """tests/test_packaging.py checks the extras of ``_optional.EXTRAS``/``REQUIREMENTS``; here
    the extras the call sites choose (``import_optional(..., extra="widgets")``) and those
    written into other messages (the grader's ``pip install -e ".[homework]"``)."""
    from mlnotes import _optional

    found = _hint_extras()
    assert "widgets" in found, found                            # the call sites' extras
    # the scan also reads extras written into a string by hand (today every hint is built by
    # _optional.install_hint, so none is in mlnotes/): shown on a sample of each spelling
    sample = ('hint = "pip install -e \'.[homework]\'"\n'
              f'other = "pip install {DISTRIBUTION}[docs, widgets]"\n')
    assert set(_hint_extras({"sample.py": sample})) == {"homework", "docs", "widgets"}
    unknown = {extra: where for extra, where in found.items() if extra not in EXTRAS}
    assert not unknown, f"a message names an extra pyproject.toml does not define: {unknown}"
    for module, (_, extra) in _optional.EXTRAS.items():
        assert f'".[{extra}]"' in _optional.install_hint(module)[2], module


# --- the environments (make test-install) ------------------------------------------------------
def _bare_environment(tmp_path):
    """A bare venv, and the environment its commands run with: no PYTHONPATH (it would lend the
    checkout's mlnotes), the lock file's pins as pip's constraints."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text()
    pins = [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
            if "==" in line and not line.startswith("#")]
    constraints = tmp_path / "constraints.txt"
    constraints.write_text("\n".join(pins) + "\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_"))}
    env.update(PATH=f"{venv / 'bin'}:{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               PIP_CONSTRAINT=str(constraints), PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_NO_INPUT="1", MPLBACKEND="Agg")
    python = venv / "bin" / "python"
    bare = subprocess.run([str(python), "-c", "import importlib.util as u; "
                           "print([m for m in ('numpy', 'mlnotes') if u.find_spec(m)])"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert bare.stdout.strip() == "[]", f"the environment is not bare: {bare.stdout}"
    return python, env


def _source_copy(tmp_path):
    """The tracked files of this checkout, as a clone of the repository holds them."""
    src = tmp_path / "src"
    for name in _tracked_files():
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, src / name)
    return src


def _installed_from_the_copy(python, env, workdir):
    where = subprocess.run([str(python), "-c", "import mlnotes; print(mlnotes.__file__)"],
                           cwd=workdir, env=env, capture_output=True, text=True)
    assert where.returncode == 0, where.stderr[-2000:]
    assert where.stdout.strip().startswith(str(python.parents[1])), where.stdout


def _statements(paths):
    return {p.relative_to(ROOT).as_posix(): import_statements(_read(p)) for p in paths}


GROUPS = install_groups()


@needs_install
@pytest.mark.parametrize("requirement", sorted(GROUPS), ids=lambda r: Requirement(r).extras
                         and ",".join(sorted(Requirement(r).extras)) or "core")
def test_each_install_cell_installs_every_module_its_notebooks_import(requirement, tmp_path):
    paths = GROUPS[requirement]
    cell = local_cell(filled_install_cells(paths[:1], tmp_path / "filled")[paths[0]],
                      _source_copy(tmp_path))
    python, env = _bare_environment(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    run = subprocess.run([str(python), "-c", cell], cwd=work, env=env, capture_output=True,
                         text=True, timeout=1500)
    assert run.returncode == 0, (f"{paths[0].name}'s install cell failed:\n"
                                 f"{run.stdout[-2000:]}\n{run.stderr[-4000:]}")
    _installed_from_the_copy(python, env, work)
    failed = failed_imports(python, _statements(paths), work, env)
    assert not failed, ("the install cell leaves modules its notebooks import missing:\n"
                        + describe(failed))
    # The check can fail: notebooks needing an extra this cell does not install fail here.
    extras = Requirement(requirement).extras
    wider = [p for other, ps in GROUPS.items()
             if (Requirement(other).extras - extras) & set(publish.IMPORT_EXTRAS.values())
             for p in ps]
    if wider:
        assert failed_imports(python, _statements(wider), work, env), \
            "notebooks needing another extra import everything without it"


@needs_install
def test_the_readme_route_without_a_clone_installs_the_package(tmp_path):
    """``pip install "mlnotes-nldr[plot] @ git+https://github.com/OWNER/REPO.git"``, the
    address replaced by the local copy, then what that extra is for (``ml.plotting``), then the
    command a missing extra's message names."""
    _, _, requirements = readme_routes()
    route = next(r for r in requirements if Requirement(r).url and not Requirement(r).url.split(
        ".git")[-1])                                  # the unpinned route, not a release's tag
    local = route.replace(f"git+{URL}.git", f"file://{_source_copy(tmp_path)}")
    assert local != route
    python, env = _bare_environment(tmp_path)
    run = subprocess.run([str(python), "-m", "pip", "install", "-q", local], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, f"{route} failed:\n{run.stderr[-4000:]}"
    _installed_from_the_copy(python, env, tmp_path)
    statements = ["import mlnotes as ml", "from mlnotes.datasets import make_s_curve"]
    statements += [f"import mlnotes.{m}" for extra in Requirement(route).extras
                   for m in {"plot": ["plotting"], "widgets": ["widgets"]}.get(extra, [])]
    failed = failed_imports(python, {"README.md": statements}, tmp_path, env)
    assert not failed, describe(failed)
    # A missing extra's hint names a command that works: load_digits needs the sklearn extra,
    # which this route leaves out; the hint's command (the extra's packages from the index) is
    # run as printed, and the call then succeeds.
    assert "sklearn" not in Requirement(route).extras
    digits = {"README.md": ["from mlnotes.datasets import load_digits; load_digits()"]}
    ((_, why),) = failed_imports(python, digits, tmp_path, env)["README.md"]
    hint = re.search(r"extra: (pip install .+?) \(from a clone", why)
    assert hint, f"the missing extra's message names no command: {why}"
    command = shlex.split(hint.group(1))
    run = subprocess.run([str(python), "-m", *command[:2], "-q", *command[2:]], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=1500)
    assert run.returncode == 0, f"the hint's {hint.group(1)} failed:\n{run.stderr[-4000:]}"
    failed = failed_imports(python, digits, tmp_path, env)
    assert not failed, f"after the hint's command: {describe(failed)}"
