"""The question bank: importing it registers every question in :data:`mlnotes.homework.core.QUESTIONS`.

Each module holds the questions of one part of the book; every reference answer comes from the
mlnotes function that the book's chapter builds (imported here, in the trusted process).
"""

from . import autoencoder, eigenmaps, graphs, lle, matrices, sne  # noqa: F401
