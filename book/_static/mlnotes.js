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

function mlnotesMarkZoomableFigures() {
  document.querySelectorAll(".bd-article .cell_output img, .bd-article figure img").forEach((img) => {
    const shrunk = img.naturalWidth / 2 > img.getBoundingClientRect().width + 24;
    img.classList.toggle("mlnotes-zoomable", shrunk);
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
window.addEventListener("load", mlnotesMarkZoomableFigures);
let mlnotesResizeTimer = null;
window.addEventListener("resize", () => {
  clearTimeout(mlnotesResizeTimer);
  mlnotesResizeTimer = setTimeout(() => {
    mlnotesMarkWideInlineMath();
    mlnotesMarkZoomableFigures();
  }, 150);
});
