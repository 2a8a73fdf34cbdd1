/* Typeset the built book's formulas at build time (issue 32: maths readable at first paint).
 *
 * Called once per build by book/_ext/prerender.py (one Node process for every page):
 *
 *     node prerender_maths.cjs JOB.json
 *
 * JOB.json: {"mathjax": the bundled MathJax folder (book/_static/mathjax4), "linebreaks": the
 * file with the book's line-break places (book/_static/mlnotes-mathjax.js), "config": the
 * pages' MathJax configuration (_config.yml, mathjax3_config), "width"/"numbered": the
 * column's width in CSS px that display formulas are broken for (beside an equation number),
 * "em"/"ex"/"scale": the text's em and ex in px and the maths' size relative to the text (what
 * MathJax measures in a browser), "fontURL": the web fonts' address relative to "css", "css": where to write the style sheet,
 * "files": the HTML pages, "budget": null (every formula) or {"chars", "formulas"}: only the
 * formulas at the top of each page's article, before that many characters of its text (a
 * formula counts half its TeX) and at most that many formulas, the others left as TeX for the
 * page's lazy typesetter (mlnotes-mathjax.js); a page that already holds a formula typeset
 * here (a rebuild reads the pages Sphinx did not write again) is left as it is}.
 *
 * Each formula Sphinx wrote (<span class="math ...">\(...\)</span>, <div class="math ...">
 * \[...\]</div>) becomes MathJax's CHTML output, with its assistive MathML, in place; its TeX
 * source stays in the data-latex of its mjx-math, for the page to break a display again on a
 * narrower screen (mlnotes-mathjax.js); each mjx-container has data-mlnotes-built, and a
 * display's data-mlnotes-width is the width in CSS px
 * it was broken for. A formula MathJax cannot typeset (an error) is left as TeX, for the
 * page's MathJax. One style sheet (CHTML's, for every formula of the book) is written to "css".
 * Prints a JSON summary: per page the formulas typeset and left.
 */
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const dir = path.resolve(job.mathjax);
const config = JSON.parse(JSON.stringify(job.config || {}));
config.loader = config.loader || {};
config.loader.paths = Object.assign({}, config.loader.paths || {}, { mathjax: dir });
// the components load with Node's require (the bundled copy's files, no network)
config.loader.require = (file) => require(file);
config.loader.load = ["adaptors/liteDOM"].concat(config.loader.load || []);
config.options = config.options || {};
// the menu is the browser's: its settings that matter here become plain options
const settings = ((config.options.menuOptions || {}).settings) || {};
config.options.enableAssistiveMml = settings.assistiveMml !== false;
for (const key of ["menuOptions", "enableMenu", "enableExplorer"]) delete config.options[key];
config.output = Object.assign({}, config.output || {}, { fontURL: job.fontURL });
config.startup = Object.assign({}, config.startup || {}, { typeset: false });
global.MathJax = config;

// tex-chtml.js is run as a script, as in a browser, not as a module: given a module's require it
// would look for the speech-rule engine, which the bundled copy leaves out
const combined = path.join(dir, "tex-chtml.js");
vm.runInThisContext(fs.readFileSync(combined, "utf8"), { filename: combined });

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" };
const unescape = (s) => s.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (m, e) => ENTITIES[e]);

// Sphinx's HTML for a formula: inline, and display (an optional equation number before it)
const INLINE = /<span class="math notranslate nohighlight">\\\(([\s\S]*?)\\\)<\/span>/g;
const DISPLAY = /(<div class="math notranslate nohighlight"(?: id="[^"]*")?)>\n?((?:<span class="eqno">[\s\S]*?<\/span>)?)\\\[([\s\S]*?)\\\]\n?<\/div>/g;

// a formula typeset here (by this build or the one that wrote the page)
const BUILT = /<mjx-container [^>]*data-mlnotes-built/;

/* The formulas of ``found`` (sorted by offset) on the article's first screens: those before
   budget.chars characters of its text (tags dropped; a formula counts half its TeX), at most
   budget.formulas of them, in the page's order. */
function firstScreens(html, found, budget) {
  const start = html.indexOf('<article class="bd-article"');
  if (start < 0) return [];
  const chosen = [];
  let at = start;
  let text = 0;
  for (const f of found) {
    if (f.offset < start) continue;
    text += html.slice(at, f.offset).replace(/<[^>]*>/g, "").replace(/\s+/g, " ").length;
    if (text >= budget.chars || chosen.length >= budget.formulas) break;
    chosen.push(f);
    text += f.tex.length / 2;
    at = f.offset + f.m.length;
  }
  return chosen;
}

async function main() {
  await MathJax.startup.promise;
  const { tidyLineBreaks } = require(path.resolve(job.linebreaks));
  MathJax.startup.input.forEach((jax) => jax.postFilters && jax.postFilters.add(tidyLineBreaks));
  const adaptor = MathJax.startup.adaptor;
  const metrics = { em: job.em, ex: job.ex, scale: job.scale };

  async function typeset(tex, display, width) {
    const node = await MathJax.tex2chtmlPromise(tex, Object.assign({ display, containerWidth: width },
                                                                   metrics));
    if (adaptor.tags(node, "mjx-merror").length) return null;  // the page's MathJax says why
    // MathJax's TeX of each part (for its explorer, which the book does not use) is dropped,
    // but for the whole formula's (on mjx-math: the source a narrower screen typesets again,
    // as the browser tests and the PDF printer read it) and a \left...\right group's
    return adaptor.outerHTML(node).replace(/<(mjx-[A-Za-z]+)([^>]*)>/g, (tag, name, attrs) =>
      (name === "mjx-math" ? tag : `<${name}${attrs.replace(
        / data-latex(?:-item)?="(?!\\left)[^"]*"/g, "")}>`));
  }

  const summary = {};
  for (const file of job.files) {
    const html = fs.readFileSync(file, "utf8");
    const found = [];
    html.replace(INLINE, (m, tex, offset) => { found.push({ m, offset, tex, display: false }); });
    html.replace(DISPLAY, (m, open, eqno, tex, offset) => {
      found.push({ m, offset, tex, display: true, open, eqno });
    });
    if (!found.length) continue;
    found.sort((a, b) => a.offset - b.offset);
    if (job.budget && BUILT.test(html)) {
      // its first screens were typeset by the build that wrote it: a rebuild that did not write
      // the page again reads it as that build left it (the formulas below stay TeX; a window
      // counted again from the first one left would typeset further down on every rebuild)
      summary[file] = { typeset: 0, left: found.length };
      continue;
    }
    // the first screens (the article's top, within its budget) in place; the others in the
    // page's island (job.island) or left as TeX
    const top = new Set(job.budget ? firstScreens(html, found, job.budget) : found);
    if (!job.island) {
      summary[file] = { typeset: 0, left: found.length };
      if (!top.size) continue;
      found.splice(0, found.length, ...found.filter((f) => top.has(f)));
    }
    const island = [];
    let out = "";
    let at = 0;
    let done = 0;
    for (const f of found) {
      const tex = unescape(f.tex);
      let chtml = null;
      try {
        chtml = await typeset(tex, f.display, f.eqno ? job.numbered : job.width);
      } catch (error) {
        chtml = null;
      }
      out += html.slice(at, f.offset);
      at = f.offset + f.m.length;
      if (chtml === null) {
        out += f.m;
        continue;
      }
      done += 1;
      // data-mlnotes-built: typeset here (the page's lazy typesetter and its tests skip it)
      const width = f.eqno ? job.numbered : job.width;
      const mark = (html, w) => html.replace("<mjx-container ", "<mjx-container data-mlnotes-built=\"\" "
        + (f.display ? `data-mlnotes-width="${w}" ` : ""));
      chtml = mark(chtml, width);
      if (!top.has(f)) {
        // out of the page's DOM until it comes near the screen: the page's script puts it in
        // (mlnotes-mathjax.js); a display also broken for a phone's column, when that differs
        // data-mlnotes-island: put in place by the page (its browser tests count these)
        const island1 = (html) => html.replace("<mjx-container ", "<mjx-container data-mlnotes-island=\"\" ");
        let entry = island1(chtml);
        if (f.display) {
          let narrow = null;
          try {
            narrow = await typeset(tex, true, job.phone);
          } catch (error) {
            narrow = null;
          }
          if (narrow !== null && narrow.replace(/ data-mlnotes-[a-z]+="[^"]*"/g, "")
              !== chtml.replace(/ data-mlnotes-[a-z]+="[^"]*"/g, "")) {
            entry = [entry, island1(mark(narrow, job.phone))];
          }
        }
        out += f.m.replace(/^(<(?:span|div)[^>]*)>/, `$1 data-mlnotes-chtml="${island.length}">`);
        island.push(entry);
        continue;
      }
      out += f.display ? `${f.open}>${f.eqno}${chtml}</div>`
        : `<span class="math notranslate nohighlight">${chtml}</span>`;
    }
    out += html.slice(at);
    if (island.length) {
      // one JSON text at the end of the body: the parser only scans it (no element is made);
      // "</" and "<!--" written so that they cannot end the script
      const json = JSON.stringify(island).replace(/<\//g, "<\\/").replace(/<!--/g, "\\u003c!--");
      out = out.replace(/<\/body>(?![\s\S]*<\/body>)/,
        `<script type="application/json" id="mlnotes-chtml">${json}</script>\n</body>`);
    }
    fs.writeFileSync(file, out);
    summary[file] = { typeset: done, left: (summary[file] ? summary[file].left : found.length) - done };
  }
  fs.writeFileSync(job.css, adaptor.textContent(MathJax.chtmlStylesheet()));
  process.stdout.write(JSON.stringify(summary));
}

main().catch((error) => {
  console.error(error && error.stack ? error.stack : error);
  process.exit(1);
});
