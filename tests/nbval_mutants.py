"""A pytest plugin: the mutants of the book's check cells, run inside nbval's own pass.

``make test``'s nbval pass (under another BLAS kernel, ``make test-notebooks-kernel``) loads it
(``-p tests.nbval_mutants``, as ``make test-notebooks`` does under the machine's own kernel).
Each mutant of a cell that declares ``mutants`` in its metadata (the cell's source with ``find``
replaced by ``replace``) runs in a ``fork`` of nbval's kernel (``tests/mutant_support.py``: the
child drops every outgoing message, so nothing of it reaches nbval's captured outputs, and
whatever it assigns dies with it). A mutant must end in an ``AssertionError``; one that passes,
or fails with another error (a ``NameError`` shows the mutant is broken, not that the check
works), fails the cell's item, after the real cell has run (so the kernel state the next cells
see is the book's).

A mutant and its cell agree up to the first top-level statement the replacement changes, so
the fork is made there, while nbval runs the real cell: the kernel runs that cell with a call
to :data:`FORK_POINTS`' ``_mlnotes_at(k)`` inserted before its statement ``k`` (an IPython AST
transformer, armed for that one cell), and the child runs the mutant's statements from ``k``
on, in the state the cell's first ``k`` statements left. The statements before ``k`` (in a
check cell, most often the computation its asserts are about: a fit, a JIT compilation) thus
run once, not once more per mutant; the mutant's verdict is the one it would get run whole
from the state before the cell, since its first ``k`` statements are the cell's own. A cell or
mutant that is not plain Python (a magic) falls back to a fork before the cell, running the
mutant whole. The notebook thus runs once, by nbval; the mutants cost only what they change.

The terminal summary counts the check cells (code cells with an ``assert``) nbval ran, those
that declare mutants, the mutants and the killed ones (the README states the book's total), and
adds up the CPU time of each notebook's kernel and of its mutants' forks (read in the kernel
after its last cell), naming the costliest notebooks: where the pass's time goes.
"""

import ast
import json
from queue import Empty

import pytest

from tests.mutant_support import (
    HARNESS,
    MUTANT_TIMEOUT,
    failure,
    is_check_cell,
    mutant_call,
    mutants,
    parse_result,
    source,
)

_KEY = "mlnotes_mutants"

# Run in the kernel after HARNESS: _mlnotes_arm(source, plan, timeout) makes the next cell the
# kernel runs (nbval's run of `source`) call _mlnotes_at(k) before its top-level statement k
# (plan: {k: [[mutant index, the mutant's source from its statement k on], ...]}), which runs
# those mutants through HARNESS's fork; _mlnotes_collect() prints what they gave (RESULTS_TAG)
# and disarms. The transformer acts on one cell only, and only if it is `source` as parsed.
RESULTS_TAG = "MLNOTES-MUTANT-RESULTS "
FORK_POINTS = '''\
def _mlnotes_arm(source, plan, timeout):
    import ast, contextlib, io, json
    ip = get_ipython()
    plan = {int(k): v for k, v in plan.items()}
    want = [ast.dump(stmt) for stmt in ast.parse(source).body]
    results, state = {}, {"spent": False}

    class AtStatements(ast.NodeTransformer):
        def visit_Module(self, node):
            if state["spent"]:
                return node
            state["spent"] = True
            if [ast.dump(stmt) for stmt in node.body] != want:
                return node
            body = []
            for k in range(len(node.body) + 1):
                if k in plan:
                    at = ast.parse(f"_mlnotes_at({k})").body[0]
                    if node.body:  # a traceback names the statement the fork is before
                        ast.copy_location(at, node.body[min(k, len(node.body) - 1)])
                    body.append(at)
                if k < len(node.body):
                    body.append(node.body[k])
            node.body = body
            return ast.fix_missing_locations(node)

    def at(k):
        for index, src in plan[k]:
            out = io.StringIO()
            try:  # nothing of it may change the real cell's run
                with contextlib.redirect_stdout(out):
                    _mlnotes_mutant(src, timeout)
                results[index] = out.getvalue()
            except BaseException as exc:
                results[index] = "harness: " + repr(exc)

    def collect():
        ip.ast_transformers[:] = [t for t in ip.ast_transformers if t is not transformer]
        print(%r + json.dumps(results))

    transformer = AtStatements()
    ip.ast_transformers.append(transformer)
    globals()["_mlnotes_at"], globals()["_mlnotes_collect"] = at, collect
''' % RESULTS_TAG


# Run in the kernel after a notebook's last cell: its own CPU time and its ended children's
# (the mutants' forks), user + system, in seconds; it leaves no name behind.
CPU_TAG = "MLNOTES-KERNEL-CPU "
CPU_PROBE = ('print(%r + __import__("json").dumps([sum(__import__("resource").getrusage(who)[:2])'
             ' for who in (0, -1)]))' % CPU_TAG)  # RUSAGE_SELF, RUSAGE_CHILDREN
_CPU_KEY = "mlnotes_kernel_cpu"


def _statement_start(source, stmt):
    """Where a top-level statement starts in source (its first decorator, if any)."""
    lines = source.split("\n")  # as ast counts lines (str.splitlines also splits at \f)
    first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
    before = sum(len(line) + 1 for line in lines[:first - 1])
    if first < stmt.lineno:
        return before
    column = len(lines[first - 1].encode()[:stmt.col_offset].decode())  # UTF-8 bytes
    return before + column


def fork_plan(cell_source, cell_mutants):
    """Where each mutant leaves its cell: ``({k: [[index, the mutant from its statement k
    on], ...]}, [indices of mutants to run whole before the cell])``; a mutant runs whole when
    the cell or the mutant is not plain Python."""
    try:
        body = ast.parse(cell_source).body
    except SyntaxError:
        return {}, list(range(len(cell_mutants)))
    plan, whole = {}, []
    for index, m in enumerate(cell_mutants):
        mutated = cell_source.replace(m["find"], m["replace"])
        try:
            mutated_body = ast.parse(mutated).body
        except SyntaxError:
            whole.append(index)
            continue
        k = 0
        while (k < min(len(body), len(mutated_body))
               and ast.dump(body[k]) == ast.dump(mutated_body[k])):
            k += 1
        rest = mutated[_statement_start(mutated, mutated_body[k]):] if k < len(mutated_body) else ""
        plan.setdefault(k, []).append([index, rest])
    return plan, whole


class MutantsNotKilled(Exception):
    """A cell's check lets one of its mutants through (or a mutant is broken)."""


def _run_hidden(kernel, code, timeout):
    """Run code in nbval's kernel and return its stream text; its messages never reach a cell."""
    msg_id = kernel.execute_cell_input(code, allow_stdin=False)
    kernel.await_reply(msg_id, timeout=timeout)
    text = []
    while True:
        msg = kernel.get_message("iopub", timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content["execution_state"] == "idle":
            return "".join(text)
        if kind == "stream":
            text.append(content["text"])
        elif kind == "error":
            text.append(f"{content['ename']}: {content['evalue']}\n")


def _harness(item, timeout):
    if not getattr(item.parent, "_mlnotes_harness", False):
        _run_hidden(item.parent.kernel, HARNESS + FORK_POINTS, timeout)
        item.parent._mlnotes_harness = True


def _run_whole(item, indices, timeout):
    """Mutants run whole, each in a fork of the kernel before the cell: {index: result}."""
    kernel, found = item.parent.kernel, {}
    for index in indices:
        m = mutants(item.cell)[index]
        try:
            found[index] = parse_result(
                _run_hidden(kernel, mutant_call(source(item.cell), m), timeout))
        except Empty:
            found[index] = f"no answer from the kernel in {timeout} s"
    return found


def _arm(item, plan, timeout):
    """Make the kernel fork for the planned mutants while it runs the cell."""
    if plan:
        _run_hidden(item.parent.kernel,
                    f"_mlnotes_arm({source(item.cell)!r}, {json.dumps(plan)}, {MUTANT_TIMEOUT})",
                    timeout)


def _collect(item, plan, timeout):
    """What the mutants forked in the cell gave: {index: result} (disarms the kernel)."""
    if not plan:
        return {}
    try:
        text = _run_hidden(item.parent.kernel, "_mlnotes_collect()", timeout)
    except Empty:
        text = ""
    for line in text.splitlines():
        if line.startswith(RESULTS_TAG):
            return {int(i): parse_result(out) for i, out in json.loads(line[len(RESULTS_TAG):]).items()}
    return {}


def _verdict(item, found):
    """(mutants, killed, failures) from each mutant's result."""
    cell_mutants = mutants(item.cell)
    killed, bad = 0, []
    for index, m in enumerate(cell_mutants):
        result = found.get(index, "not run: the kernel did not reach its fork point in the cell")
        problem = failure(result, m)
        if problem is None:
            killed += 1
        else:
            bad.append(problem)
    return len(cell_mutants), killed, bad


def _is_cell(item):
    return type(item).__name__ == "IPyNbCell" and hasattr(item, "cell")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    if not _is_cell(item) or item.options["skip"] or item.parent.timed_out:
        return (yield)
    if not mutants(item.cell):
        item.user_properties.append((_KEY, (int(is_check_cell(item.cell)), 0, 0, 0)))
        return (yield)
    timeout = MUTANT_TIMEOUT + 60
    _harness(item, timeout)
    plan, whole = fork_plan(source(item.cell), mutants(item.cell))
    found = _run_whole(item, whole, timeout)
    _arm(item, plan, timeout)
    try:
        result = yield
    finally:  # the mutants are counted even when the real cell fails
        if not item.parent.timed_out and item.parent.kernel.is_alive():
            found.update(_collect(item, plan, timeout))
        count, killed, bad = _verdict(item, found)
        item.user_properties.append((_KEY, (int(is_check_cell(item.cell)), 1, count, killed)))
    if bad:
        where = f"{item.parent.name}, code cell {item.cell_num} (id {item.cell.get('id')})"
        raise MutantsNotKilled(f"{where}:\n" + "\n".join(f"  {b}" for b in bad))
    return result


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    """After a notebook's last cell (before nbval stops its kernel): the kernel's CPU time."""
    if not _is_cell(item) or (nextitem is not None and nextitem.parent is item.parent):
        return
    kernel = item.parent.kernel
    if item.parent.timed_out or kernel is None or not kernel.is_alive():
        return
    try:
        text = _run_hidden(kernel, CPU_PROBE, 60)
    except Empty:
        return
    for line in text.splitlines():
        if line.startswith(CPU_TAG):
            own, forks = json.loads(line[len(CPU_TAG):])
            item.user_properties.append((_CPU_KEY, (item.parent.nodeid, own, forks)))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.excinfo is not None and isinstance(call.excinfo.value, MutantsNotKilled):
        report.longrepr = f"a mutant is not killed by its check: {call.excinfo.value}"
    return report


# Check cells run, those with mutants, mutants, killed mutants, summed over the reports (from
# every xdist worker).
_totals = [0, 0, 0, 0]
# notebook -> (its kernel's CPU seconds, its mutants' forks')
_cpu = {}


def pytest_runtest_logreport(report):
    for key, value in report.user_properties:
        if key == _KEY and report.when == "call":
            for k in range(4):
                _totals[k] += value[k]
        elif key == _CPU_KEY and report.when == "teardown":
            _cpu[value[0]] = tuple(value[1:])


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput"):
        return
    cells, mutated, count, killed = _totals
    terminalreporter.write_line(
        f"mutants (tests/nbval_mutants.py): {cells} check cells run, {mutated} with mutants, "
        f"{count} mutants, {killed} killed")
    if _cpu:
        costliest = sorted(_cpu.items(), key=lambda kv: -sum(kv[1]))[:5]
        terminalreporter.write_line(
            f"kernel CPU (tests/nbval_mutants.py): {sum(own for own, _ in _cpu.values()):.0f} s "
            f"in {len(_cpu)} notebooks, their mutants' forks "
            f"{sum(forks for _, forks in _cpu.values()):.0f} s; most: "
            + ", ".join(f"{name} {own:.0f} s + {forks:.0f} s" for name, (own, forks) in costliest))
