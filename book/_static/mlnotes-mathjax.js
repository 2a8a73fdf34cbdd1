/* Maths readable at first paint (issue 32): the page's own MathJax configuration (_config.yml,
 * mathjax3_config, written into the page just before this script) gets MathJax's lazy
 * typesetting, so that only the formulas on or near the screen are typeset at load and the rest
 * as the reader scrolls (each LAZY_MARGIN before it comes into view). A formula not yet typeset
 * is an empty placeholder, never TeX source; mlnotes.css also hides the TeX source until MathJax
 * has started. Printing typesets everything first (MathJax does so on "beforeprint").
 *
 * localStorage "mlnotes-typeset" = "all" typesets every formula at load, as before: the browser
 * tests that measure every equation of a page and the PDF printer (.dev/pdf.py) set it.
 */
"use strict";
(function () {
  /* MathJax 4.1's lazy typesetter (ui/lazy) loses formulas: a formula that comes into view
   * while a batch is being typeset (lazyIdle is still true until that batch's render ends,
   * and the render waits for font ranges and TeX extensions to load) is added to the next
   * batch, but nothing schedules that batch; it waits for another formula to come into view,
   * which may never happen (the t-SNE page's formulas near 24 500 px on a phone, issue 32).
   * Here each batch, once rendered, starts the next one if formulas are waiting. The idle
   * callback also gets a deadline, so that a busy page (a phone loading its images) does not
   * hold the first screen's formulas back until it is idle. */
  const IDLE_TIMEOUT_MS = 100;
  function keepLazyTypesetting(doc) {
    if (!doc || !(doc.lazySet instanceof Set) || typeof doc.lazyHandleSet !== "function") return;
    const idle = window.requestIdleCallback
      ? (f) => window.requestIdleCallback(f, { timeout: IDLE_TIMEOUT_MS })
      : (f) => setTimeout(f, 10);
    const next = () => {
      if (doc.lazySet.size && !doc.lazyIdle) {
        doc.lazyIdle = true;
        doc.lazyProcessSet();
      }
    };
    doc.lazyProcessSet = () => idle(() => {
      doc.lazyHandleSet();  // takes the waiting formulas; lazyIdle stays true until rendered
      doc.lazyPromise = doc.lazyPromise.then(next, (error) => {
        console.error(error);
        doc.lazyIdle = false;
        next();
      });
    });
  }

  const LAZY_MARGIN = "1200px";
  const config = window.MathJax;
  if (!config || typeof config !== "object") return;  // a page without maths loads no MathJax
  document.documentElement.classList.add("mlnotes-maths-pending");
  let all = false;
  try {
    all = localStorage.getItem("mlnotes-typeset") === "all";
  } catch (error) {
    all = false;  // storage blocked: lazy typesetting, as for any reader
  }
  config.loader = config.loader || {};
  config.options = config.options || {};
  if (!all) {
    config.loader.load = (config.loader.load || []).concat(["ui/lazy"]);
    config.options.lazyMargin = LAZY_MARGIN;
    // the page's table of contents (a drawer on a phone) shows its headings' maths at once
    config.options.lazyAlwaysTypeset = ["#pst-secondary-sidebar", ".bd-toc"];
  }
  // On a touch screen a long press opened MathJax's menu, half off a phone's screen: no menu
  // there (a mouse keeps it: right-click, "Show Math As TeX").
  if (window.matchMedia && window.matchMedia("(hover: none) and (pointer: coarse)").matches) {
    config.options.enableMenu = false;
  }
  config.startup = config.startup || {};
  const startupReady = config.startup.ready;
  config.startup.ready = function () {
    if (startupReady) startupReady(); else MathJax.startup.defaultReady();
    keepLazyTypesetting(MathJax.startup.document);
  };
  const ready = config.startup.pageReady;
  config.startup.pageReady = function () {
    performance.mark("mlnotes-typeset-start");
    const done = ready ? ready() : MathJax.startup.defaultPageReady();
    return Promise.resolve(done).then((value) => {
      document.documentElement.classList.remove("mlnotes-maths-pending");
      performance.mark("mlnotes-typeset-end");  // the first screen's formulas are typeset
      return value;
    });
  };
})();
