/* Small improvements of the book's pages that need JavaScript.
 *
 * Wide inline math: MathJax 3 does not break inline formulas, so one wider than the text column
 * (on a phone) would be cut off. Such formulas are marked "mlnotes-wide-inline" after typesetting;
 * the CSS lets them scroll on their own. Formulas that fit keep their normal baseline.
 *
 * Search results: Sphinx builds each result's snippet from the page's text content, which runs
 * the words of adjacent blocks together ("problemIn") and shows math as raw TeX ("\(r(i,j)\)").
 * The snippet text is rebuilt here with a space between blocks and the TeX turned into readable
 * text (delimiters, backslashes and braces dropped; Greek letters as symbols).
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
  ell: "ℓ", mid: "|", ldots: "…", dots: "…", cdots: "⋯",
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

function mlnotesPatchSearch() {
  if (typeof Search === "undefined" || !Search.htmlToText) return;
  Search.htmlToText = (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    const main = doc.querySelector('[role="main"]');
    if (!main) return "";
    const block = anchor ? main.querySelector(anchor) : null;
    return mlnotesReadableText(block || main);
  };
}

function mlnotesMarkWideInlineMath() {
  document.querySelectorAll(".bd-article mjx-container:not([display])").forEach((el) => {
    el.classList.remove("mlnotes-wide-inline");
    const block = el.closest("p, li, dd, td, th, div, figcaption, span.caption-text") || el.parentElement;
    if (el.getBoundingClientRect().width > block.clientWidth + 1) {
      el.classList.add("mlnotes-wide-inline");
    }
  });
}

function mlnotesAfterMathJax(callback) {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise) {
    mj.startup.promise.then(callback);
  } else {
    callback();
  }
}

mlnotesPatchSearch();
document.addEventListener("DOMContentLoaded", () => {
  mlnotesPatchSearch();
  mlnotesAfterMathJax(mlnotesMarkWideInlineMath);
});
let mlnotesResizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(mlnotesResizeTimer);
  mlnotesResizeTimer = setTimeout(mlnotesMarkWideInlineMath, 150);
});
