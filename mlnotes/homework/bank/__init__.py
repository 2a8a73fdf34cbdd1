"""The question bank: every question of the homework, by name.

Each module holds the questions of one part of the book; every reference answer comes from the
mlnotes function that the book's chapter builds (imported here, in the trusted process). The bank
depends on :mod:`mlnotes.homework.core` (what a question is, how it is judged); the core never
imports the bank.
"""

from . import autoencoder, eigenmaps, graphs, lle, matrices, sne, understanding  # noqa: F401
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
