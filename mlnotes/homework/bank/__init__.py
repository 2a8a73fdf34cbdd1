"""The question bank: importing it registers every question in :data:`mlnotes.homework.core.QUESTIONS`.

Each module holds the questions of one part of the book; a question is registered only when its
reference implementation exists in mlnotes.
"""

from . import graphs, matrices, sne  # noqa: F401
