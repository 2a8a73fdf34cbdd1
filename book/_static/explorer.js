/* mlnotes explorers in the static book: precomputed results drawn on canvas, working controls.
 *
 * Each explorer cell carries its data (mlnotes/widgets/_static.py describes the format:
 * gzip-compressed JSON in base64), inline or, in the book, in a file of its own that is loaded
 * when needed (book/_ext/explorers.py). This script decodes it when the explorer comes near the
 * screen (inline data also when the browser is idle; all before printing), builds labelled controls (range
 * inputs and radio buttons: keyboard and touch work natively) and draws the panels of the
 * chosen setting. No framework, no request outside the book.
 */
(function () {
  "use strict";
  if (window.MLNotesExplorers) { window.MLNotesExplorers.scan(); return; }
  var uid = 0, live = [], pending = [], observer = null;
  var resolveReady, ready = new Promise(function (r) { resolveReady = r; });

  // --- data -------------------------------------------------------------------------------------
  function decode(b64) {
    var bin = atob(b64.trim()), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  // The data is inline (a notebook's output), or, in the book, in a file of its own
  // (book/_ext/explorers.py: data-src, data-key) loaded by a <script> element when needed, which
  // works from file:// too; the file hands it over in window.MLNotesExplorerData[key].
  var loading = {};
  function source(el) {
    var src = el.getAttribute("data-src"), key = el.getAttribute("data-key");
    if (!src) return Promise.resolve(el.textContent);
    var store = function () { return (window.MLNotesExplorerData || {})[key]; };
    if (store()) return Promise.resolve(store());
    if (!loading[key]) {
      loading[key] = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = src; s.async = true;
        s.onload = function () { return store() ? resolve(store()) : reject(new Error("no data in " + src)); };
        s.onerror = function () { delete loading[key]; reject(new Error("could not load " + src)); };
        document.head.appendChild(s);
      });
    }
    return loading[key];
  }

  function arrayOf(x, ref) {  // "@id" -> Float64Array (NaN for missing), decoded once
    if (typeof ref !== "string" || ref[0] !== "@") return ref;
    var cache = x.cache, id = ref.slice(1);
    if (cache[id]) return cache[id];
    var e = x.spec.arrays[id], q = e.q, out = new Float64Array(q.length);
    var cols = e.shape.length > 1 ? e.shape[1] : 1;
    for (var i = 0; i < q.length; i++) {
      if (!e.lo) { out[i] = q[i]; continue; }
      var c = e.lo.length > 1 ? i % cols : 0;
      var v = q[i] < 0 ? NaN : e.lo[c] + q[i] / e.levels * (e.hi[c] - e.lo[c]);
      out[i] = e.log ? Math.pow(10, v) : v;
    }
    out.shape = e.shape;
    return (cache[id] = out);
  }

  // --- drawing ----------------------------------------------------------------------------------
  function colour(el, name) {
    var v = getComputedStyle(el).getPropertyValue("--mlx-" + name).trim();
    return v || name;
  }

  function niceTicks(lo, hi, n) {
    var span = hi - lo;
    if (!(span > 0)) return [lo];
    var step = Math.pow(10, Math.floor(Math.log10(span / n))), err = span / n / step;
    step *= err >= 5 ? 10 : err >= 2 ? 5 : err >= 1.5 ? 2 : 1;
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * span; v += step) {
      out.push(Math.abs(v) < 1e-12 * span ? 0 : v);
    }
    return out;
  }

  function logTicks(lo, hi) {  // decades; with 2 and 5 between them when there are few
    var out = [], mult = hi - lo < 2 ? [1, 2, 5] : [1];
    for (var k = Math.floor(lo); k <= Math.ceil(hi); k++) mult.forEach(function (m) {
      var v = k + Math.log10(m);
      if (v >= lo && v <= hi) out.push(v);
    });
    return out;
  }

  var SUPER = {"-": "\u207b", "0": "\u2070", "1": "\u00b9", "2": "\u00b2", "3": "\u00b3",
               "4": "\u2074", "5": "\u2075", "6": "\u2076", "7": "\u2077", "8": "\u2078",
               "9": "\u2079"};
  function fmt(v, log) {
    if (log) return "10" + String(Math.round(v)).replace(/./g, function (c) { return SUPER[c]; });
    if (v !== 0 && (Math.abs(v) >= 1e5 || Math.abs(v) < 1e-3)) return v.toExponential(0);
    return String(parseFloat(v.toPrecision(3)));
  }

  function limits(x, p, axis) {  // the data range of a panel along "x" or "y"
    var given = p[axis + "lim"];
    if (given) return p.ylog && axis === "y" ? given.map(Math.log10) : given.slice();
    var lo = Infinity, hi = -Infinity, k = axis === "x" ? 0 : 1;
    p.layers.forEach(function (l) {
      var v = null;
      if (l.t === "pts" || l.t === "seg") {
        var xy = arrayOf(x, l.xy);
        for (var i = k; i < xy.length; i += 2) { lo = Math.min(lo, xy[i]); hi = Math.max(hi, xy[i]); }
      } else if (l.t === "line" || l.t === "stem" || l.t === "bars") v = arrayOf(x, l[axis]);
      if (v) for (var j = 0; j < v.length; j++) {
        var w = p.ylog && axis === "y" ? Math.log10(v[j]) : v[j];
        if (isFinite(w)) { lo = Math.min(lo, w); hi = Math.max(hi, w); }
      }
    });
    if (!isFinite(lo)) return [0, 1];
    var pad = (hi - lo) * 0.05 || 0.5;
    return [lo - pad, hi + pad];
  }

  function drawPanel(x, canvas, p) {
    var el = x.root, dpr = window.devicePixelRatio || 1;
    var W = canvas.clientWidth, H = canvas.clientHeight;
    if (!W || !H) return;
    canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
    var ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, W, H);
    var fg = colour(el, "fg"), font = "11px system-ui, sans-serif";
    ctx.font = font;
    var xl = limits(x, p, "x"), yl = limits(x, p, "y");
    var xt = p.xticks === "auto" ? niceTicks(xl[0], xl[1], 4) : p.xticks || [];
    var yt = p.yticks === "auto" ? (p.ylog ? logTicks(yl[0], yl[1]) : niceTicks(yl[0], yl[1], 4))
      : (p.yticks || []).map(function (v) { return p.ylog ? Math.log10(v) : v; });
    var plain = p.ylog && yt.some(function (v) { return Math.abs(v - Math.round(v)) > 1e-9; });
    var ylabels = p.yticklabels || yt.map(function (v) {  // 2000, 5000, 10000 or 10², 10³, 10⁴
      return plain ? fmt(Math.pow(10, v)) : fmt(v, p.ylog); });
    var left = 6, bottom = 6;
    if (yt.length) left += 6 + Math.max.apply(null, ylabels.map(function (s) {
      return ctx.measureText(s).width; }));
    if (p.ylabel) left += 16;
    if (xt.length) bottom += 16;
    if (p.xlabel) bottom += 16;
    var right = xt.length ? Math.max(8, ctx.measureText(fmt(xt[xt.length - 1])).width / 2 + 2) : 8;
    var box = {x: left, y: 6, w: Math.max(W - left - right, 10), h: Math.max(H - 6 - bottom, 10)};
    if (p.equal) {  // one data unit the same length on both axes: widen the shorter range
      var sx = (xl[1] - xl[0]) / box.w, sy = (yl[1] - yl[0]) / box.h, s = Math.max(sx, sy);
      var cx = (xl[0] + xl[1]) / 2, cy = (yl[0] + yl[1]) / 2;
      xl = [cx - s * box.w / 2, cx + s * box.w / 2]; yl = [cy - s * box.h / 2, cy + s * box.h / 2];
    }
    function X(v) { return box.x + (v - xl[0]) / (xl[1] - xl[0]) * box.w; }
    function Y(v) {
      if (p.ylog) v = Math.log10(v);
      return box.y + box.h - (v - yl[0]) / (yl[1] - yl[0]) * box.h;
    }
    function Yraw(v) { return box.y + box.h - (v - yl[0]) / (yl[1] - yl[0]) * box.h; }

    ctx.save();
    ctx.beginPath(); ctx.rect(box.x, box.y, box.w, box.h); ctx.clip();
    p.layers.forEach(function (l) { drawLayer(x, ctx, l, X, Y, box, el); });
    ctx.restore();

    ctx.fillStyle = fg; ctx.strokeStyle = colour(el, "muted"); ctx.lineWidth = 1;
    if (p.axes) ctx.strokeRect(box.x + 0.5, box.y + 0.5, box.w - 1, box.h - 1);
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    xt.forEach(function (v) {
      var px = X(v);
      ctx.beginPath(); ctx.moveTo(px, box.y + box.h); ctx.lineTo(px, box.y + box.h + 3); ctx.stroke();
      ctx.fillText(fmt(v), px, box.y + box.h + 4);
    });
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    yt.forEach(function (v, i) {
      var py = Yraw(v);
      if (p.axes) { ctx.beginPath(); ctx.moveTo(box.x - 3, py); ctx.lineTo(box.x, py); ctx.stroke(); }
      ctx.fillText(ylabels[i], box.x - 5, py);
    });
    if (p.xlabel) {
      ctx.textAlign = "center"; ctx.textBaseline = "bottom";
      ctx.fillText(p.xlabel, box.x + box.w / 2, H - 2);
    }
    if (p.ylabel) {
      ctx.save(); ctx.translate(10, box.y + box.h / 2); ctx.rotate(-Math.PI / 2);
      ctx.textAlign = "center"; ctx.textBaseline = "middle"; ctx.fillText(p.ylabel, 0, 0);
      ctx.restore();
    }
  }

  function drawLayer(x, ctx, l, X, Y, box, el) {
    var col = l.color ? colour(el, l.color) : null, i, a, b;
    if ([l.x, l.y, l.v, l.x0, l.x1].indexOf(null) >= 0) return;  // a number that was not finite
    ctx.setLineDash(l.dash ? [5, 4] : []);
    ctx.lineWidth = l.width || 1; ctx.strokeStyle = col; ctx.fillStyle = col;
    if (l.t === "pts") {
      var xy = arrayOf(x, l.xy), c = l.c ? arrayOf(x, l.c) : null, pal = x.spec.cmaps[l.cmap];
      var r = l.size || 2;
      if (l.edge) { ctx.strokeStyle = colour(el, l.edge); ctx.lineWidth = 0.5; }
      for (i = 0; i < xy.length / 2; i++) {
        if (c) ctx.fillStyle = pal[Math.max(0, Math.min(pal.length - 1, c[i]))];
        ctx.beginPath(); ctx.arc(X(xy[2 * i]), Y(xy[2 * i + 1]), r, 0, 2 * Math.PI); ctx.fill();
        if (l.edge) ctx.stroke();
      }
    } else if (l.t === "seg") {
      var pts = arrayOf(x, l.xy), pairs = arrayOf(x, l.pairs);
      var n = l.count === undefined ? pairs.length / 2 : l.count;
      ctx.beginPath();
      for (i = 0; i < n; i++) {
        a = pairs[2 * i]; b = pairs[2 * i + 1];
        ctx.moveTo(X(pts[2 * a]), Y(pts[2 * a + 1])); ctx.lineTo(X(pts[2 * b]), Y(pts[2 * b + 1]));
      }
      ctx.stroke();
    } else if (l.t === "line") {
      var lx = arrayOf(x, l.x), ly = arrayOf(x, l.y);
      ctx.beginPath();
      for (i = 0; i < lx.length; i++) ctx[i ? "lineTo" : "moveTo"](X(lx[i]), Y(ly[i]));
      ctx.stroke();
      if (l.marker) for (i = 0; i < lx.length; i++) {
        ctx.beginPath(); ctx.arc(X(lx[i]), Y(ly[i]), 3, 0, 2 * Math.PI); ctx.fill();
      }
    } else if (l.t === "dot") {
      ctx.beginPath(); ctx.arc(X(l.x), Y(l.y), 4.5, 0, 2 * Math.PI); ctx.fill();
    } else if (l.t === "rule") {
      ctx.beginPath();
      if (l.axis === "x") { ctx.moveTo(X(l.v), box.y); ctx.lineTo(X(l.v), box.y + box.h); }
      else { ctx.moveTo(box.x, Y(l.v)); ctx.lineTo(box.x + box.w, Y(l.v)); }
      ctx.stroke();
    } else if (l.t === "span") {
      ctx.fillRect(X(l.x0), box.y, X(l.x1) - X(l.x0), box.h);
    } else if (l.t === "stem") {
      var sx = arrayOf(x, l.x), sy = arrayOf(x, l.y);
      ctx.beginPath();
      for (i = 0; i < sx.length; i++) { ctx.moveTo(X(sx[i]), Y(0)); ctx.lineTo(X(sx[i]), Y(sy[i])); }
      ctx.stroke();
    } else if (l.t === "bars") {
      var bx = arrayOf(x, l.x), by = arrayOf(x, l.y), hw = (l.width || 0.8) / 2;
      for (i = 0; i < bx.length; i++) {
        ctx.fillStyle = colour(el, l.colors[i]);
        ctx.fillRect(X(bx[i] - hw), Y(by[i]), X(bx[i] + hw) - X(bx[i] - hw), Y(0) - Y(by[i]));
      }
    } else if (l.t === "img") {
      drawImage(x, ctx, l, X, Y);
    } else if (l.t === "text") {
      ctx.font = "11px system-ui, sans-serif"; ctx.textAlign = l.align;
      ctx.textBaseline = l.baseline; ctx.fillText(l.s, X(l.x) + 2, Y(l.y));
    }
    ctx.setLineDash([]);
  }

  function drawImage(x, ctx, l, X, Y) {
    var z = arrayOf(x, l.z), rows = z.shape[0], cols = z.shape[1], pal = x.spec.cmaps[l.cmap];
    var lo = l.vmin, hi = l.vmax;
    if (lo === undefined) {
      lo = Infinity; hi = -Infinity;
      for (var k = 0; k < z.length; k++) if (isFinite(z[k])) { lo = Math.min(lo, z[k]); hi = Math.max(hi, z[k]); }
    }
    var off = document.createElement("canvas");
    off.width = cols; off.height = rows;
    var octx = off.getContext("2d"), im = octx.createImageData(cols, rows);
    for (var r = 0; r < rows; r++) for (var c = 0; c < cols; c++) {
      var v = z[r * cols + c], o = 4 * ((rows - 1 - r) * cols + c);  // row 0 is the bottom
      if (!isFinite(v)) { im.data[o + 3] = 0; continue; }
      var t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
      var hex = pal[Math.max(0, Math.min(pal.length - 1, Math.round(t * (pal.length - 1))))];
      im.data[o] = parseInt(hex.substr(1, 2), 16); im.data[o + 1] = parseInt(hex.substr(3, 2), 16);
      im.data[o + 2] = parseInt(hex.substr(5, 2), 16); im.data[o + 3] = 255;
    }
    octx.putImageData(im, 0, 0);
    ctx.imageSmoothingEnabled = l.cmap !== "gray";
    var e = l.ext;
    ctx.drawImage(off, X(e[0]), Y(e[3]), X(e[1]) - X(e[0]), Y(e[2]) - Y(e[3]));
  }

  // --- one explorer -----------------------------------------------------------------------------
  function make(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function build(root, spec) {
    var x = {root: root, spec: spec, cache: {}, idx: spec.controls.map(function (c) { return c.index; }),
             frame: 0, timer: null, inputs: []};
    var id = "mlx" + (++uid);
    var controls = make("div", "mlx-controls");
    spec.controls.forEach(function (c, j) {
      if (c.values.length === 1) {
        controls.appendChild(make("p", "mlx-control mlx-fixed", c.label + ": " + c.values[0] +
          " (the notebook has the others)"));
        x.inputs.push(null);
      } else if (c.kind === "choice") {
        var fs = make("fieldset", "mlx-control mlx-choice");
        fs.appendChild(make("legend", "", c.label));
        var radios = c.values.map(function (v, i) {
          var lab = make("label"), r = make("input");
          r.type = "radio"; r.name = id + "-" + c.name; r.value = i;
          r.addEventListener("change", function () { if (r.checked) choose(x, j, i); });
          lab.appendChild(r); lab.appendChild(document.createTextNode(" " + v)); fs.appendChild(lab);
          return r;
        });
        controls.appendChild(fs);
        x.inputs.push({set: function (i) { radios.forEach(function (r, k) { r.checked = k === i; }); },
                       disable: function (off) { radios.forEach(function (r) { r.disabled = off; });
                                                 fs.classList.toggle("mlx-inert", off); }});
      } else {
        var div = make("div", "mlx-control mlx-slider"), lab2 = make("label", "", c.label);
        var input = make("input"), out = make("output");
        input.type = "range"; input.min = 0; input.max = c.values.length - 1; input.step = 1;
        input.id = lab2.htmlFor = id + "-" + c.name;
        out.htmlFor = input.id;
        input.addEventListener("input", function () { choose(x, j, +input.value); });
        div.appendChild(lab2); div.appendChild(input); div.appendChild(out); controls.appendChild(div);
        x.inputs.push({set: function (i) {
          input.value = i; out.textContent = c.values[i]; input.setAttribute("aria-valuetext", c.values[i]);
        }, disable: function (off) { input.disabled = off; div.classList.toggle("mlx-inert", off); }});
      }
    });
    if (spec.replay) {
      var rp = make("div", "mlx-control mlx-slider mlx-replay");
      var play = make("button", "mlx-play", "\u25b6 play"), lab3 = make("label", "", spec.replay.label);
      var fr = make("input"), fout = make("output");
      play.type = "button"; play.setAttribute("aria-pressed", "false");
      fr.type = "range"; fr.min = 0; fr.step = 1; fr.id = lab3.htmlFor = id + "-frame";
      fr.addEventListener("input", function () { stop(x); x.frame = +fr.value; show(x); });
      play.addEventListener("click", function () { x.timer ? stop(x) : start(x); });
      rp.appendChild(play); rp.appendChild(lab3); rp.appendChild(fr); rp.appendChild(fout);
      controls.appendChild(rp);
      x.play = play; x.frameInput = fr; x.frameOut = fout;
    }
    x.suptitle = make("p", "mlx-suptitle");
    x.panels = make("div", "mlx-panels");
    x.status = make("p", "mlx-status");
    x.status.setAttribute("role", "status");
    var fallback = root.querySelector(".mlx-fallback");
    if (fallback) fallback.remove();
    var note = root.querySelector(".mlx-note");
    // the message about a setting sits with the controls (which stick on a phone), just above
    // the picture it is about, not under the panels
    controls.appendChild(x.status);
    root.insertBefore(controls, note);
    root.insertBefore(x.suptitle, note);
    root.insertBefore(x.panels, note);
    root.classList.add("mlx-ready");
    x.controls = controls;
    fitSticky(x);
    if (spec.replay) x.frame = frameCount(x) - 1;
    sync(x); show(x);
    if (window.ResizeObserver) {
      var queued = false;
      new ResizeObserver(function () {
        if (queued) return;
        queued = true;
        requestAnimationFrame(function () { queued = false; fitSticky(x); show(x); });
      }).observe(x.panels);
    }
    live.push(x);
    return x;
  }

  // On a phone the controls stick above the panels while they scroll, unless they would cover
  // more than MAX_STICKY_SHARE of the screen: then they stay in place above the panels.
  var MAX_STICKY_SHARE = 0.3;
  function fitSticky(x) {
    x.controls.classList.remove("mlx-unstuck");
    if (getComputedStyle(x.controls).position !== "sticky") return;
    var tall = x.controls.getBoundingClientRect().height > MAX_STICKY_SHARE * window.innerHeight;
    x.controls.classList.toggle("mlx-unstuck", tall);
  }

  function runKey(x) { return x.idx.join(","); }
  function frameCount(x) { return x.spec.frames[runKey(x)] || 1; }
  function held(x, key) { return key in x.spec.states || key in x.spec.frames; }

  function choose(x, j, v) {  // control j moved to value v: that setting, or the nearest held one
    var want = x.idx.slice();
    want[j] = v;
    var status = "";
    if (!held(x, want.join(","))) {
      var best = null, score = -1;
      Object.keys(x.spec.frames).concat(Object.keys(x.spec.states)).forEach(function (k) {
        if (k.indexOf("/") >= 0) return;
        var ks = k.split(",").map(Number);
        if (ks[j] !== v) return;
        var s = ks.filter(function (u, m) { return u === want[m]; }).length;
        if (s > score) { score = s; best = ks; }
      });
      if (!best) { sync(x); return; }
      want = best;
      status = "That combination is not held in this page: the other controls moved to the " +
               "nearest one that is (the notebook computes any).";
    }
    x.idx = want;
    stop(x);
    if (x.spec.replay) x.frame = frameCount(x) - 1;  // the end of the new run, as the widget
    sync(x); show(x, status);
  }

  function sync(x) {
    var inert = (x.spec.inert || {})[runKey(x)] || [];
    x.inputs.forEach(function (inp, j) {
      if (!inp) return;
      inp.set(x.idx[j]);
      inp.disable(inert.indexOf(j) >= 0);  // changes nothing at this setting
    });
    if (x.spec.replay) {
      var n = frameCount(x);
      x.frameInput.max = n - 1; x.frameInput.value = x.frame;
      x.frameOut.textContent = (x.frame + 1) + " / " + n;
      x.frameInput.setAttribute("aria-valuetext", (x.frame + 1) + " of " + n);
    }
  }

  function show(x, status) {
    var key = runKey(x), st = x.spec.states[x.spec.replay && key in x.spec.frames ? key + "/" + x.frame : key];
    if (!st || st.error) {
      x.status.textContent = st ? "This setting fails: " + st.error : "This setting is not held here.";
      return;
    }
    x.status.textContent = status || "";
    x.suptitle.textContent = st.suptitle;
    x.suptitle.hidden = !st.suptitle;
    var figs = x.panels.children;
    st.panels.forEach(function (p, i) {
      var fig = figs[i];
      if (!fig) {
        fig = make("figure", "mlx-panel");
        fig.appendChild(make("figcaption", "mlx-ptitle"));
        var cv = make("canvas");
        cv.setAttribute("role", "img");
        fig.appendChild(cv);
        x.panels.appendChild(fig);
      }
      fig.firstChild.textContent = p.title;
      fig.classList.toggle("mlx-wide", !!p.wide);
      fig.lastChild.setAttribute("aria-label", (p.title || "panel " + (i + 1)) +
        (st.suptitle ? " (" + st.suptitle + ")" : ""));
      drawPanel(x, fig.lastChild, p);
    });
    x.root.setAttribute("data-mlx-state", x.spec.replay ? key + "/" + x.frame : key);
  }

  function start(x) {
    var n = frameCount(x);
    if (n < 2) return;
    if (x.frame >= n - 1) x.frame = -1;
    x.play.textContent = "\u275a\u275a pause"; x.play.setAttribute("aria-pressed", "true");
    x.timer = setInterval(function () {
      x.frame += 1; sync(x); show(x);
      if (x.frame >= n - 1) stop(x);
    }, 150);
  }

  function stop(x) {
    if (!x.timer) return;
    clearInterval(x.timer); x.timer = null;
    x.play.textContent = "\u25b6 play"; x.play.setAttribute("aria-pressed", "false");
  }

  // --- the page ---------------------------------------------------------------------------------
  function init(root) {
    if (root.getAttribute("data-mlx") === "loading" || root.classList.contains("mlx-ready")) return root._mlx;
    root.setAttribute("data-mlx", "loading");
    var data = root.querySelector("script.mlx-data");
    root._mlx = source(data).then(decode).then(function (spec) { return build(root, spec); })
      .catch(function (err) {
        var p = root.querySelector(".mlx-fallback") || root.appendChild(make("p", "mlx-fallback"));
        p.textContent = "This explorer could not start (" + err + "); the notebook has the live version.";
      });
    return root._mlx;
  }

  // after the first screen's formulas are typeset (book/_static/mlnotes-mathjax.js): an explorer
  // near a link's target started at the same time as them and held them back
  function afterMaths(f) {
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) mj.startup.promise.then(f, f); else f();
  }

  function initAll() {
    return Promise.all(pending.map(init)).then(function () { resolveReady(); });
  }

  function scan() {
    var found = Array.prototype.slice.call(document.querySelectorAll(".mlnotes-explorer"))
      .filter(function (r) { return pending.indexOf(r) < 0; });
    pending = pending.concat(found);
    if (!observer && window.IntersectionObserver) {
      observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) {
          if (e.isIntersecting) { observer.unobserve(e.target); afterMaths(function () { init(e.target); }); }
        });
      }, {rootMargin: "1200px 0px"});
    }
    found.forEach(function (r) { if (observer) observer.observe(r); else init(r); });
    // the rest once the page is idle (the first paint never waits for explorers), except those
    // whose data is in a file of its own: a reader who never reaches them never downloads it
    (window.requestIdleCallback || function (f) { return setTimeout(f, 1500); })(function () {
      pending.forEach(function (r) {
        var data = r.querySelector("script.mlx-data");
        if (!data || !data.hasAttribute("data-src")) init(r);
      });
    }, {timeout: 3000});
  }

  new MutationObserver(function () { live.forEach(function (x) { show(x); }); })
    .observe(document.documentElement, {attributes: true, attributeFilter: ["data-theme"]});
  window.addEventListener("beforeprint", function () { initAll(); });
  window.MLNotesExplorers = {scan: scan, initAll: initAll, ready: ready, live: live};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", scan);
  else scan();
})();
