"""A pytest plugin: the mutants of the book's check cells, run inside nbval's own pass.

``make test``'s nbval pass (under another BLAS kernel, ``make test-notebooks-kernel``) loads it
(``-p tests.nbval_mutants``, as ``make test-notebooks`` does under the machine's own kernel).
Before nbval runs a cell that declares ``mutants`` in its metadata, each mutant (the
cell's source with ``find`` replaced by ``replace``) runs in a ``fork`` of nbval's kernel, in the
state the cells before it left (``tests/mutant_support.py``: the child drops every outgoing
message, so nothing of it reaches nbval's captured outputs, and whatever it assigns dies with
it). A mutant must end in an ``AssertionError``; one that passes, or fails with another error (a
``NameError`` shows the mutant is broken, not that the check works), fails the cell's item, after
the real cell has run (so the kernel state the next cells see is the book's). The notebook thus
runs once, by nbval; the mutants cost only their own execution.

The terminal summary counts the check cells (code cells with an ``assert``) nbval ran, those
that declare mutants, the mutants and the killed ones (the README states the book's total).
"""

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


def _run_mutants(item):
    """Each mutant of the item's cell in a fork of the kernel: (mutants, killed, failures)."""
    kernel, timeout = item.parent.kernel, MUTANT_TIMEOUT + 60
    if not getattr(item.parent, "_mlnotes_harness", False):
        _run_hidden(kernel, HARNESS, timeout)
        item.parent._mlnotes_harness = True
    killed, bad = 0, []
    for m in mutants(item.cell):
        try:
            result = parse_result(_run_hidden(kernel, mutant_call(source(item.cell), m), timeout))
        except Empty:
            result = f"no answer from the kernel in {timeout} s"
        problem = failure(result, m)
        if problem is None:
            killed += 1
        else:
            bad.append(problem)
    return len(mutants(item.cell)), killed, bad


def _is_cell(item):
    return type(item).__name__ == "IPyNbCell" and hasattr(item, "cell")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    if not _is_cell(item) or item.options["skip"] or item.parent.timed_out:
        return (yield)
    count, killed, bad = _run_mutants(item) if mutants(item.cell) else (0, 0, [])
    item.user_properties.append((_KEY, (int(is_check_cell(item.cell)), int(count > 0), count,
                                        killed)))
    result = yield
    if bad:
        where = f"{item.parent.name}, code cell {item.cell_num} (id {item.cell.get('id')})"
        raise MutantsNotKilled(f"{where}:\n" + "\n".join(f"  {b}" for b in bad))
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.excinfo is not None and isinstance(call.excinfo.value, MutantsNotKilled):
        report.longrepr = f"a mutant is not killed by its check: {call.excinfo.value}"
    return report


# Check cells run, those with mutants, mutants, killed mutants, summed over the reports (from
# every xdist worker).
_totals = [0, 0, 0, 0]


def pytest_runtest_logreport(report):
    if report.when != "call":
        return
    for key, value in report.user_properties:
        if key == _KEY:
            for k in range(4):
                _totals[k] += value[k]


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workerinput"):
        return
    cells, mutated, count, killed = _totals
    terminalreporter.write_line(
        f"mutants (tests/nbval_mutants.py): {cells} check cells run, {mutated} with mutants, "
        f"{count} mutants, {killed} killed")
