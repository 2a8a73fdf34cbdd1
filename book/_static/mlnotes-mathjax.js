/* Maths readable at first paint (issue 32).
 *
 * Every formula is typeset when the book is built (book/_ext/prerender.py, this copy of
 * MathJax in Node, with the line-break places below). By default (MLNOTES_PRERENDER_MATHS=
 * island) those of each page's first screens are in place and show at first paint; the others
 * are TeX in the page, their typeset HTML in the page's island (a JSON text at the end of its
 * body), and are put in place as they come near the screen (fromIsland, with the batches of
 * typesetNearScreen below). Such a page, like one built whole (=1), has its MathJax script
 * turned off: builtPage (below) loads MathJax only for a display wider than the reader's
 * column, which is typeset again for it as it comes near the screen and again when the column
 * changes width (watchDisplays), and for the menu. A display a phone's column breaks
 * otherwise than a laptop's has both forms in the island.
 *
 * With =top only the first screens are built; the rest is TeX, typeset by MathJax in the
 * browser lazily, as follows; a page built without Node has all its TeX.
 *
 * The page's own MathJax configuration (_config.yml, mathjax3_config, written into the page
 * just before this script) is changed so that MathJax typesets only the formulas on or near
 * the screen at load (LAZY_MARGIN around it), and the others as the reader scrolls toward them.
 *
 * How: MathJax starts without typesetting the page (startup.typeset = false); an
 * IntersectionObserver watches every formula (the ".math" elements Sphinx writes) and hands
 * those that come near the screen to MathJax.typesetPromise in batches, one batch after the
 * other. The first batch is only the formulas on the screen and just below it (FIRST_MARGIN:
 * at a link into t-SNE's page about 30 rather than the 57 within LAZY_MARGIN), and the next
 * batch starts once the browser has drawn it. MathJax's own lazy component (ui/lazy) is not used: it first runs its whole pipeline
 * over every formula of the page (finding, measuring and inserting a placeholder for each: on
 * t-SNE's page, 508 formulas, about 2 s of a phone's CPU before the first screen could be
 * typeset), and it lost formulas that came into view while a batch waited for a font range
 * (t-SNE's page near 24 500 px, in 3 of 5 scrolls on a slow network).
 *
 * Nothing the first batch needs is fetched on its way: MathJax's assistive MathML component is
 * preloaded from the start, the font ranges the page's TeX uses (RANGES) once it is parsed, and
 * a batch waits only for the ranges its own formulas use.
 *
 * The first screen's batch is the page's first typeset (performance marks
 * "mlnotes-typeset-start"/"-end"; the class "mlnotes-maths-pending" on <html> until it is done).
 * A formula not yet typeset shows no TeX source: mlnotes.css makes its text transparent (class
 * "mlnotes-maths-lazy" on <html>). The page's table of contents (a drawer on a phone, hidden,
 * so never "near the screen") is typeset right after the first screen. Printing typesets
 * everything ("beforeprint").
 *
 * localStorage "mlnotes-typeset" = "all" typesets every formula at load: the browser tests that
 * measure every equation of a page and the PDF printer (.dev/pdf.py) set it.
 */
"use strict";
(function () {
  // The line-break places below are also used at build time (book/_ext/prerender_maths.cjs
  // loads this file in Node and adds tidyLineBreaks to its MathJax's TeX input).
  const WHOLE_TEXT = 24;  // characters: a short text in a display is not broken (wholeWords)
  if (typeof window === "undefined" && typeof module === "object" && module.exports) {
    module.exports = { tidyLineBreaks };
    return;
  }
  const LAZY_MARGIN = "1200px";
  // the screen and a tenth of a screen below it: typeset, the formulas are shorter than their
  // (hidden) TeX source, and those below move up into the screen (t-SNE: 21 on the screen
  // before, 29 after), where the next batch takes them before the first screen counts as done
  // (next(), below). Half a screen below took more formulas than moved up: at 4x, the main
  // thread's CPU to the first screen's maths was 0.26-0.55 s more at the links into t-SNE,
  // the errata and the API (benchmarks/results-first-paint.md).
  const FIRST_MARGIN = "0px 0px 10% 0px";
  const ALWAYS = "#pst-secondary-sidebar .math, .bd-toc .math";
  const config = window.MathJax;
  if (!config || typeof config !== "object") return;  // a page without maths loads no MathJax
  const root = document.documentElement;
  root.classList.add("mlnotes-maths-pending");
  // resolved with the mark "mlnotes-typeset-end": mlnotes.js starts its page-wide work then
  // (MathJax's startup.promise resolved before the first screen's last batch); also once the
  // page has loaded without MathJax (its script not loaded)
  let mathsReady = null;
  window.mlnotesMathsReady = new Promise((resolve) => { mathsReady = resolve; });
  window.addEventListener("load", () => {
    if (!window.MathJax || !window.MathJax.startup) mathsReady();
  });
  let all = false;
  try {
    all = localStorage.getItem("mlnotes-typeset") === "all";
  } catch (error) {
    all = false;  // storage blocked: lazy typesetting, as for any reader
  }
  config.options = config.options || {};
  config.startup = config.startup || {};
  // On a touch screen a long press opened MathJax's menu, half off a phone's screen: no menu
  // there (a mouse keeps it: right-click, "Show Math As TeX").
  if (window.matchMedia && window.matchMedia("(hover: none) and (pointer: coarse)").matches) {
    config.options.enableMenu = false;
  }
  // A page typeset at build time (book/_ext/prerender.py) has its MathJax script turned off:
  // its address is in data-mlnotes-mathjax, for the displays a narrow screen must break again
  // (builtPage, below).
  const builtTag = document.querySelector("script[data-mlnotes-mathjax]");
  const built = builtTag ? builtTag.getAttribute("data-mlnotes-mathjax") : null;
  if (built) {
    config.startup.typeset = false;
    // its text laid out near the screen, an island's TeX hidden until put in place (mlnotes.css)
    root.classList.add("mlnotes-maths-built");
  }
  const lazy = !built && !all && typeof IntersectionObserver !== "undefined";
  if (lazy) {
    config.startup.typeset = false;
    root.classList.add("mlnotes-maths-lazy");
  }

  /* The next batch waits until the browser has drawn the last one: the screen's formulas are
     painted, and their fonts requested, before MathJax starts on those below (started at once,
     the second batch kept the first screen unpainted, its fonts not yet asked for, for as long
     as it took). A hidden tab draws no frames: a timeout goes on without one. */
  const frame = () => new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 200);
  });
  // the fonts the batch brought in are loaded first (until then its glyphs are invisible, and
  // a next batch started at once kept them so, t-SNE: 1.5 s at 4x), then a frame shows them
  const painted = () => Promise.race([
    document.fonts ? document.fonts.ready : Promise.resolve(),
    new Promise((resolve) => setTimeout(resolve, 1000)),
  ]).then(frame);

  /* Fonts nearly every formula uses (Latin letters and digits, brackets) load with the page,
     not only once the first formulas are typeset and drawn. */
  const FONTS = ["mjx-ncm-zero", "mjx-ncm-n", "mjx-ncm-brk"];
  const here = document.currentScript && document.currentScript.src;
  const preloaded = new Set();
  function preload(path, as) {
    if (!here || preloaded.has(path)) return;
    preloaded.add(path);
    const link = document.createElement("link");
    link.rel = "preload";
    link.as = as;
    if (as === "font") {
      link.type = "font/woff2";
      link.crossOrigin = "anonymous";
    }
    link.href = new URL(path, here).href;
    document.head.appendChild(link);
  }
  function preloadFont(name) {
    preload(`mathjax4/fonts/mathjax-newcm-font/chtml/woff2/${name}.woff2`, "font");
  }
  FONTS.forEach(preloadFont);

  const asTeX = (el) => !el.querySelector("mjx-container");

  /* Typeset the formulas that come near the screen, a batch at a time; resolves once the
     formulas near the screen at the start are typeset. */
  function typesetNearScreen(typesetBatch = typesetWithMathJax, formulasLeft = asTeX) {
    const waiting = new Set();
    let running = null;
    let firstScreen = null;
    const firstDone = new Promise((resolve) => { firstScreen = resolve; });
    const done = new Set();
    const take = (entries) => {
      for (const entry of entries) {
        if (done.has(entry.target)) continue;
        if (entry.isIntersecting) waiting.add(entry.target); else waiting.delete(entry.target);
      }
    };
    const seen = (entries) => {
      take(entries);
      if (!running) running = next();
    };
    // The first batch is the screen itself (FIRST_MARGIN), so a reader waits for no formula
    // below it; then the observer looks LAZY_MARGIN around the screen.
    let observer = new IntersectionObserver(seen, { rootMargin: FIRST_MARGIN });
    // batches run one after the other; formulas arriving during one wait for the next. The
    // first screen is done once a batch is drawn and no formula came near the screen since
    // (typeset, formulas are shorter than their hidden TeX: those below move up into the
    // screen, and are typeset before the page-wide work of mlnotes.js and the wider margin
    // begin, not in a batch of the 1200 px around the screen after them).
    function next() {
      take(observer.takeRecords());  // what the frame just drawn brought near the screen
      if (!waiting.size) {
        firstScreen();
        return null;
      }
      const batch = Array.from(waiting);
      waiting.clear();
      batch.forEach((el) => { observer.unobserve(el); done.add(el); });
      return typesetBatch(batch)
        .then(() => {
          running = next();
          return running;
        });
    }
    // a formula typeset at build time (the top of the page, prerender.py) is not typeset again
    const formulas = Array.from(document.querySelectorAll(".math")).filter(formulasLeft)
      .filter((el) => !el.closest(ALWAYS.replace(/ \.math/g, "")));
    formulas.forEach((el) => observer.observe(el));
    firstDone.then(frame).then(() => {
      // the table of contents in the next batch, after the first screen is drawn (a frame
      // with it done: the next batch, 1200 px around the screen, is a long task)
      document.querySelectorAll(ALWAYS).forEach((el) => waiting.add(el));
      observer.disconnect();
      observer = new IntersectionObserver(seen, { rootMargin: LAZY_MARGIN });
      formulas.forEach((el) => { if (!done.has(el)) observer.observe(el); });
      if (!running) running = next();
    });
    let printed = false;
    window.addEventListener("beforeprint", () => {
      if (printed) return;
      printed = true;
      observer.disconnect();
      if (typesetBatch === typesetWithMathJax) {
        MathJax.typesetPromise().catch((error) => console.error(error));
      } else {
        typesetBatch(formulas.filter(formulasLeft)
          .concat(Array.from(document.querySelectorAll(ALWAYS))));
      }
    });
    return firstDone;
  }
  /* A batch typeset by MathJax in the page; resolves once it is drawn with its fonts. */
  function typesetWithMathJax(batch) {
    return rangesFor(batch).then(() => MathJax.typesetPromise(batch))
      .catch((error) => console.error(error))
      .then(() => {
        watchTypeset(batch);
        return painted();
      });
  }

  /* The island: a page built with MLNOTES_PRERENDER_MATHS=island (the default, book/_ext/
     prerender.py) holds every formula typeset at build time, those of its first screens in
     place and the others in one JSON text at the end of its body (script#mlnotes-chtml), each
     formula's TeX marked with its place there (data-mlnotes-chtml). A formula's typeset HTML
     is put in place as it comes near the screen (typesetNearScreen, with this for its batch):
     the page never parses nor lays out the typeset maths of the parts nobody reads (about
     90 000 elements on t-SNE's page), and no MathJax is loaded, started or run before the
     first screen's maths shows, at the page's top or at a link into it. A display has two
     typeset forms when a phone's column breaks it otherwise: broken for the laptop's column
     and for a phone's (NARROW_BELOW: a column narrower than that takes the second). */
  const ISLAND = "mlnotes-chtml";
  const NARROW_BELOW = 480;
  let island = null;
  const inIsland = (el) => el.hasAttribute("data-mlnotes-chtml");
  function fromIsland(batch) {
    if (island === null) {
      const data = document.getElementById(ISLAND);
      try {
        island = data ? JSON.parse(data.textContent) : [];
      } catch (error) {
        console.error(error);
        island = [];
      }
    }
    const todo = batch.filter((el) => el.isConnected && inIsland(el));
    // every column read first, then the page changed (one layout, not one per formula)
    const columns = todo.map((el) => (el.tagName === "DIV" ? el.clientWidth : 0));
    const displays = [];
    todo.forEach((el, k) => {
      const entry = island[Number(el.getAttribute("data-mlnotes-chtml"))];
      el.removeAttribute("data-mlnotes-chtml");
      if (!entry) return;  // stays TeX: mlnotes.css shows it
      const narrow = columns[k] && columns[k] < NARROW_BELOW;
      const html = Array.isArray(entry) ? entry[narrow ? 1 : 0] : entry;
      // the TeX (the text) goes; an equation number stays
      Array.from(el.childNodes).forEach((n) => { if (n.nodeType === Node.TEXT_NODE) n.remove(); });
      el.insertAdjacentHTML("beforeend", html);
      const c = el.querySelector(":scope > mjx-container[display]");
      if (c) displays.push(c);
    });
    if (addDisplays) addDisplays(displays);
    return painted();
  }

  /* Where MathJax may break a display formula that is too wide for a phone (it picks among the
     allowed places by its own penalties). Its defaults broke inside norms and brackets, split
     a left-hand side, and put a lone comma on a line. Allowed here: a relation or operator at
     the top of the formula (outside every bracket, norm and \left...\right group), never an
     operator of a left-hand side (before the row's first relation), never before punctuation
     or after a formula's final punctuation; a wide space between two formulas (\quad,
     \qquad) is a good place. A bracket with scripts (\rVert_F^2, )^{-1}) closes its group
     like a bare one, and a bar that nothing closes (KL(P \| Q)) is a symbol, not a norm:
     read as an open norm, either one once forbade every break after it. Written as MathML
     attributes (linebreak, linebreakstyle) by a filter on each formula's MathML tree, so the
     TeX source stays as the authors wrote it. */
  function tidyLineBreaks(args) {
    try {
      const root = args.data && args.data.root ? args.data.root : args.math.root;
      markBreaks(root);
      if (args.math && args.math.display) wholeWords(root);
    } catch (error) {
      console.warn("mlnotes: line-break places left to MathJax:", error);  // never lose a formula
    }
  }
  /* A short text in a display formula (\text{over paths }, a few words) is not broken at its
     spaces: a qualifier moves to the next line whole, at the wide space before it, instead of
     leaving a word behind ("c a | smooth curve"). A longer text may break between words, as
     prose does, where a phone is narrower than it. */
  function wholeWords(data) {
    data.walkTree((n) => {
      if (!n.isKind("mtext")) return;
      n.childNodes.forEach((t) => {
        if (t && t.isKind("text") && / /.test(t.getText()) && t.getText().length <= WHOLE_TEXT) {
          t.setText(t.getText().replace(/ /g, "\u00A0"));
        }
      });
    });
  }
  function markBreaks(data) {
    const CLASS = MathJax._.core.MmlTree.MmlNode.TEXCLASS;
    const OPENS = { "(": ")", "[": "]", "{": "}", "\u27E8": "\u27E9", "\u230A": "\u230B",
                    "\u2308": "\u2309" };
    const CLOSES = new Set(Object.values(OPENS));
    const BARS = new Set(["|", "\u2016", "\u2225"]);
    const PUNCT = /^[,;.:]$/;
    const noBreak = (node) => node.walkTree((n) => {
      if (n.isKind("mo") || n.isKind("mspace")) n.attributes.set("linebreak", "nobreak");
    });
    // the bracket a child stands for: an operator's text, \big( (a group around one), or a
    // bracket with scripts (the base of \rVert_F^2, )^{-1}, |\cdot|^2)
    const SCRIPTS = ["msub", "msup", "msubsup"];
    const fenceMo = (n) => {
      while (n && !n.isKind("mo") && n.childNodes && (n.childNodes.length === 1
             || SCRIPTS.some((k) => n.isKind(k)))) n = n.childNodes[0];
      return n && n.isKind("mo") ? n : null;
    };
    const fenceText = (n) => {
      const mo = fenceMo(n);
      return mo ? mo.getText() : null;
    };
    const scripted = (n) => SCRIPTS.some((k) => n.isKind(k)) && fenceMo(n) !== null;
    const wide = (n) => n.isKind("mspace") && /^\s*(1|2)em$|quad/.test(String(n.attributes.get("width")));
    // a bar at kids[i] opens a norm or an absolute value only if the same bar closes it later
    // in the row, before the bracket around it closes (KL(P \| Q) has a single bar)
    const closedLater = (kids, i, t) => {
      let depth = 0;
      for (let j = i + 1; j < kids.length; j++) {
        const u = fenceText(kids[j]);
        if (u === t && depth === 0) return true;
        const cls = fenceMo(kids[j]) ? fenceMo(kids[j]).texClass : kids[j].texClass;
        if ((u !== null && OPENS[u] !== undefined) || cls === CLASS.OPEN) depth += 1;
        else if ((u !== null && CLOSES.has(u)) || cls === CLASS.CLOSE) depth -= 1;
        if (depth < 0) return false;
      }
      return false;
    };
    function row(node) {
      // thin spaces and invisible operators (a product's "times") are never break places
      node.childNodes.forEach((n) => {
        if (n && ((n.isKind("mspace") && !wide(n))
                  || (n.isKind("mo") && /^[\u2061-\u2064]?$/.test(n.getText())))) {
          n.attributes.set("linebreak", "nobreak");
        }
      });
      const kids = node.childNodes.filter((n) => n && (!n.isKind("mspace") || wide(n)));
      // a left-hand side: what comes before the first relation of its part of the row (parts
      // are separated by wide spaces: "a = b, \qquad c + d = e" has two)
      const lhs = new Array(kids.length).fill(false);
      let start = 0;
      kids.forEach((n, i) => {
        const end = wide(n) || i === kids.length - 1;
        if (!end) return;
        const part = kids.slice(start, i + 1);
        const rel = part.findIndex((m) => m.isKind("mo") && m.texClass === CLASS.REL);
        for (let k = 0; k < rel; k++) lhs[start + k] = true;
        // a later part's first relation: a break there would leave its left-hand side at the
        // end of the line before (the wide space before it is the place to break)
        if (rel >= 0 && start > 0) lhs[start + rel] = true;
        start = i + 1;
      });
      const bars = [];
      let depth = 0;
      kids.forEach((child, i) => {
        const t = fenceText(child);
        if (!child.isKind("mo") && !scripted(child) && t !== null
            && (OPENS[t] !== undefined || CLOSES.has(t))) {
          noBreak(child);  // \big( and \big): a bracket in a group of its own
          depth = Math.max(0, depth + (OPENS[t] !== undefined ? 1 : -1));
          return;
        }
        if (child.isKind("mo") || scripted(child)) {
          const mo = fenceMo(child);
          const bar = BARS.has(t) && (bars[bars.length - 1] === t || closedLater(kids, i, t));
          if (BARS.has(t) && !bar) {
            noBreak(child);  // a lone bar (KL(P \| Q)): a symbol, not a bracket
            return;
          }
          const opening = OPENS[t] !== undefined || (mo.texClass === CLASS.OPEN && !BARS.has(t))
            || (bar && mo.texClass !== CLASS.CLOSE && bars[bars.length - 1] !== t);
          const closing = !opening && (CLOSES.has(t) || mo.texClass === CLASS.CLOSE
            || (bar && bars[bars.length - 1] === t));
          if (scripted(child) && (opening || closing)) {
            noBreak(child);  // a bracket with scripts: never a break place
            depth = Math.max(0, depth + (opening ? 1 : -1));
            if (bar && opening) bars.push(t); else if (bar) bars.pop();
            return;
          }
          if (scripted(child)) {
            noBreak(child);  // an operator with scripts (\sum_i is not one: its base is no fence)
            return;
          }
          if (opening) {
            // before a bracket at the top (a product's next factor): only as a last resort,
            // MathJax prefers relations and operators
            if (depth > 0 || lhs[i]) child.attributes.set("linebreak", "nobreak");
            else child.attributes.set("linebreakstyle", "before");  // never just after it
            depth += 1;
            if (bar) bars.push(t);
            return;
          }
          if (closing) {
            child.attributes.set("linebreak", "nobreak");
            depth = Math.max(0, depth - 1);
            if (BARS.has(t) && bars[bars.length - 1] === t) bars.pop();
            return;
          }
          const punct = PUNCT.test(t) || child.texClass === CLASS.PUNCT;
          // inside a norm or absolute value: never; inside brackets: at an operator (a
          // formula too wide for a phone may need it), never at a comma of a tuple
          if (bars.length > 0 || lhs[i] || (depth > 0 && punct)) {
            child.attributes.set("linebreak", "nobreak");
          } else if (punct) {
            child.attributes.set("linebreakstyle", "after");
            if (i === kids.length - 1) child.attributes.set("linebreak", "nobreak");
          }
          return;
        }
        // \bigl( ... \bigr): a group whose class is OPEN or CLOSE
        if (child.texClass === CLASS.OPEN || child.texClass === CLASS.CLOSE) {
          noBreak(child);
          depth = Math.max(0, depth + (child.texClass === CLASS.OPEN ? 1 : -1));
          return;
        }
        if (wide(child)) {
          if (depth === 0 && i > 0 && i < kids.length - 1) child.attributes.set("linebreak", "goodbreak");
          return;
        }
        if (depth > 0 || (child.isKind("mrow") && child.texClass === CLASS.INNER)) {
          noBreak(child);  // inside brackets, or a \left...\right group
        } else if (child.isKind("mrow") || child.isInferred) {
          row(child);
        } else if (child.isKind("mstyle") || child.isKind("mpadded")) {
          child.childNodes.forEach((c) => row(c));
        } else if (child.isKind("mtable")) {
          table(child);
        } else {
          noBreak(child);  // scripts, fractions, roots: one unit
        }
      });
    }
    // a relation at the top of a cell (not one inside a subscript: \sum_{n \le d})
    const hasRelation = (node) => node.childNodes.some((n) => n && (
      (n.isKind("mo") && n.texClass === CLASS.REL)
      || ((n.isInferred || n.isKind("mrow") || n.isKind("mstyle")) && hasRelation(n))));
    // aligned rows: a cell that is only a left-hand side (the relation starts the next cell)
    // stays whole; the other cells break like rows
    function table(node) {
      node.childNodes.forEach((tr) => {
        const cells = tr.isKind("mlabeledtr") ? tr.childNodes.slice(1) : tr.childNodes;
        cells.forEach((td, k) => {
          if (k === 0 && cells.length > 1 && !hasRelation(td)) noBreak(td);
          else td.childNodes.forEach((c) => row(c));
        });
      });
    }
    data.childNodes.forEach((n) => (n.isKind("mtable") ? table(n) : row(n)));
  }
  const startupReady = config.startup.ready;
  let ranges = {};  // a range's name -> its loading (loadRanges)
  config.startup.ready = function () {
    performance.mark("mlnotes-mathjax-ready");  // its components loaded (the browser tests)
    if (startupReady) startupReady(); else MathJax.startup.defaultReady();
    MathJax.startup.input.forEach((jax) => jax.postFilters && jax.postFilters.add(tidyLineBreaks));
    // the font's ranges the page uses are loaded from now on, not once the page is ready
    if (lazy) ranges = loadRanges();
  };

  /* The font's character ranges a page's formulas use beyond the basic ones (\mathbb,
     \mathcal: nearly every chapter) are loaded with their web fonts as soon as MathJax has
     started (loadRanges: {name: its loading}), and a batch waits for those its own formulas
     use (rangesFor): found in a batch, a range stops it, is fetched, and the batch starts
     again. A first screen without them no longer waits for them (their scripts ran after the
     page's load event and its handlers: 0.1-0.5 s at 4x). */
  const RANGES = [[/\\mathbb\b/, "double-struck", "mjx-ncm-ds"],
                  [/\\mathcal\b/, "calligraphic", "mjx-ncm-c"]];
  // the TeX of the page's formulas not typeset at build time, read once the page is parsed
  // (by the preloads below, then by loadRanges at MathJax's start-up: read once for both)
  let texOfPage = null;
  const pageTeX = () => {
    if (texOfPage !== null) return texOfPage;
    const tex = Array.from(document.querySelectorAll(".math"),
                           (e) => (asTeX(e) ? e.textContent : "")).join(" ");
    if (document.readyState !== "loading") texOfPage = tex;  // the whole page: kept
    return tex;
  };
  function loadRanges() {
    try {
      const font = MathJax.startup.output.font;
      const files = font.CLASS.dynamicFiles;
      const tex = pageTeX();
      const loading = {};
      RANGES.filter(([used, name]) => used.test(tex) && files[name]).forEach(([, name, woff2]) => {
        preloadFont(woff2);
        loading[name] = font.loadDynamicFile(files[name]).catch(() => null);
      });
      return loading;
    } catch (error) {
      return {};  // MathJax loads them itself when a formula needs them
    }
  }
  /* Resolves once the ranges that the formulas ``holders`` use are loaded. */
  function rangesFor(holders) {
    const tex = holders.map((e) => e.textContent).join(" ");
    return Promise.all(RANGES.filter(([used, name]) => ranges[name] && used.test(tex))
      .map(([, name]) => ranges[name]));
  }
  /* What MathJax fetches before its first batch is asked for while the page is still busy
     with its deferred scripts (the theme's, then DOMContentLoaded): its assistive MathML
     component (loaded by its loader only once tex-chtml.js has run) from the start, and the
     ranges above, with their web fonts, once the page's TeX is parsed. Fetched when MathJax
     asked for them, they were the last wait before the first batch (their scripts ran after
     the page's load event and its handlers: 0.15-0.35 s at 4x). */
  if (lazy) {
    preload("mathjax4/a11y/assistive-mml.js", "script");
    const early = () => {
      const tex = pageTeX();
      RANGES.filter(([used]) => used.test(tex)).forEach(([, name, woff2]) => {
        preload(`mathjax4/fonts/mathjax-newcm-font/chtml/dynamic/${name}.js`, "script");
        preloadFont(woff2);
      });
    };
    if (document.readyState === "loading") {
      document.addEventListener("readystatechange", early, { once: true });
    } else {
      early();
    }
  }

  /* Every display formula fits its column, also after the window is resized or a phone
     turned. Display formulas typeset at build time (data-mlnotes-built: every formula with
     MLNOTES_PRERENDER_MATHS=1, the first screens' with =top) were broken for a laptop's column
     (book/_ext/prerender.py); those typeset in the page (lazily, or on a right-click for the
     menu) were broken for the column they had then (data-mlnotes-column). Each is checked when
     it comes near the screen (LAZY_MARGIN, as the lazy typesetter watches TeX) and again
     whenever its column changes width (a ResizeObserver): a built one wider than its column is
     typeset again from its TeX (the data-latex of its mjx-math) for that width
     (data-mlnotes-browser, data-mlnotes-column); one typeset in the page for another column
     than it has now is typeset again for it if it is too wide or was broken into lines (a
     wider column may hold it whole); a built one typeset again is given back as built once the
     column holds the built one whole. Until then a wide display scrolls sideways (its scroll
     cue, mlnotes.js).
     A page built whole loads MathJax only for this (data-mlnotes-mathjax, loadMathJax); a page
     built at its top uses its own, once started (pageReady). */
  let mathjaxStarted = null;
  const started = new Promise((resolve) => { mathjaxStarted = resolve; });
  let mathjaxLoading = null;
  function loadMathJax() {
    if (!built) return started;
    if (!mathjaxLoading) {
      mathjaxLoading = new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = built;
        script.onload = resolve;
        script.onerror = reject;
        document.head.appendChild(script);
      }).then(() => MathJax.startup.promise);
    }
    return mathjaxLoading;
  }
  const BUILT_DISPLAYS = ".math > mjx-container[display][data-mlnotes-built]";
  const DISPLAYS = ".math > mjx-container[display]";
  const tooWide = (c) => c.scrollWidth > c.clientWidth + 1;
  // typeset in the page for another column than it has now
  const moved = (c) => Math.abs(c.clientWidth - Number(c.getAttribute("data-mlnotes-column"))) > 2;
  const broken = (c) => c.querySelectorAll("mjx-linebox").length > 1;  // MathJax's lines
  const asBuilt = new WeakMap();  // a display typeset again here -> the display as built
  const needs = new WeakMap();  // a display as built -> the width (px) it needs whole
  // a formula in a block not laid out (far from the screen on a page built whole, mlnotes.css)
  // is measured only when it comes near: measuring it lays its block out
  const laidOut = (c) => all || !c.checkVisibility || c.checkVisibility({ contentVisibilityAuto: true });
  /* Resolves once the page's layout has stopped moving: the theme slides its sidebar in when
     the window widens past a phone's (a 0.25 s transition of its margin from -75% of the
     screen), and until it ends the article is up to that much wider than it will be (at
     1366 px a 609 px box measured 1634 px): a column measured then is one the reader never
     sees. Only transitions of the layout are waited for (at most LAYOUT_WAIT_MS). */
  const LAYOUT = /^(margin|padding|width|max-width|min-width|left|right|inset|flex|grid|transform)/;
  const LAYOUT_WAIT_MS = 1000;
  function settled() {
    const moving = document.getAnimations ? document.getAnimations().filter((a) =>
      typeof CSSTransition !== "undefined" && a instanceof CSSTransition
      && a.playState === "running" && LAYOUT.test(a.transitionProperty)) : [];
    if (!moving.length) return Promise.resolve();
    return Promise.race([
      Promise.all(moving.map((a) => a.finished.catch(() => null))),
      new Promise((resolve) => setTimeout(resolve, LAYOUT_WAIT_MS)),
    ]).then(frame);
  }
  /* What a display needs for the width it has: "again" (typeset for it), "built" (the display
     as built fits again), or nothing. */
  function refit(c) {
    const width = c.clientWidth;
    if (!width) return null;  // not shown (a folded block)
    const original = asBuilt.get(c);
    if (original && width >= needs.get(original)) return "built";
    if (c.hasAttribute("data-mlnotes-built")) return tooWide(c) ? "again" : null;
    // typeset in the page: again only for another column (typeset for this one, a display too
    // wide even so, with no place to break, scrolls)
    return moved(c) && (original || tooWide(c) || broken(c)) ? "again" : null;
  }
  /* Typeset the displays ``containers`` again for their columns; the [old, new] pairs. */
  async function typesetAgain(containers) {
    try {
      await loadMathJax();
    } catch (error) {
      console.error(error);  // the formulas stay as built: they scroll
      return [];
    }
    const made = [];
    for (const c of containers) {
      const math = c.querySelector(":scope > mjx-math");
      const tex = math && math.getAttribute("data-latex");
      if (!tex || !c.isConnected) continue;
      try {
        const column = c.clientWidth;
        const isBuilt = c.hasAttribute("data-mlnotes-built");
        if (isBuilt) needs.set(c, c.scrollWidth);
        const metrics = MathJax.getMetricsFor(c.parentNode, true);
        const node = await MathJax.tex2chtmlPromise(tex, metrics);
        if (!c.isConnected) continue;
        // the width it is broken for, typeset here (the browser tests read them)
        node.setAttribute("data-mlnotes-width", String(Math.round(metrics.containerWidth)));
        node.setAttribute("data-mlnotes-column", String(column));
        node.setAttribute("data-mlnotes-browser", "");
        const original = isBuilt ? c : asBuilt.get(c);
        if (original) asBuilt.set(node, original);
        c.replaceWith(node);
        // a formula MathJax typeset in the page: no longer in its list (a right-click on the new
        // one makes it MathJax's again, below)
        if (!isBuilt && !c.hasAttribute("data-mlnotes-browser")) forgetMathItem(c);
        made.push([c, node]);
      } catch (error) {
        console.error(error);  // the formula stays as it was: it scrolls
      }
    }
    if (made.length) {
      // MathJax's own style sheet, with the rules the new formulas use
      const sheet = MathJax.chtmlStylesheet();
      if (sheet && !sheet.isConnected) document.head.appendChild(sheet);
    }
    return made;
  }
  function forgetMathItem(c) {
    try {
      const list = MathJax.startup.document.math;
      for (const item of Array.from(list)) {
        if (item.typesetRoot === c) list.remove(item);
      }
    } catch (error) {
      console.warn("mlnotes: a formula typeset again stays in MathJax's list:", error);
    }
  }
  /* The displays in ``holders`` (.math elements) that MathJax has just typeset in the page:
     the column each was typeset for is kept (data-mlnotes-column), and they are watched. */
  let addDisplays = null;
  function watchTypeset(holders) {
    const displays = [];
    holders.forEach((h) => {
      const c = h.querySelector && h.querySelector(":scope > mjx-container[display]");
      if (c && !c.hasAttribute("data-mlnotes-column")) displays.push(c);
    });
    const widths = displays.map((c) => c.clientWidth);  // measured first: one layout
    displays.forEach((c, k) => c.setAttribute("data-mlnotes-column", String(widths[k])));
    if (addDisplays) addDisplays(displays);
  }
  /* Watch the displays of the page (``everyOne``: all of them at once, not only those near the
     screen: localStorage "mlnotes-typeset" = "all"), and those typeset in the page from now on
     (watchTypeset); resolves once those near the screen at the start (every one with
     ``everyOne``) are checked and, if need be, typeset again. */
  function watchDisplays(everyOne) {
    const displays = Array.from(document.querySelectorAll(BUILT_DISPLAYS));
    // those MathJax typeset before (all at once: "all"), for the column they have now
    watchTypeset(Array.from(document.querySelectorAll(DISPLAYS))
      .filter((c) => !c.hasAttribute("data-mlnotes-built")).map((c) => c.parentNode));
    displays.push(...document.querySelectorAll(`${DISPLAYS}[data-mlnotes-column]`));
    const waiting = new Set();
    const near = new Set();
    let running = null;
    let io = null;
    let ro = null;
    const watch = (c) => { if (io) { io.observe(c); ro.observe(c); } };
    const forget = (c) => {
      near.delete(c);
      if (io) { io.unobserve(c); ro.unobserve(c); }
    };
    async function drain() {
      while (waiting.size) {
        await settled();
        const list = Array.from(waiting).filter((c) => c.isConnected && laidOut(c));
        waiting.clear();
        // every display measured first, then changed (one layout, not one per display)
        const todo = list.map((c) => [c, refit(c)]).filter(([, how]) => how);
        const again = [];
        todo.forEach(([c, how]) => {
          if (how !== "built") {
            again.push(c);
            return;
          }
          const original = asBuilt.get(c);
          forget(c);
          c.replaceWith(original);
          watch(original);
        });
        if (again.length) (await typesetAgain(again)).forEach(([c, node]) => { forget(c); watch(node); });
      }
      running = null;
    }
    function check(list) {
      list.forEach((c) => waiting.add(c));
      if (!running) running = Promise.resolve().then(drain);  // drain sets it back to null
      return running;
    }
    if (typeof IntersectionObserver === "undefined" || typeof ResizeObserver === "undefined") {
      return check(displays);  // an old browser: every built display once
    }

    let first = null;
    const firstChecked = new Promise((resolve) => { first = resolve; });
    io = new IntersectionObserver((entries) => {
      entries.forEach((e) => { if (e.isIntersecting) near.add(e.target); else near.delete(e.target); });
      check(entries.filter((e) => everyOne || e.isIntersecting).map((e) => e.target)).then(first);
    }, { rootMargin: LAZY_MARGIN });
    // a column that changes width: the displays near the screen now, the others when they come
    // near (the observer above)
    ro = new ResizeObserver((entries) => {
      check(entries.map((e) => e.target).filter((c) => everyOne || near.has(c)));
    });
    displays.forEach(watch);
    addDisplays = (list) => list.forEach(watch);
    if (!displays.length) first();
    return firstChecked;
  }

  /* A page typeset whole at build time (MLNOTES_PRERENDER_MATHS=1) shows its maths at first
     paint and loads MathJax only for its displays too wide for the reader's column (above):
     those near the screen first (the first screen's maths is done then: the marks and the
     class "mlnotes-maths-pending" as on a lazy page), the others as they come near.
     localStorage "mlnotes-typeset" = "all" does all of them before the first screen is done. */
  function builtPage() {
    const finish = mathsReady;
    const firstScreen = () => {
      performance.mark("mlnotes-typeset-start");
      // the island's formulas on the screen put in place (every one with "all"); the screen is
      // drawn with its fonts first (as built, a wide display scrolls): loading and starting
      // MathJax, about 1.5 s of a 4x slower phone, comes after
      const inPlace = !document.getElementById(ISLAND) ? null
        : all || typeof IntersectionObserver === "undefined"
          ? fromIsland(Array.from(document.querySelectorAll(".math[data-mlnotes-chtml]")))
          : typesetNearScreen(fromIsland, inIsland);
      Promise.resolve(inPlace)
        .then(() => (all ? null : painted()))
        .then(() => watchDisplays(all))
        .then(() => {
          root.classList.remove("mlnotes-maths-pending");
          performance.mark("mlnotes-typeset-end");
          finish();
        });
    };
    // an island's first screen at once (its formulas are hidden TeX until then), a page built
    // whole after a frame
    const start = () => (document.getElementById(ISLAND) ? firstScreen() : frame().then(firstScreen));
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", start);
    } else {
      start();
    }
  }
  if (built) builtPage();

  /* MathJax's menu (a right-click: "Show Math As" TeX or MathML, its settings) belongs to the
     formulas MathJax typeset in the page. A formula typeset at build time is typeset in the
     page on its first right-click (from its TeX, data-latex: the same output, for the column it
     has), and the menu opens on it. A touch screen has no menu (above). */
  document.addEventListener("contextmenu", (event) => {
    const c = event.target.closest && event.target.closest(
      ".math > mjx-container[data-mlnotes-built], .math > mjx-container[data-mlnotes-browser]");
    if (!c || config.options.enableMenu === false) return;
    const math = c.querySelector(":scope > mjx-math");
    const tex = math && math.getAttribute("data-latex");
    if (!tex) return;
    event.preventDefault();
    event.stopPropagation();
    const holder = c.parentNode;
    const display = c.getAttribute("display") === "true";
    const { clientX, clientY, screenX, screenY } = event;
    loadMathJax().then(() => {
      if (!c.isConnected) return null;
      c.replaceWith(document.createTextNode(display ? `\\[${tex}\\]` : `\\(${tex}\\)`));
      return MathJax.typesetPromise([holder]);
    }).then(() => {
      watchTypeset([holder]);
      const node = holder.querySelector(":scope > mjx-container");
      if (node) {
        node.dispatchEvent(new MouseEvent("contextmenu", { bubbles: true, cancelable: true,
                                                           clientX, clientY, screenX, screenY, button: 2 }));
      }
    }).catch((error) => console.error(error));
  }, true);

  const ready = config.startup.pageReady;
  config.startup.pageReady = function () {
    if (built) return ready ? ready() : MathJax.startup.defaultPageReady();
    performance.mark("mlnotes-typeset-start");
    mathjaxStarted();  // the built displays may be typeset again from now on
    // the displays (those typeset at build time, =top, and those typeset here) are watched
    // from now on (lazily: a wide one on the screen scrolls until it is typeset again); with
    // "all", every one is checked, after the page's TeX is typeset, before the first screen
    // counts as done
    if (lazy) watchDisplays(false);
    const done = ready ? ready() : MathJax.startup.defaultPageReady();
    return Promise.resolve(done).then((value) =>
      Promise.resolve(lazy ? typesetNearScreen() : null).then(() => value)).then((value) =>
      Promise.resolve(!lazy ? watchDisplays(true) : null).then(() => value))
      .then((value) => {
        root.classList.remove("mlnotes-maths-pending");
        performance.mark("mlnotes-typeset-end");  // the first screen's formulas are typeset
        mathsReady();
        return value;
      });
  };
})();
