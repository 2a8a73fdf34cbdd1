/* Small improvements of the book's pages that need JavaScript.
 *
 * Wide inline math: MathJax 3 does not break inline formulas, so one wider than the text column
 * (on a phone) would be cut off. Such formulas are marked "mlnotes-wide-inline" after typesetting;
 * the CSS lets them scroll on their own. Formulas that fit keep their normal baseline.
 *
 * Figures on a phone: a figure drawn for the laptop column is shrunk on a phone. Tapping it (or
 * Enter when it has focus) opens it at full size in a dialog that scrolls; Escape, a tap or the
 * close button closes it. Only figures shown smaller than their own size get this.
 *
 * Search results: Sphinx builds each result's snippet from the page's text content, which runs
 * the words of adjacent blocks together ("problemIn") and shows math as raw TeX ("\(r(i,j)\)").
 * The snippet text is rebuilt here with a space between blocks and the TeX turned into readable
 * text (delimiters, backslashes and braces dropped; Greek letters as symbols).
 *
 * Scroll boxes: display maths, tables, code and outputs wider than their box scroll inside it; only
 * those that really overflow get the class "mlnotes-overflows" (edge shadows in mlnotes.css), with
 * --mlnotes-cover set to the colour behind them (a theorem box's tint, the page), in light and
 * dark mode alike.
 *
 * Printed outputs: text with aligned columns keeps its layout (it scrolls); other text output
 * (prose, messages) is marked "mlnotes-wrap" and wraps.
 *
 * Tables in the text become a stack of small blocks on a phone (mlnotes.css): each cell gets its
 * column's name in data-label. Shrunk figures carry a visible "Enlarge" badge.
 *
 * Header and sidebars: the theme button switches between light and dark (the theme's cycle
 * started with an "auto" step that looks unchanged); a tap on a link in the phone's "Contents"
 * or chapter drawer closes the drawer, so the place it jumps to is not covered.
 *
 * Solutions: "Solution to Exercise 6.1 (★ Warm-up: …)" keeps its exercise title in a span that
 * a phone hides.
 *
 * Search: both spellings (British "centring", American "centering") find the same pages: the
 * stemmer in language_data.js maps one to the other (book/_ext/surface.py); here the snippet
 * looks for either spelling in the page text.
 */
"use strict";

const MLNOTES_BLOCKS = "p, div, li, dt, dd, h1, h2, h3, h4, h5, h6, td, th, tr, pre, " +
  "figcaption, caption, section, blockquote, summary";

const MLNOTES_TEX_SYMBOLS = {
  alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", zeta: "ζ",
  eta: "η", theta: "θ", kappa: "κ", lambda: "λ", mu: "μ", nu: "ν", xi: "ξ", pi: "π",
  rho: "ρ", sigma: "σ", tau: "τ", phi: "φ", varphi: "φ", chi: "χ", psi: "ψ", omega: "ω",
  Gamma: "Γ", Delta: "Δ", Theta: "Θ", Lambda: "Λ", Sigma: "Σ", Phi: "Φ", Psi: "Ψ",
  Omega: "Ω", top: "ᵀ", le: "≤", leq: "≤", ge: "≥", geq: "≥", neq: "≠", approx: "≈",
  in: "∈", to: "→", times: "×", cdot: "·", sum: "Σ", infty: "∞", partial: "∂", nabla: "∇",
  ell: "ℓ", mid: "|", ldots: "…", dots: "…", cdots: "⋯", sqrt: "√",
  log: "log", exp: "exp", min: "min", max: "max", det: "det",
};

/* "\(\mathbb{R}^{D}\)" -> "R^D": readable text for a search snippet. */
function mlnotesTexToText(tex) {
  return tex
    .replace(/\\[()[\]]/g, "")
    .replace(/\\(?:begin|end)\{[^}]*\}/g, " ")
    .replace(/\\(?:left|right|big|Big|bigg|Bigg)\b/g, "")
    .replace(/\\([A-Za-z]+)/g, (m, name) => MLNOTES_TEX_SYMBOLS[name] || "")
    .replace(/\\[,;:! ]/g, " ")
    .replace(/\\\\|&/g, " ")
    .replace(/[{}]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

function mlnotesReadableText(root) {
  root.querySelectorAll(".headerlink, script, style, .mlnotes-check__hint, .visually-hidden")
    .forEach((el) => el.remove());
  root.querySelectorAll(".math").forEach((el) => {
    el.textContent = " " + mlnotesTexToText(el.textContent) + " ";
  });
  root.querySelectorAll(MLNOTES_BLOCKS).forEach((el) => el.append(" "));
  root.querySelectorAll("br").forEach((el) => el.replaceWith(" "));
  return root.textContent.replace(/\s+/g, " ").trim();
}

/* TeX in the text a browser shows from attributes: a citation's tooltip (its title, the
   bibliography entry as text: "A hierarchical $O(N \log N)$ force-calculation algorithm"), an
   image's alt text or an ARIA label read by a screen reader. Each $...$ or \(...\) there
   becomes readable text ("O(N log N)"). */
const MLNOTES_TEX_IN_TEXT = /\$([^$]+)\$|\\\((.+?)\\\)/g;
function mlnotesPlainAttributes(root = document) {
  for (const name of ["title", "alt", "aria-label"]) {
    root.querySelectorAll(`[${name}*="$"], [${name}*="\\\\"]`).forEach((el) => {
      if (el.closest("mjx-container")) return;
      const value = el.getAttribute(name);
      const plain = value.replace(MLNOTES_TEX_IN_TEXT, (m, a, b) => mlnotesTexToText(a || b));
      if (plain !== value) el.setAttribute(name, plain);
    });
  }
}

/* The stems a snippet may look for: each keyword and its other spelling(s). */
function mlnotesSpellingKeywords(keywords) {
  const out = new Set(keywords);
  if (typeof MLNOTES_SPELLINGS === "undefined" || typeof Stemmer === "undefined") return out;
  const stemmer = new Stemmer();
  MLNOTES_SPELLINGS.forEach(([british, american]) => {
    const stem = stemmer.stemWord(american);
    if (out.has(stem)) {
      out.add(british.replace(/(?:e|ing|ed|es|s|ation|ations)$/, ""));
      out.add(american.replace(/(?:e|ing|ed|es|s|ation|ations)$/, ""));
    }
  });
  return out;
}

function mlnotesPatchSearch() {
  if (typeof Search === "undefined" || !Search.htmlToText) return;
  if (Search.makeSearchSummary && !Search.mlnotesSummary) {
    const original = Search.makeSearchSummary;
    Search.mlnotesSummary = original;
    Search.makeSearchSummary = (htmlText, keywords, anchor) =>
      original(htmlText, mlnotesSpellingKeywords(keywords), anchor);
  }
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    // the article only: the header buttons and "Contents" are page chrome, not text
    const main = doc.querySelector("article.bd-article") || doc.querySelector('[role="main"]');
    if (!main) return "";
    const block = anchor ? main.querySelector(anchor) : null;
    return mlnotesReadableText(block || main);
  };
}

function mlnotesMarkWideInlineMath() {
  const formulas = Array.from(document.querySelectorAll(".bd-article mjx-container:not([display])"));
  // measured as if unmarked (a marked formula scrolls inside a box of the column's width), then
  // marked, all at once: one layout, not one per formula
  formulas.forEach((el) => el.classList.remove("mlnotes-wide-inline"));
  const wide = formulas.filter((el) => {
    const block = el.closest("p, li, dd, td, th, div, figcaption, span.caption-text") || el.parentElement;
    return el.getBoundingClientRect().width > block.clientWidth + 1;
  });
  wide.forEach((el) => el.classList.add("mlnotes-wide-inline"));
}

function mlnotesZoomDialog() {
  let dialog = document.getElementById("mlnotes-zoom");
  if (dialog) return dialog;
  dialog = document.createElement("dialog");
  dialog.id = "mlnotes-zoom";
  dialog.className = "mlnotes-zoom";
  dialog.setAttribute("aria-label", "Figure at full size");
  dialog.innerHTML = '<button type="button" class="mlnotes-zoom__close" aria-label="Close">×</button>' +
    '<div class="mlnotes-zoom__body"><img alt=""></div>';
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog || event.target.closest(".mlnotes-zoom__close")) dialog.close();
  });
  document.body.append(dialog);
  return dialog;
}

function mlnotesOpenZoom(img) {
  const dialog = mlnotesZoomDialog();
  const big = dialog.querySelector("img");
  big.src = img.currentSrc || img.src;
  big.alt = img.alt;
  // natural pixels are drawn at 2x: the figure's own size in CSS pixels is half of them
  big.style.width = Math.round(img.naturalWidth / 2) + "px";
  dialog.showModal();
}

/* A visible "Enlarge" mark in the corner of a shrunk figure. */
function mlnotesZoomBadge(img, shown) {
  let frame = img.parentElement;
  if (!frame.classList.contains("mlnotes-zoom-frame")) {
    if (!shown) return;
    frame = document.createElement("span");
    frame.className = "mlnotes-zoom-frame";
    img.before(frame);
    frame.append(img);
    const badge = document.createElement("span");
    badge.className = "mlnotes-zoom-badge";
    badge.setAttribute("aria-hidden", "true");
    badge.textContent = "⤢ Enlarge";
    frame.append(badge);
  }
  frame.querySelector(".mlnotes-zoom-badge").hidden = !shown;
}

function mlnotesMarkZoomableFigures(root = document) {
  root.querySelectorAll(".bd-article .cell_output img, .bd-article figure img").forEach((img) => {
    if (!mlnotesLaidOut(img)) return;  // marked when its cell is laid out
    if (!img.naturalWidth) {
      // a lazily loaded figure (loading="lazy") is marked when it arrives
      if (!img.dataset.mlnotesZoomWait) {
        img.dataset.mlnotesZoomWait = "1";
        img.addEventListener("load", () => mlnotesMarkZoomableFigures(), { once: true });
      }
      return;
    }
    const shrunk = img.naturalWidth / 2 > img.getBoundingClientRect().width + 24;
    img.classList.toggle("mlnotes-zoomable", shrunk);
    mlnotesZoomBadge(img, shrunk);
    if (shrunk && !img.dataset.mlnotesZoom) {
      img.dataset.mlnotesZoom = "1";
      // Sphinx wraps a figure's image in a link to the PNG: the dialog replaces that navigation
      const target = img.closest("a") || img;
      if (target === img) {
        img.tabIndex = 0;
        img.setAttribute("role", "button");
      }
      target.setAttribute("aria-label", "Enlarge figure: " + (img.alt || ""));
      target.addEventListener("click", (event) => {
        if (!img.classList.contains("mlnotes-zoomable")) return;
        event.preventDefault();
        mlnotesOpenZoom(img);
      });
      target.addEventListener("keydown", (event) => {
        if ((event.key === "Enter" || event.key === " ") && img.classList.contains("mlnotes-zoomable")) {
          event.preventDefault();
          mlnotesOpenZoom(img);
        }
      });
    }
  });
}

/* A header cell's text with its maths as readable text, typeset or not yet. */
function mlnotesLabelText(cell) {
  const copy = cell.cloneNode(true);
  copy.querySelectorAll("mjx-container").forEach((mjx) => {
    const mml = mjx.querySelector("mjx-assistive-mml");
    mjx.replaceWith(document.createTextNode(mjx.getAttribute("aria-label")
      || (mml ? mml.textContent : mjx.textContent)));
  });
  return mlnotesReadableText(copy);
}

/* Tables written in the text (not printed outputs): column names into data-label, so that a
   phone can show each row as a block. */
function mlnotesStackTables() {
  document.querySelectorAll(".bd-article table").forEach((table) => {
    if (table.closest(".cell_output") || table.closest(".modindextable") || table.classList.contains("mlnotes-stack")) return;
    const head = table.querySelector("thead tr");
    if (!head) return;
    // the names as readable text: a column named "\(A\)" reads "A" (data-label is plain text)
    const names = Array.from(head.children).map((th) => mlnotesLabelText(th));
    table.classList.add("mlnotes-stack");
    table.querySelectorAll("tbody tr").forEach((tr) => {
      Array.from(tr.children).forEach((td, i) => {
        if (names[i]) td.setAttribute("data-label", names[i]);
        td.classList.toggle("mlnotes-empty-cell", !td.textContent.trim() && !td.querySelector("img, mjx-container, .math"));
      });
    });
  });
}

/* Light <-> dark in one tap, as the theme itself would set it (data-mode, data-theme, storage). */
function mlnotesSetMode(mode) {
  const root = document.documentElement;
  root.dataset.mode = mode;
  root.dataset.theme = mode;
  document.querySelectorAll(".dropdown-menu").forEach((menu) =>
    menu.classList.toggle("dropdown-menu-dark", mode === "dark"));
  localStorage.setItem("mode", mode);
  localStorage.setItem("theme", mode);
}

function mlnotesThemeToggle() {
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest(".theme-switch-button");
    if (!button) return;
    event.stopPropagation();
    event.preventDefault();
    const dark = document.documentElement.dataset.theme === "dark";
    mlnotesSetMode(dark ? "light" : "dark");
    button.setAttribute("aria-label", dark ? "Switch to dark mode" : "Switch to light mode");
  }, true);
}

/* A tap on a link in a sidebar drawer (phone) closes the drawer. */
function mlnotesCloseDrawerOnTap() {
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a[href]");
    const dialog = link && link.closest("dialog");
    if (dialog && dialog.open && /sidebar-modal/.test(dialog.id || "")) dialog.close();
  });
}

/* "Solution to Exercise 6.1 (★ Warm-up: …)": the part in brackets (with any maths in it) moves
   into a span of its own, which a phone hides; the stars stay visible. */
function mlnotesShortSolutionTitles() {
  document.querySelectorAll(".solution > .admonition-title").forEach((title) => {
    const el = title.querySelector("a") || title;
    if (el.querySelector(".mlnotes-solution-title")) return;
    const node = Array.from(el.childNodes).find((n) => n.nodeType === 3 && n.textContent.includes("("));
    if (!node) return;
    const text = node.textContent;
    const cut = text.indexOf("(");
    const span = document.createElement("span");
    span.className = "mlnotes-solution-title";
    span.append(document.createTextNode(text.slice(cut)));
    let next = node.nextSibling;
    while (next) {
      const after = next.nextSibling;
      span.append(next);
      next = after;
    }
    // "Exercise" reads "Ex." on a phone
    const head = text.slice(0, cut);
    const word = head.indexOf("Exercise");
    if (word >= 0) {
      node.textContent = head.slice(0, word);
      const long = document.createElement("span");
      long.className = "mlnotes-solution-long";
      long.textContent = "Exercise";
      const short = document.createElement("span");
      short.className = "mlnotes-solution-short";
      short.setAttribute("aria-hidden", "true");
      short.textContent = "Ex.";
      const rest = document.createTextNode(head.slice(word + "Exercise".length));
      node.after(long, short, rest);
      rest.after(span);
    } else {
      node.textContent = head;
      node.after(span);
    }
    const star = (text.slice(cut).match(/^\((★+)/) || [])[1];
    if (star) {
      const short = document.createElement("span");
      short.className = "mlnotes-solution-stars";
      short.setAttribute("aria-hidden", "true");
      short.textContent = " " + star;
      span.before(short);
    }
  });
}

const MLNOTES_SCROLL_BOXES = '.bd-article div.math mjx-container[display="true"], ' +
  ".bd-article .pst-scrollable-table-container, .bd-article .table-wrapper, " +
  ".bd-article .cell_output .output.text_html, .bd-article .cell_output pre, " +
  ".bd-article div.highlight > pre";

/* The colour painted behind `el`: the first ancestor with an opaque background. */
function mlnotesBackdrop(el) {
  for (let node = el.parentElement; node; node = node.parentElement) {
    const bg = getComputedStyle(node).backgroundColor;
    const m = bg.match(/rgba?\(([^)]*)\)/);
    if (m) {
      const parts = m[1].split(",").map((x) => parseFloat(x));
      if (parts.length < 4 || parts[3] > 0.99) return bg;
    }
  }
  return getComputedStyle(document.body).backgroundColor;
}

/* Code cells far from the screen are not laid out (content-visibility: auto, mlnotes.css): a
   reader's page measures their boxes and figures when the browser lays them out
   (contentvisibilityautostatechange, below), not all at once (measuring forces the layout of
   every cell: over a second of a 4x slower phone's time on t-SNE's page, which held the first
   screen's formulas back). A page that typesets everything at once (localStorage
   "mlnotes-typeset" = "all": the browser tests, the PDF) measures everything. */
const MLNOTES_MEASURE_ALL = (() => {
  try {
    return localStorage.getItem("mlnotes-typeset") === "all";
  } catch (error) {
    return false;
  }
})();
// the page has been marked once, after its first screen's maths (the load handler below)
function mlnotesMarked() {
  return Boolean(document.documentElement.dataset.mlnotesLaidOut);
}
function mlnotesLaidOut(el) {
  return MLNOTES_MEASURE_ALL || !el.checkVisibility || el.checkVisibility({ contentVisibilityAuto: true });
}
document.addEventListener("contentvisibilityautostatechange", (event) => {
  if (event.skipped || MLNOTES_MEASURE_ALL || !mlnotesMarked()) return;
  mlnotesMarkScrollBoxes(event.target);
  mlnotesMarkZoomableFigures(event.target);
}, true);

/* The theme (pydata-sphinx-theme) makes each code block, output and table that scrolls a stop
   of the Tab key, so a keyboard can scroll it: it measures every one of the page's
   (scrollWidth), which lays out every code cell, also those far from the screen
   (content-visibility: auto, mlnotes.css), when it runs (at the "load" event, or at once if the
   page has loaded), and again 0.3 s after any change in the article (each batch of formulas).
   On a 4x slower phone that was 1.0-1.7 s of the main thread at a link into t-SNE's page or
   the API page, and 0.6-0.9 s after each batch. Its query (MLNOTES_THEME_TAB_STOPS, the
   theme's own selector, whose order differs from this script's) finds nothing; the boxes get
   the same tab stops here, measured with the scroll cues (mlnotesMarkScrollBoxes): after the
   first screen's maths, and each cell as the browser lays it out. */
const MLNOTES_TAB_STOPS = ".pst-scrollable-table-container, pre, .nboutput > .output_area, " +
  ".cell_output > .output, .jp-RenderedHTMLCommon";
const MLNOTES_THEME_TAB_STOPS = "pre, .nboutput > .output_area, .cell_output > .output, " +
  ".jp-RenderedHTMLCommon, .pst-scrollable-table-container";
const mlnotesQueryAll = Document.prototype.querySelectorAll;
document.querySelectorAll = function (selectors) {
  if (selectors === MLNOTES_THEME_TAB_STOPS) {
    return mlnotesQueryAll.call(this, ":not(*)");  // the theme's tab stops (above)
  }
  return mlnotesQueryAll.call(this, selectors);
};

/* The theme's script (pydata-sphinx-theme.js: the colour mode, the sidebar's scroll position,
   the page TOC's scroll spy, the header's drawer and search buttons) runs once the first
   screen's maths is drawn: run before it (deferred, at DOMContentLoaded) it cost 100-160 ms of
   a 4x slower phone's main thread, a style recalculation and a layout of the page, before
   MathJax could start. Nothing it does changes the layout; the colour mode is set before the
   first paint by the page's head (book/_ext/surface.py, theme_script_late, which writes its
   address into data-mlnotes-late-src). A press of a header button it handles (a drawer, the
   search) or Ctrl/Cmd+K before then loads it at once and is replayed. The flag
   data-mlnotes-theme on <html> says it has run (the browser tests). */
const MLNOTES_THEME_BUTTONS = ".primary-toggle, .secondary-toggle, .search-button__button";
let mlnotesThemeLoading = null;
let mlnotesThemeCame = false;  // its script has run, or failed to load: presses go through
function mlnotesLoadTheme() {
  if (!mlnotesThemeLoading) {
    // each such script in the page's order, one after the other
    const tags = Array.from(document.querySelectorAll("script[data-mlnotes-late-src]"));
    mlnotesThemeLoading = tags.reduce((before, tag) => before.then(() => new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = tag.getAttribute("data-mlnotes-late-src");
      script.onload = () => resolve(true);
      script.onerror = () => resolve(false);
      document.body.append(script);
    })), Promise.resolve(true)).then((ran) => {
      mlnotesThemeCame = true;
      if (ran && tags.length) document.documentElement.dataset.mlnotesTheme = "1";
    });
  }
  return mlnotesThemeLoading;
}
function mlnotesThemeEarlyPresses() {
  const waiting = () => !mlnotesThemeCame && document.querySelector("script[data-mlnotes-late-src]");
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest(MLNOTES_THEME_BUTTONS);
    if (!button || !waiting()) return;
    event.preventDefault();
    event.stopPropagation();
    mlnotesLoadTheme().then(() => button.click());
  }, true);
  window.addEventListener("keydown", (event) => {
    if (!/^k$/i.test(event.key) || !(event.ctrlKey || event.metaKey) || event.shiftKey
        || event.altKey || !waiting()) return;
    event.preventDefault();
    event.stopPropagation();
    const { key, code, ctrlKey, metaKey } = event;
    mlnotesLoadTheme().then(() => window.dispatchEvent(new KeyboardEvent("keydown",
      { key, code, ctrlKey, metaKey, bubbles: true, cancelable: true })));
  }, true);
}

/* Every box is measured first, then marked: a mark written between two measurements would make
   the browser lay the page out again for each box (seconds on a phone's CPU for a long page). */
function mlnotesMarkScrollBoxes(root = document) {
  const found = Array.from(root.querySelectorAll(MLNOTES_SCROLL_BOXES)).filter(mlnotesLaidOut);
  const stops = Array.from(root.querySelectorAll(MLNOTES_TAB_STOPS)).filter(mlnotesLaidOut)
    .map((el) => [el, el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight ? 0 : -1]);
  const boxes = found.map((el) => {
    const overflows = el.scrollWidth > el.clientWidth + 1;
    return [el, overflows, overflows ? mlnotesBackdrop(el) : null];
  });
  stops.forEach(([el, tab]) => { if (el.tabIndex !== tab) el.tabIndex = tab; });
  boxes.forEach(([el, overflows, cover]) => {
    el.classList.toggle("mlnotes-overflows", overflows);
    if (overflows) {
      if (el.style.getPropertyValue("--mlnotes-cover") !== cover) {
        el.style.setProperty("--mlnotes-cover", cover);
      }
    } else {
      el.style.removeProperty("--mlnotes-cover");
    }
  });
}

/* Output text whose lines line up in columns (two spaces or more between items, a tab, or a
   box-drawing rule) keeps its layout; any other text output wraps. */
function mlnotesMarkWrappingOutputs() {
  document.querySelectorAll(".bd-article .cell_output pre").forEach((pre) => {
    const lines = pre.textContent.split("\n").filter((line) => line.trim());
    const aligned = lines.length > 1 && lines.some((line) => /\S(?: {2,}|\t)\S|[─━│┃┼]/.test(line));
    pre.classList.toggle("mlnotes-wrap", !aligned);
  });
}

function mlnotesRefreshLayout() {
  mlnotesMarkWideInlineMath();
  mlnotesMarkZoomableFigures();
  mlnotesMarkScrollBoxes();
  mlnotesLaidOutAt();
}

// the window width the marks above were last made for: tools that resize the page and then
// read it wait for this to be their width
function mlnotesLaidOutAt() {
  document.documentElement.dataset.mlnotesLaidOutWidth = String(window.innerWidth);
}

function mlnotesAfterMathJax(callback) {
  const mj = window.MathJax;
  if (window.mlnotesMathsReady) {
    // the first screen's formulas typeset (mlnotes-mathjax.js: its last batch drawn, or, typeset
    // at build time, the displays a narrow screen breaks again near it)
    window.mlnotesMathsReady.then(callback);
  } else if (mj && mj.startup && mj.startup.promise) {
    mj.startup.promise.then(callback);
  } else {
    callback();
  }
}

/* After the first screen's maths is typeset and drawn, when the browser is idle: the marks
   below measure every box, figure and formula of the page (a layout of the whole page), which
   done at once held the first screen's maths back by 0.3 s, over 1 s on a 4x slower phone. */
function mlnotesAfterFirstScreen(callback) {
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 50));
  const fonts = () => (document.fonts ? document.fonts.ready : Promise.resolve());
  mlnotesAfterMathJax(() => fonts().then(() =>
    requestAnimationFrame(() => idle(callback, { timeout: 1000 }))));
}

mlnotesPatchSearch();
mlnotesThemeToggle();
mlnotesCloseDrawerOnTap();
mlnotesThemeEarlyPresses();
document.addEventListener("DOMContentLoaded", () => {
  mlnotesPatchSearch();
  mlnotesMarkWrappingOutputs();
  mlnotesStackTables();
  mlnotesShortSolutionTitles();
  mlnotesAfterFirstScreen(() => {
    mlnotesLoadTheme();
    mlnotesMarkWideInlineMath();
    mlnotesMarkScrollBoxes();
    // after the first screen: a look at every element's attributes (90 000 on t-SNE's page)
    mlnotesPlainAttributes();
  });
});
window.addEventListener("load", () => {
  mlnotesAfterFirstScreen(() => {
    if (mlnotesResizedEarly) mlnotesMarkWideInlineMath();
    mlnotesMarkZoomableFigures();
    mlnotesMarkScrollBoxes();
    // everything above is marked: tools that read the laid-out page wait for this flag
    document.documentElement.dataset.mlnotesLaidOut = "1";
    mlnotesLaidOutAt();
  });
});
/* `callback` once the page's layout has stopped moving: when a window widens past a phone's,
   the theme slides its sidebar in (a 0.25 s transition of its margin), and until it ends the
   article is wider than it will be, so a code box marked then loses its scroll cue when the
   column narrows (mlnotes-mathjax.js waits the same way before it measures a display's
   column). Only transitions of the layout are waited for, at most 1 s. */
function mlnotesAfterLayoutMoves(callback) {
  const layout = /^(margin|padding|width|max-width|min-width|left|right|inset|flex|grid|transform)/;
  const moving = (document.getAnimations ? document.getAnimations() : []).filter((a) =>
    a.playState === "running" && layout.test(a.transitionProperty || ""));
  if (!moving.length) {
    callback();
    return;
  }
  Promise.race([
    Promise.all(moving.map((a) => a.finished.catch(() => null))),
    new Promise((resolve) => setTimeout(resolve, 1000)),
  ]).then(() => requestAnimationFrame(callback));
}

/* Before the page is first marked (after the first screen's maths, mlnotesAfterFirstScreen), a
   resize (a phone settling its viewport as the page loads, a turn of the phone) or a fold
   opened marks nothing: that first marking is made at the width of its time, the wide inline
   formulas again if the window was resized since the first pass over them. (Marked at once, a
   resize while the page loaded measured every box of the page before the first screen's maths,
   on a slow phone.) */
let mlnotesResizedEarly = false;
let mlnotesResizeTimer = null;
window.addEventListener("resize", () => {
  if (!mlnotesMarked()) {
    mlnotesResizedEarly = true;
    return;
  }
  clearTimeout(mlnotesResizeTimer);
  mlnotesResizeTimer = setTimeout(() => mlnotesAfterLayoutMoves(mlnotesRefreshLayout), 150);
});
// Formulas typeset later, as the reader scrolls (lazy typesetting, mlnotes-mathjax.js): the
// wide ones and the scroll boxes among them are marked once a burst of typesetting is over.
// The observer starts with DOMContentLoaded (MathJax typesets nothing before).
let mlnotesMathTimer = null;
const mlnotesMathObserver = new MutationObserver((records) => {
  // MathJax's nodes only (a query inside every added node cost 0.3 s of a 4x slower phone's
  // time when the theme's scripts add their buttons)
  if (!records.some((r) => Array.from(r.addedNodes).some((n) => n.nodeName.startsWith("MJX-")))) return;
  // before the page is first marked (mlnotesAfterFirstScreen), that marking covers them
  if (!mlnotesMarked()) return;
  clearTimeout(mlnotesMathTimer);
  mlnotesMathTimer = setTimeout(() => {
    mlnotesMarkWideInlineMath();
    mlnotesMarkScrollBoxes();
  }, 200);
});
document.addEventListener("DOMContentLoaded", () => {
  mlnotesMathObserver.observe(document.documentElement, { childList: true, subtree: true });
});
// a folded cell opened: its code is laid out now, and may need the scroll cue
document.addEventListener("toggle", (event) => {
  if (event.target.open && mlnotesMarked()) mlnotesMarkScrollBoxes();
}, true);
// light <-> dark: the colour behind each scroll box changes. Not before the page is laid out
// (the load handler marks every box then): the theme's script sets the mode as the page loads,
// and measuring every box then cost 0.3-1.7 s of a 4x slower phone's time before the first
// screen's maths (t-SNE's page).
new MutationObserver(() => {
  if (mlnotesMarked()) mlnotesMarkScrollBoxes();
})
  .observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
