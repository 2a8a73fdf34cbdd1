"""No plain-text key of the graded set (nor of a shipped folder's own key) anywhere a student
can reach.

The fingerprints of the key are the pairs of consecutive lines of its decrypted source that
carry a formula; none may appear in a file tracked by git (notebooks included: what the
book's download button serves), in the wheel or the sdist, or in the built book where there is
one (tests/test_built_book.py). Without the passphrase these tests are skipped (and say why),
except the ones that need no key: an editable install without the passphrase opens nothing, and
the committed key is encrypted. A failing test names files and counts, never the key's text.
"""

import os
import subprocess
import sys
import tarfile
import zipfile

import pytest
from test_homework_graded import NO_PASSPHRASE, ROOT, passphrase_file

from mlnotes.homework import keys

MIN_FINGERPRINT = 40


def _pairs(text):
    """Consecutive pairs of non-blank lines, blanks normalised: a copy of the key (however
    re-indented) shares them, while a single generic line (a softmax's shift) does not count."""
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    return {f"{a} | {b}" for a, b in zip(lines, lines[1:], strict=False)}


@pytest.fixture(scope="module")
def fingerprints():
    path = passphrase_file()
    if path is None:
        pytest.skip(NO_PASSPHRASE)
    def marks_of(key_file):
        source = keys.decrypt(key_file.read_text(), path.read_text())
        return {pair for pair in _pairs(source) if len(pair) >= MIN_FINGERPRINT
                and not pair.startswith("#") and any(op in pair for op in "*/+-")}

    marks = marks_of(keys.ENCRYPTED)
    assert len(marks) >= 16
    # the shipped folders of a course's own format keep their keys encrypted alike
    from mlnotes.homework.assignments import OWN, shipped

    for name in OWN:
        own = marks_of(shipped(name).key)
        assert own, name
        marks |= own
    return marks


def _hits(text, marks):
    return len(_pairs(text) & marks)


def _tracked():
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    return [ROOT / n for n in names if n and (ROOT / n).is_file()]


def test_the_repository_holds_no_line_of_the_key(fingerprints):
    found = {}
    for path in _tracked():
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue
        hits = _hits(text, fingerprints)
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert not found, f"lines of the graded key in tracked files (file: count): {found}"


def test_the_wheel_and_the_sdist_hold_no_line_of_the_key(fingerprints, tmp_path):
    from test_packaging import _build

    wheel, sdist = _build(tmp_path)
    found = {}
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert "mlnotes/homework/data/graded-key.enc" in names
        for name in names:
            hits = _hits(zf.read(name).decode("utf-8", "replace"), fingerprints)
            found.update({f"wheel:{name}": hits} if hits else {})
    with tarfile.open(sdist) as tf:
        for member in tf.getmembers():
            if member.isfile():
                data = tf.extractfile(member).read().decode("utf-8", "replace")
                hits = _hits(data, fingerprints)
                found.update({f"sdist:{member.name}": hits} if hits else {})
    assert not found, f"lines of the graded key in the distributions: {found}"


def test_an_install_without_the_passphrase_opens_no_key(tmp_path):
    """What a student gets from `pip install -e .` or a clone: the graded questions' references
    cannot be called, ``check`` says it compared with no key, and the committed key is a
    Fernet token (no readable Python in it)."""
    script = (
        "from mlnotes.homework import keys, check, run_check, my_variant\n"
        "from mlnotes.homework.bank import QUESTIONS\n"
        "from mlnotes.homework.core import ReferenceUnavailable\n"
        "assert not keys.available()\n"
        "graded = [q for n, q in QUESTIONS.items() if n.startswith('graded.')]\n"
        "for q in graded:\n"
        "    try:\n"
        "        q.reference(_variant={})\n"
        "        raise SystemExit('a graded reference answered without the key')\n"
        "    except ReferenceUnavailable:\n"
        "        pass\n"
        "my_variant('ada')\n"
        "r = run_check('graded.star_spectrum', lambda N, m: [1.0] * m)\n"
        "print(r.text())\n")
    env = {k: v for k, v in os.environ.items()
           if k not in (keys.KEY_FILE_ENV, keys.PASSPHRASE_ENV)}
    env["PYTHONPATH"] = str(ROOT)
    env["HOME"] = str(tmp_path)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "key: none here" in run.stdout and "PASSED" not in run.stdout
    record = keys.ENCRYPTED.read_text()
    assert "gAAAAA" in record and "def " not in record and "REFERENCES" not in record
