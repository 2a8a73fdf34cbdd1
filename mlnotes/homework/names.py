"""Student names that look alike: a homoglyph twin ("аlice" in Cyrillic beside "alice").

Two rows whose names differ but look the same would let a student pass for a classmate, or
hide a second submission. Names are compared after *confusable folding* (the idea of Unicode's
skeletons, UTS #39): compatibility decomposition (NFKD: full-width letters, ligatures), accents
and invisible characters dropped, and each letter that looks like a Latin one (Cyrillic, Greek, Armenian,
the Latin look-alikes of other scripts) replaced by it. A name that mixes scripts is also
flagged on its own. The grader adds a note to each such row (:func:`lookalikes`); it never
merges or drops one.
"""

import unicodedata

# Letters that render like a Latin letter or digit in common fonts (lower case; an upper-case
# letter maps to the upper case of the same). From Unicode's confusables for the scripts a class list meets.
_LOOKALIKE = {
    # Cyrillic
    "а": "a", "в": "b", "г": "r", "е": "e", "ё": "e", "з": "3", "і": "i", "ї": "i", "ј": "j",
    "к": "k", "м": "m", "н": "h", "о": "o", "п": "n", "р": "p", "с": "c", "т": "t", "у": "y",
    "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ɡ": "g", "ь": "b",
    "ү": "y", "ҽ": "e", "ԍ": "g", "ԧ": "h",
    # Greek
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ϲ": "c", "ϳ": "j", "ς": "c",
    # Armenian and others
    "օ": "o", "ս": "u", "ց": "g", "հ": "h", "ո": "n", "զ": "q", "ⅼ": "l", "ı": "i", "ȷ": "j",
    "ℓ": "l", "ø": "o", "đ": "d", "ħ": "h", "ł": "l",
    # digits and letters read as one another
    "0": "o", "1": "l", "|": "l",
}
# Characters that change nothing a reader sees: zero-width, joiners, direction marks.
_INVISIBLE = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\u200f", "\u00ad"}


def skeleton(name):
    """``name`` folded so that names a reader cannot tell apart fold to the same text."""
    out = []
    for c in unicodedata.normalize("NFKD", str(name)):
        if c in _INVISIBLE or unicodedata.combining(c):
            continue
        lower = c.lower()
        latin = _LOOKALIKE.get(lower, lower)
        out.append(latin if c == lower else latin.upper())  # case as written: "Alice" is
    return unicodedata.normalize("NFKC", "".join(out))      # not a twin of "alice"


def _script(c):
    """The script of a letter, from its Unicode name (``LATIN``, ``CYRILLIC``, ``GREEK``
    ...); None for what is not a letter."""
    if not c.isalpha():
        return None
    return unicodedata.name(c, "UNKNOWN").split(" ", 1)[0]


def mixed_scripts(name):
    """The scripts of the letters of ``name`` when there are more than one."""
    scripts = sorted({s for s in map(_script, str(name)) if s})
    return scripts if len(scripts) > 1 else []


def lookalikes(names):
    """``{name: note}`` for each name that looks like another of ``names`` but differs, or
    mixes scripts: the grader's words for that row."""
    groups = {}
    for name in dict.fromkeys(names):
        groups.setdefault(skeleton(name), []).append(name)
    notes = {}
    for group in groups.values():
        for name in group:
            twins = [other for other in group if other != name]
            if twins:
                notes[name] = (f"this name looks like {len(twins)} other name(s) of the class "
                               "that differ in letters from other scripts or invisible "
                               "characters: check that these submissions are different "
                               "students")
    for name in dict.fromkeys(names):
        scripts = mixed_scripts(name)
        if scripts and name not in notes:
            notes[name] = (f"this name mixes letters of the {', '.join(scripts)} scripts, "
                           "which can look like another name: check who submitted it")
    return notes
