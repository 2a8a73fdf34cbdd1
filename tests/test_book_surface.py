"""Build-time pieces of the phone edition (issue 32): no raw TeX in the bibliography, images
that load lazily but keep their box, and display formulas split by hand only where every line
reads as a whole (on a laptop and in the PDF too, not only at a phone's width)."""

import importlib.util
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_ext(name):
    spec = importlib.util.spec_from_file_location(f"book_ext_{name}_32",
                                                  ROOT / "book" / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bibliography_maths_is_set_as_text():
    citations = _load_ext("citations")
    assert citations.tex_as_text(r"O(N \log N)") == "O(N log N)"
    assert citations.tex_as_text(r"\sigma_i") == "σi"
    assert citations.tex_as_text(r"N^{2}\,\times\,D") == "N^2 × D"
    assert "\\" not in citations.tex_as_text(r"\mathcal{O}(\sqrt{N})")


def test_images_load_lazily_and_keep_their_shape():
    surface = _load_ext("surface")
    page = ('<p><img alt="a" src="a.png" style="width: 539px; height: 302px;" />'
            '<img loading="eager" src="b.png"></p>')
    once = surface.lazy_images(page)
    first = re.search(r"<img [^>]*a\.png[^>]*>", once).group(0)
    assert 'loading="lazy"' in first and "aspect-ratio: 539 / 302" in first
    # an image that says how it loads keeps it; a second pass changes nothing
    assert '<img loading="eager" src="b.png">' in once
    assert surface.lazy_images(once) == once


def test_theme_script_runs_late_and_the_mode_is_set_in_the_head():
    surface = _load_ext("surface")
    # the markup pydata-sphinx-theme 0.17 writes (its head script, preload and deferred script)
    src = "../_static/scripts/pydata-sphinx-theme.js?digest=abc"
    page = ('<head>\n  <script data-cfasync="false">\n'
            '    document.documentElement.dataset.mode = localStorage.getItem("mode") || "auto";\n'
            '    document.documentElement.dataset.theme = localStorage.getItem("theme") || "auto";\n'
            '  </script>\n<link rel="stylesheet" href="x.css" />\n'
            f'<link rel="preload" as="script" href="{src}" />\n</head><body>\n'
            '<script defer src="../_static/scripts/bootstrap.js?digest=abc"></script>\n'
            f'<script defer src="{src}"></script>\n</body>')
    once = surface.theme_script_late(page)
    assert f'<script data-mlnotes-late-src="{src}"></script>' in once
    assert "pydata-sphinx-theme.js" not in once.replace(f'data-mlnotes-late-src="{src}"', "")
    # the mode is resolved right after the theme's head script, before any style sheet
    head_end = once.index("</script>") + len("</script>\n")
    assert once[head_end:].startswith("<script data-mlnotes-mode")
    assert once.index("data-mlnotes-mode") < once.index("x.css")
    assert "bootstrap.js" in once
    assert surface.theme_script_late(once) == once
    # a page without the theme's script (a redirect) keeps its head as it is
    bare = "<head><title>x</title></head><body></body>"
    assert surface.theme_script_late(bare) == bare

# --- Hand-split display formulas (issue 32) -----------------------------------------------------
# A display formula may be split into lines by hand only where each line reads as a whole on a
# laptop and in the PDF too: a chain of relations aligned at the relation, or one equation per
# line. A split made for a phone's width (a line that starts or ends mid-expression) looks broken
# everywhere else, and MathJax breaks a formula too wide for the screen by itself
# (book/_static/mlnotes-mathjax.js says where it may).
BOOK = ROOT / "book"
DISPLAY = re.compile(r"\$\$(.*?)\$\$", re.S)
# environments whose rows are the lines of the formula (their \\ are line breaks); any other
# environment (pmatrix, cases, array) is one piece of a line
LINE_ENVS = {"aligned", "gathered", "split", "align", "align*", "gather", "gather*", "alignat",
             "alignedat", "multline", "multline*", "eqnarray", "eqnarray*"}
RELATION = (r"(?:=|<|>|\\(?:le|ge|leq|geq|ne|neq|approx|equiv|sim|simeq|cong|propto|in|notin|"
            r"subset|subseteq|supset|to|mapsto|iff|Longleftrightarrow|Leftrightarrow|"
            r"Longrightarrow|Rightarrow|implies|ll|gg)(?![A-Za-z]))")
OPERATOR = r"(?:[+\-*/]|\\(?:times|cdot|pm|mp|circ|otimes|oplus|setminus|cup|cap)(?![A-Za-z]))"
SPACING = r"(?:\s|\\(?:quad|qquad|[,;:! ])(?![A-Za-z])|~|\{\})*"
_TEXT = re.compile(r"\\(?:text|textit|textbf|mathrm|operatorname\*?)\s*\{[^{}]*\}")
_FENCE = re.compile(r"\\(?:left|right|[bB]igg?[lr]?)\s*(\\[{}]|\\[lr]?(?:angle|brace|Vert|vert)|"
                    r"[()\[\]|.])")


def _display_formulas():
    """(file, TeX) of every display formula of the book's pages: markdown cells and .md files."""
    for path in sorted(BOOK.rglob("*")):
        if "_build" in path.parts or ".ipynb_checkpoints" in path.parts:
            continue
        if path.suffix == ".ipynb":
            cells = json.loads(path.read_text())["cells"]
            texts = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
        elif path.suffix == ".md":
            texts = [path.read_text()]
        else:
            continue
        for text in texts:
            for match in DISPLAY.finditer(text):
                yield path.relative_to(ROOT).as_posix(), match.group(1)


def _rows(tex):
    """The hand-made lines of ``tex``: the rows of its line environments and of its top level,
    each split at ``\\\\`` outside every other environment and brace group (a list per group)."""
    groups, stack = [], [("", [[]])]  # (environment, rows) being read
    token = re.compile(r"\\begin\{([^}]*)\}|\\end\{([^}]*)\}|\\\\(?:\[[^\]]*\])?|\\.|[{}]|[^\\{}]+",
                       re.S)
    depth = 0
    for match in token.finditer(tex):
        text = match.group(0)
        env, rows = stack[-1]
        if match.group(1) is not None:
            stack.append((match.group(1), [[]]))
            if match.group(1) not in LINE_ENVS:
                rows[-1].append(text)
            continue
        if match.group(2) is not None:
            name, inner = stack.pop() if len(stack) > 1 else stack[-1]
            if name in LINE_ENVS:
                groups.append(["".join(r) for r in inner])
                stack[-1][1][-1].append(" \\square ")  # the environment stands in its line
            else:
                stack[-1][1][-1].append("".join("".join(r) for r in inner) + text)
            continue
        if text.startswith("\\\\") and depth == 0 and (env in LINE_ENVS or env == ""):
            rows.append([])
            continue
        if env not in LINE_ENVS and env != "":
            rows[-1].append(text.replace("\\\\", " \\\\ "))
            continue
        depth += text == "{"
        depth -= text == "}"
        rows[-1].append(text)
    groups.append(["".join(r) for r in stack[0][1]])
    return [[r for r in g if r.strip()] for g in groups if len([r for r in g if r.strip()]) > 1]


def _top_level(line):
    """``line`` with text, fences and brace groups' contents removed: what is at its top."""
    line = _TEXT.sub(r" \\square ", line)
    out, depth = [], 0
    for ch in line:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def _open_brackets(line):
    """Opening minus closing brackets of ``line`` ((, [, \\{, \\langle, \\left., \\bigl(...)."""
    line = _FENCE.sub(lambda m: "(" if re.match(r"\\(left|[bB]igg?l)", m.group(0)) else
                      ")" if re.match(r"\\(right|[bB]igg?r)", m.group(0)) else
                      ("(" if m.group(1) in ("(", "[", "\\{", "\\langle", "\\lbrace") else
                       ")" if m.group(1) in (")", "]", "\\}", "\\rangle", "\\rbrace") else " "),
                      line)
    line = re.sub(r"\\[{]|\\langle(?![A-Za-z])", "(", line)
    line = re.sub(r"\\[}]|\\rangle(?![A-Za-z])", ")", line)
    line = re.sub(r"\\[A-Za-z]+", " ", line)
    return line.count("(") + line.count("[") - line.count(")") - line.count("]")


def hand_split_faults(tex):
    """Where ``tex``'s hand-made line breaks leave a line that does not read as a whole: a
    bracket left open across a break, a line that starts or ends with an operator, a
    left-hand side alone on its line (the next starts with its relation), or a line without a
    relation that continues the line before (a lone term, or a qualifier set under its
    formula). A line of an aligned list may be labelled (``\\text{...} & ...``)."""
    faults = []
    for rows in _rows(tex):
        for i, row in enumerate(rows):
            body = re.sub(r"\\(?:label|tag)\{[^}]*\}", "", row).strip()
            start = re.sub(rf"^{SPACING}&?{SPACING}", "", body)
            top = _top_level(body)
            short = " ".join(body.split())[:60]
            if _open_brackets(body) != 0:
                faults.append(f"a bracket open across a line break: {short!r}")
            elif i > 0 and re.match(OPERATOR, start):
                faults.append(f"a line starts with an operator: {short!r}")
            elif i < len(rows) - 1 and re.search(rf"(?:{OPERATOR}|{RELATION}){SPACING}&?"
                                                   rf"{SPACING}[,.;]?{SPACING}$", body):
                faults.append(f"a line ends with an operator or relation: {short!r}")
            elif (i < len(rows) - 1 and not re.search(RELATION, _top_level(rows[i]))
                  and re.match(RELATION, re.sub(rf"^{SPACING}&?{SPACING}", "", rows[i + 1]))):
                faults.append(f"a left-hand side alone on its line: {short!r}")
            elif i > 0 and re.match(r"\\text", start) and body.lstrip().startswith("&"):
                faults.append(f"a qualifier set under its formula: {short!r}")
            elif (i > 0 and not re.search(RELATION, top) and body.lstrip().startswith("&")
                  and not re.match(RELATION, start)):
                faults.append(f"a lone term continues the line before: {short!r}")
    return faults


def test_hand_split_finds_a_split_mid_expression():
    whole = (r"\begin{aligned} f(x) &= a + b + c, \\ g(x) &= d \\ &\le e + f . \end{aligned}")
    assert hand_split_faults(whole) == []
    # the mutant: a split after a "+", as a phone's width once suggested
    assert hand_split_faults(whole.replace("a + ", r"a + \\ &\quad ", 1))
    assert hand_split_faults(whole.replace("a + b", r"a \\ &\quad + b", 1))
    assert hand_split_faults(r"\begin{aligned} f &= 4 \Bigg[ a \\ & - b \Bigg] c \end{aligned}")
    assert hand_split_faults(r"\begin{aligned} &\#\{x\} \\ &\qquad = 3 \end{aligned}")
    assert hand_split_faults(r"\begin{aligned} f &= a \\ &\text{for } a = 2 \end{aligned}")
    # rows of a matrix or of cases are not lines of the formula; a labelled list is
    assert hand_split_faults(r"A = \begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix} + B") == []
    assert hand_split_faults(r"\begin{aligned} \text{one:}\quad & \rho, \\ "
                             r"\text{two:}\quad & \rho^2 . \end{aligned}") == []


def test_no_formula_is_split_mid_expression():
    """Every hand split of the book's display formulas reads as a whole on a laptop and in the
    PDF: at a relation, or one equation per line (a phone's narrow lines are MathJax's)."""
    split, faults = 0, []
    for name, tex in _display_formulas():
        split += bool(_rows(tex))
        faults += [f"{name}: {f}" for f in hand_split_faults(tex)]
    assert split >= 40, f"only {split} formulas split into lines: the scan finds none?"
    assert not faults, f"{len(faults)} hand splits mid-expression:\n  " + "\n  ".join(faults)


def test_prerender_links_the_style_sheet_and_turns_mathjax_off(tmp_path):
    """book/_ext/prerender.py's page step: the CHTML style sheet linked at the page's depth, the
    MathJax script turned off (its address kept) only when no formula is left as TeX; the
    style sheet of an incremental build keeps the rules of the pages it did not typeset."""
    prerender = _load_ext("prerender")
    script = '<script defer="defer" src="../_static/mathjax4/tex-chtml.js?v=4ea4c670"></script>'
    page = tmp_path / "book" / "p.html"
    page.parent.mkdir()
    for left in (0, 1):
        page.write_text(f"<html><head>{script}</head><body></body></html>")
        prerender.finish_page(page, tmp_path, left)
        html = page.read_text()
        assert '<link rel="stylesheet" type="text/css" href="../_static/mlnotes-chtml.css" />' in html
        assert (script in html) == bool(left)
        assert ('data-mlnotes-mathjax="../_static/mathjax4/tex-chtml.js?v=4ea4c670"' in html) != bool(left)
    prerender.finish_page(page, tmp_path, 1)
    assert page.read_text().count("mlnotes-chtml.css") == 1
    merged = prerender.merge_css("a {\n  x: 1;\n}\n\nb {\n  y: 2;\n}\n", "b {\n  y: 2;\n}\n\nc {\n}\n")
    assert merged.split("\n\n") == ["a {\n  x: 1;\n}", "b {\n  y: 2;\n}", "c {\n}\n"]
    (tmp_path / "book" / "q.html").write_text(
        '<div class="math notranslate nohighlight" id="equation-x">\n'
        '<span class="eqno">(1)<a href="#x">#</a></span>\\[x\\]\n</div>')
    (tmp_path / "book" / "r.html").write_text('<span class="math notranslate nohighlight">'
                                              '<mjx-container></mjx-container></span>')
    assert prerender.pages_with_tex(tmp_path) == [tmp_path / "book" / "q.html"]


def test_prerender_mode_is_checked(monkeypatch):
    """MLNOTES_PRERENDER_MATHS names what is typeset at build time: a wrong value says which
    ones there are (a typo would silently build the book another way)."""
    prerender = _load_ext("prerender")

    class App:
        class builder:
            format = "html"

    monkeypatch.setenv("MLNOTES_PRERENDER_MATHS", "first")
    with pytest.raises(ValueError, match=r"MLNOTES_PRERENDER_MATHS='first': use one of "
                                         r"\['0', '1', 'all', 'island', 'top'\]"):
        prerender.prerender(App, None)
    monkeypatch.setenv("MLNOTES_PRERENDER_MATHS", "0")
    assert prerender.prerender(App, None) is None  # none: the pages are left as written
