"""What the mutation test of the book's check cells shares (see ``tests/test_mutants.py``).

Both halves use it: the static half (``tests/test_mutants.py``, no kernel) reads which cells are
check cells and what they declare; the dynamic half (``tests/nbval_mutants.py``, a pytest plugin
on the nbval pass of ``make test``) runs each mutant in a ``fork`` of nbval's own kernel
with ``HARNESS`` and judges how it ended with ``failure``.
"""

import json
import re
import textwrap

MUTANT_TIMEOUT = 120
ASSERT_RE = re.compile(r"^\s*assert\b", re.M)
RESULT_TAG = "MLNOTES-MUTANT-RESULT "


def source(cell):
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def is_check_cell(cell):
    """A code cell that contains an ``assert`` statement."""
    return cell["cell_type"] == "code" and bool(ASSERT_RE.search(source(cell)))


def mutants(cell):
    return cell.get("metadata", {}).get("mutants", [])


# Run in the kernel, in its own function scope (nothing is left in the notebook's namespace):
# fork, run the mutant in the child with every outgoing message dropped, report how it ended.
HARNESS = textwrap.dedent('''\
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
                # no post_execute hooks: matplotlib's would render every figure the
                # mutant drew, for nobody (they run after the cell, its error is set)
                ip.events.callbacks["post_execute"] = []
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


def mutant_call(cell_source, mutant, timeout=MUTANT_TIMEOUT):
    """The code that runs one mutant of a cell through ``HARNESS`` (defined in the kernel)."""
    mutated = cell_source.replace(mutant["find"], mutant["replace"])
    return f"_mlnotes_mutant({mutated!r}, {timeout})"


def parse_result(text):
    """How the mutant ended, from what ``mutant_call`` printed."""
    for line in text.splitlines():
        if line.startswith(RESULT_TAG):
            return json.loads(line[len(RESULT_TAG):])
    return f"no result from the harness: {text[-300:]!r}"


def failure(result, mutant):
    """None when the mutant is killed (an AssertionError), else what is wrong with it."""
    if result.startswith("AssertionError"):
        return None
    if result == "passed":
        return (f"the mutant passes: {mutant['why']} "
                f"({mutant['find']!r} -> {mutant['replace']!r})")
    return f"the mutant fails with {result}, not an AssertionError: {mutant['why']}"
