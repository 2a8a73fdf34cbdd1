"""The graded set's answer key: encrypted in the package, decrypted only in the grader.

The key is a Python source defining ``REFERENCES = {question name: function}`` (each called with
a case's inputs, the student's variant under ``_variant``) and ``CATALOGUE = {question name:
[(label, function), ...]}`` (realistic wrong answers, for the tests of the checker). It is
stored as ``data/graded-key.enc`` beside this module (a course's own assignment folder stores
its key the same way, e.g. ``key.enc``, named in its ``assignment.toml``: :mod:`~.folder`): a
JSON record of the key-derivation settings, its salt and a Fernet token (AES-128-CBC with
HMAC-SHA256, from the ``cryptography`` package; no home-made cryptography). The Fernet key is
derived from the course's passphrase with scrypt (n = 2^15, r = 8, p = 1), a fresh 16-byte salt
per encryption.

The passphrase comes from, in this order: :func:`use_key_file` (the grader's ``--key-file``),
the file named by ``MLNOTES_HOMEWORK_KEY_FILE``, the variable ``MLNOTES_HOMEWORK_PASSPHRASE``.
Without it nothing here fails: the questions are checked by their properties and the key's
comparison happens when the work is graded. The decrypted source lives in this process's memory
only (never a file, never a variable graded code inherits: the sandboxed child starts from an
empty environment); a course rotates the passphrase with ``python -m mlnotes.homework
encrypt-key`` (see the README).
"""

import base64
import json
import os
from pathlib import Path

from .core import ReferenceUnavailable

KEY_FILE_ENV = "MLNOTES_HOMEWORK_KEY_FILE"
PASSPHRASE_ENV = "MLNOTES_HOMEWORK_PASSPHRASE"
ENCRYPTED = Path(__file__).resolve().parent / "data" / "graded-key.enc"
FORMAT = "mlnotes-graded-key/1"
# scrypt's cost: 2^15 x 8 x 128 bytes = 32 MB and about 0.1 s per derivation.
SCRYPT_N, SCRYPT_R, SCRYPT_P, SALT_BYTES = 2**15, 8, 1, 16
_state = {"key_file": None, "module": None, "modules": {}}
NO_PASSPHRASE = ("the graded set's key is encrypted and no passphrase was given: your answer is "
                 "compared with it when your work is graded (instructors: --key-file FILE, or "
                 f"set {KEY_FILE_ENV})")
FOR_INSTRUCTORS = ("the graded set's key is encrypted: give the course's passphrase with "
                   f"--key-file FILE, or set {KEY_FILE_ENV} (a file) or {PASSPHRASE_ENV}")


class KeyUnavailable(ReferenceUnavailable):
    """The key cannot be read: no passphrase, a wrong one, or a damaged file."""


def _fernet(passphrase, salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P):
    from .._optional import import_optional

    Fernet = import_optional("cryptography.fernet", purpose="The graded key").Fernet
    Scrypt = import_optional("cryptography.hazmat.primitives.kdf.scrypt",
                             purpose="The graded key").Scrypt

    if isinstance(passphrase, str):
        passphrase = passphrase.encode("utf-8")
    raw = Scrypt(salt=salt, length=32, n=n, r=r, p=p).derive(passphrase)
    return Fernet(base64.urlsafe_b64encode(raw))


def encrypt(plaintext, passphrase):
    """The encrypted record (JSON text) of ``plaintext`` (str) under ``passphrase``."""
    if not str(passphrase).strip():
        raise ValueError("the passphrase is empty: choose a long random one (e.g. "
                         "python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    salt = os.urandom(SALT_BYTES)
    token = _fernet(passphrase.strip(), salt).encrypt(plaintext.encode("utf-8"))
    return json.dumps({"format": FORMAT, "kdf": "scrypt", "n": SCRYPT_N, "r": SCRYPT_R,
                       "p": SCRYPT_P, "salt": base64.b64encode(salt).decode("ascii"),
                       "token": token.decode("ascii")}, indent=1) + "\n"


def decrypt(record, passphrase):
    """The plaintext of an encrypted ``record`` (JSON text); a :class:`KeyUnavailable` if the
    passphrase is wrong or the record damaged."""
    from .._optional import import_optional

    InvalidToken = import_optional("cryptography.fernet", purpose="The graded key").InvalidToken
    try:
        meta = json.loads(record)
        if meta.get("format") != FORMAT or meta.get("kdf") != "scrypt":
            raise ValueError("not a graded key")
        salt = base64.b64decode(meta["salt"])
        fernet = _fernet(passphrase.strip(), salt, int(meta["n"]), int(meta["r"]), int(meta["p"]))
        return fernet.decrypt(meta["token"].encode("ascii")).decode("utf-8")
    except InvalidToken:
        raise KeyUnavailable("the passphrase does not open the graded key (a wrong or an old "
                        "passphrase: ask whoever keeps the course's key)") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise KeyUnavailable(f"the graded key file is damaged ({exc}); restore it from the "
                        "repository") from None


def use_key_file(path):
    """Read the passphrase from ``path`` from now on (``None``: back to the environment)."""
    if path is not None and not Path(path).is_file():
        raise FileNotFoundError(f"{path} is not a file: give the file holding the course's "
                                "passphrase (one line)")
    _state.update(key_file=None if path is None else Path(path), module=None, modules={})


def key_file():
    """The file the passphrase is read from (``None``: none, or the variable holds it)."""
    if _state["key_file"] is not None:
        return _state["key_file"]
    env = os.environ.get(KEY_FILE_ENV)
    return Path(env) if env else None


def passphrase():
    """The course's passphrase, or a :class:`KeyUnavailable` saying how to give it."""
    path = key_file()
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise KeyUnavailable(f"the passphrase file cannot be read ({type(exc).__name__})") from None
        if text:
            return text
    text = os.environ.get(PASSPHRASE_ENV, "").strip()
    if text:
        return text
    raise KeyUnavailable(NO_PASSPHRASE)


def available():
    """Whether the graded key can be opened here."""
    try:
        _module()
    except ReferenceUnavailable:
        return False
    return True


def _module(path=None):
    """The namespace of the decrypted key ``path`` (default: the shipped graded set's), decrypted
    once per passphrase."""
    if path is not None and Path(path).resolve() != ENCRYPTED:
        path = Path(path).resolve()
        if path not in _state["modules"]:
            _state["modules"][path] = _run_key(path)
        return _state["modules"][path]
    if _state["module"] is None:
        _state["module"] = _run_key(ENCRYPTED)
    return _state["module"]


def _run_key(path):
    try:
        record = Path(path).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyUnavailable(f"the key file {Path(path).name} cannot be read "
                             f"({type(exc).__name__}): encrypt the key again with "
                             "python -m mlnotes.homework encrypt-key") from None
    source = decrypt(record, passphrase())
    namespace = {"__name__": "_mlnotes_graded_key"}
    exec(compile(source, "<graded key>", "exec"), namespace)  # noqa: S102 - the course's key
    return namespace


class GradedReference:
    """The reference answer of graded question ``name``, from the decrypted key on use (the
    key file ``path``: an assignment folder's own; default, the shipped graded set's)."""

    def __init__(self, name, path=None):
        self.name = name
        self.path = path

    def __call__(self, **inputs):
        references = _module(self.path).get("REFERENCES", {})
        if self.name not in references:
            raise ReferenceUnavailable(f"the graded key has no reference for {self.name!r}: "
                                       "encrypt the course's current key again")
        return references[self.name](**inputs)


def catalogue():
    """``{question: [(label, wrong answer function), ...]}`` from the key (tests only)."""
    return _module().get("CATALOGUE", {})
