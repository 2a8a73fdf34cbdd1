"""Mutation testing for the book: every check in a chapter can fail.

A *check cell* is a code cell with an ``assert`` statement. Each declares in its cell metadata
at least one mutant, the claim made wrong as a careless author would make it::

    "mutants": [{"find": "<exact substring of the cell source>",
                 "replace": "<the wrong claim>",
                 "why": "<one line: the mistake>"}]

``test_every_check_cell_declares_mutants`` reads the notebooks (no kernel): every check cell has
a mutant, each ``find`` occurs in its cell, and each says why; a cell tagged ``check`` (the book
shows it as a check) must contain an ``assert``.

``test_mutants_are_killed`` runs one notebook top to bottom in one kernel (one BLAS thread, the
notebook's own seeds). Before each check cell it runs each mutant, i.e. the cell's source with
``find`` replaced by ``replace``, in the state the cells before it left, and requires an
``AssertionError``; then it runs the real cell. A mutant that passes, or fails with another
error (a ``NameError`` kills nothing: it shows the mutant is broken, not that the check works),
fails the test, which names the cell and the error.

State: a mutant runs in a ``fork`` of the kernel (copy-on-write, a few ms), so whatever it
assigns, mutates in place or draws from a random generator dies with the child process; the
kernel the real cells run in never sees it, and the real cell then runs once, as in the book.
Check cells therefore need no rule about what they may assign before their asserts. (The
harness leaves one name, ``_mlnotes_mutant``, in the notebook's namespace.) The child sends no
message to the notebook front end (its output is discarded) and is stopped after
``MUTANT_TIMEOUT`` seconds.

Figures are drawn on matplotlib's Agg backend and closed after each cell, never rendered: the
drawing is what nbval's run checks; this test checks the claims (and costs half as much).

The count of check cells, mutants and killed mutants is printed per notebook (``-s``), and
``test_count`` prints the book's total (it is stated in the README).
"""

import json
import re
import textwrap

import nbformat
import pytest

from browser_support import ROOT

BOOK = ROOT / "book"
# Notebooks whose check cells may still lack mutants, each with the reason (empty when done).
ALLOW_UNMUTATED = {}
MUTANT_TIMEOUT = 120
ASSERT_RE = re.compile(r"^\s*assert\b", re.M)
RESULT_TAG = "MLNOTES-MUTANT-RESULT "


def _notebooks():
    return sorted(p.name for p in BOOK.glob("*.ipynb"))


def _source(cell):
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def is_check_cell(cell):
    """A code cell that contains an ``assert`` statement."""
    return cell["cell_type"] == "code" and bool(ASSERT_RE.search(_source(cell)))


def _mutants(cell):
    return cell.get("metadata", {}).get("mutants", [])


def _read(name):
    return nbformat.read(BOOK / name, as_version=4)


def _problems(name):
    """Every check cell of a notebook that has no mutant or a malformed one."""
    nb, bad = _read(name), []
    for i, cell in enumerate(nb.cells):
        mutants = _mutants(cell)
        if cell["cell_type"] != "code":
            continue
        if not is_check_cell(cell):
            if mutants:
                bad.append(f"cell {i} has mutants but no assert")
            if "check" in cell.get("metadata", {}).get("tags", []):
                bad.append(f"cell {i} ({cell.get('id')}) is tagged 'check' but asserts nothing: "
                           "a check that only prints is not a check (assert, or drop the tag)")
            continue
        if not mutants:
            bad.append(f"cell {i} ({cell.get('id')}) checks a claim but declares no mutant")
        for m in mutants:
            if set(m) != {"find", "replace", "why"} or not m["why"].strip():
                bad.append(f"cell {i}: a mutant needs exactly find, replace and a why: {m}")
            elif m["find"] not in _source(cell):
                bad.append(f"cell {i}: mutant find {m['find']!r} does not occur in the source")
            elif m["find"] == m["replace"]:
                bad.append(f"cell {i}: mutant replaces {m['find']!r} by itself")
    return bad


@pytest.mark.parametrize("name", _notebooks())
def test_every_check_cell_declares_mutants(name):
    bad = _problems(name)
    if bad and name in ALLOW_UNMUTATED:
        pytest.skip(f"{name}: {ALLOW_UNMUTATED[name]} ({len(bad)} cells left)")
    assert not bad, f"{name}:\n" + "\n".join(bad)


def test_count():
    cells = mutants = 0
    for name in _notebooks():
        for cell in _read(name).cells:
            if is_check_cell(cell):
                cells += 1
                mutants += len(_mutants(cell))
    print(f"\nthe book: {cells} check cells, {mutants} mutants")
    assert cells and mutants >= cells - sum(
        sum(is_check_cell(c) for c in _read(n).cells) for n in ALLOW_UNMUTATED)


# Run in the kernel, in its own function scope (nothing is left in the notebook's namespace):
# fork, run the mutant in the child with every outgoing message dropped, report how it ended.
_HARNESS = textwrap.dedent('''\
    def _mlnotes_mutant(src, timeout):
        import io, json, os, signal, sys
        ip = get_ipython()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                ip.kernel.session.send = lambda *args, **kwargs: None
                sys.stdout = sys.stderr = io.StringIO()
                def _late(*args):
                    raise TimeoutError(f"the mutant ran longer than {timeout} s")
                signal.signal(signal.SIGALRM, _late)
                signal.alarm(timeout)
                res = ip.run_cell(src, store_history=False, silent=True)
                signal.alarm(0)
                err = res.error_before_exec or res.error_in_exec
                out = ("passed" if err is None
                       else type(err).__name__ + ": " + str(err).splitlines()[0][:200]
                       if str(err) else type(err).__name__)
            except BaseException as exc:
                out = "harness: " + repr(exc)
            os.write(write, out.encode())
            os._exit(0)
        os.close(write)
        chunks = []
        while chunk := os.read(read, 65536):
            chunks.append(chunk)
        os.close(read)
        os.waitpid(pid, 0)
        print(%r + json.dumps(b"".join(chunks).decode() or "the child died"))
    ''' % RESULT_TAG)


def _run_hidden(client, source, index):
    cell = nbformat.v4.new_code_cell(source)
    client.execute_cell(cell, index, store_history=False)
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


def _mutant_result(client, cell_source, mutant, index):
    mutated = cell_source.replace(mutant["find"], mutant["replace"])
    text = _run_hidden(client, f"_mlnotes_mutant({mutated!r}, {MUTANT_TIMEOUT})", index)
    for line in text.splitlines():
        if line.startswith(RESULT_TAG):
            return json.loads(line[len(RESULT_TAG):])
    return f"no result from the harness: {text[-300:]!r}"


@pytest.mark.slow
@pytest.mark.parametrize("name", _notebooks())
def test_mutants_are_killed(name, monkeypatch):
    from nbclient import NotebookClient

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(var, "1")
    monkeypatch.setenv("MPLBACKEND", "agg")
    nb = _read(name)
    if name in ALLOW_UNMUTATED and not any(_mutants(c) for c in nb.cells):
        pytest.skip(f"{name}: no mutants yet ({ALLOW_UNMUTATED[name]})")
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(BOOK)}})
    checks = mutants = killed = 0
    failures = []
    with client.setup_kernel():
        _run_hidden(client, _HARNESS + "import warnings\nwarnings.filterwarnings("
                    "'ignore', 'FigureCanvasAgg is non-interactive')\n", 0)
        for i, cell in enumerate(nb.cells):
            if cell["cell_type"] != "code":
                continue
            if is_check_cell(cell):
                checks += 1
                for m in _mutants(cell):
                    mutants += 1
                    result = _mutant_result(client, _source(cell), m, i)
                    if result.startswith("AssertionError"):
                        killed += 1
                    elif result == "passed":
                        failures.append(f"cell {i} ({cell.get('id')}): the mutant passes: "
                                        f"{m['why']} ({m['find']!r} -> {m['replace']!r})")
                    else:
                        failures.append(f"cell {i} ({cell.get('id')}): the mutant fails with "
                                        f"{result}, not an AssertionError: {m['why']}")
            client.execute_cell(cell, i)
            _run_hidden(client, "import matplotlib.pyplot as _plt; _plt.close('all'); del _plt",
                        i)
    print(f"\n{name}: {checks} check cells, {mutants} mutants, {killed} killed")
    if name in ALLOW_UNMUTATED and _problems(name):
        failures = [f for f in failures if "passes" in f or "fails with" in f]
    assert not failures, f"{name}:\n" + "\n".join(failures)
