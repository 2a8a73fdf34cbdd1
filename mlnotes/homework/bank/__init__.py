"""The question bank: every question of the homework, by name.

Two kinds of question live here. A chapter's exercise (``check("sne.kl_divergence", ...)`` in
the t-SNE chapter) is checked against the mlnotes function the chapter builds: the chapter hands
its solution over anyway (modules by part of the book). A graded homework question
(:mod:`.homework`, and the derivations of :mod:`.understanding`) asks for other work, and its
reference answer is the instructor's, read from their solutions (:mod:`.solutions`), never
shipped with the package. The bank depends on :mod:`mlnotes.homework.core` (what a question is,
how it is judged); the core never imports the bank.
"""

from . import (  # noqa: F401
    autoencoder,
    eigenmaps,
    graded,
    graphs,
    homework,
    lle,
    matrices,
    sne,
    umap,
    understanding,
)
from ._common import BANK as QUESTIONS

__all__ = ["QUESTIONS", "get_question"]


def get_question(name):
    """The :class:`~mlnotes.homework.core.Question` called ``name``; a ``KeyError`` listing the
    names otherwise."""
    if name not in QUESTIONS:
        raise KeyError(
            f"no question called {name!r}; the questions are: {', '.join(sorted(QUESTIONS))}"
        )
    return QUESTIONS[name]
