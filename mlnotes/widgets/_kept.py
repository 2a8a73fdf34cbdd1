"""The live explorer's figure: a picture widget that keeps, in the page, the pictures it showed.

A reader who moves a control back to a setting already seen gets its picture from the page at
once: the widget (an `anywidget <https://anywidget.dev>`_, whose JupyterLab extension comes in
its wheel) keeps every picture the kernel sent under the setting's key, the indices of the
explorer's controls (``"2,0,1"``; a replay adds its snapshot slider's value), and listens to the
control models in the page itself, so the moment a control moves to a kept setting it shows
that picture: no message to the kernel and back. The kernel is told of the move as usual (the
controls are plain ipywidgets) and, knowing which pictures the page keeps, sends none. A new
setting's picture still comes from the kernel, with its key; the page shows it and keeps it. A
picture of a run under way comes with the empty key: shown, never kept.

The page keeps at most ``kept`` pictures (first kept, first dropped), for all the widget's
views, and the kernel counts the same way, so both agree on what the page holds; a page opened
again keeps only the last picture and says so, and the kernel then sends again what it needs
(``on_lost``). ``epoch`` changes when the explorer's fixed parameters do (the same control
indices then mean other pictures): the page drops every kept picture.
"""

import collections
import functools
import typing
import uuid

from .._optional import import_optional

KEPT_PICTURES = 256  # pictures the page keeps (about 45 KB each), as the kernel's PNG cache

# The page's half. A key is the controls' indices joined by commas, as ``setting_key`` makes it.
ESM = """
const stores = new Map();  // the widget's uid -> what the page keeps of it (for all its views)

function keyOf(controls) {  // a selection's index, a slider's value
  return controls.map(c => c.get("index") ?? c.get("value")).join(",");
}

function newStore(model) {
  const store = { kept: new Map(), latest: null, last: [null, null], views: new Set() };
  const drop = url => setTimeout(() => URL.revokeObjectURL(url), 10000);  // (loads first)
  store.forget = () => { for (const url of store.kept.values()) drop(url); store.kept.clear(); };
  store.receive = () => {  // a picture from the kernel: kept under its key (unless ""), latest
    const key = model.get("key"), value = model.get("value");
    if (key === store.last[0] && value === store.last[1]) return false;  // another trait
    store.last = [key, value];
    if (!value || !value.byteLength) return false;
    const url = URL.createObjectURL(new Blob([value], { type: "image/png" }));
    if (store.latest && ![...store.kept.values()].includes(store.latest)) drop(store.latest);
    store.latest = url;
    const limit = model.get("kept");
    if (key !== "" && limit > 0) {
      if (store.kept.has(key)) drop(store.kept.get(key));
      store.kept.delete(key);
      store.kept.set(key, url);
      while (store.kept.size > limit) {
        const [first, firstUrl] = store.kept.entries().next().value;
        store.kept.delete(first);
        drop(firstUrl);
      }
    }
    return true;
  };
  return store;
}

function attach(model) {  // the page's store of this widget's pictures, fed by the kernel
  const uid = model.get("uid");
  const store = newStore(model);
  stores.set(uid, store);
  store.receive();
  const arrived = () => { if (store.receive()) for (const view of store.views) view(); };
  model.on("change", arrived);
  model.on("change:epoch", store.forget);
  model.on("change:kept", () => { if (model.get("kept") <= 0) store.forget(); });
  // what this page holds (a page opened again holds only the last picture)
  model.send({ event: "page", kept: [...store.kept.keys()] });
  return store;
}

export default {
  initialize({ model }) {
    const uid = model.get("uid");
    attach(model);
    return () => { stores.get(uid)?.forget(); stores.delete(uid); };
  },

  async render({ model, el }) {
    const store = stores.get(model.get("uid")) ?? attach(model);
    const img = document.createElement("img");
    img.className = "widget-image mlnotes-kept-figure";
    el.appendChild(img);
    const show = url => { if (url && img.getAttribute("src") !== url) img.src = url; };
    show(store.latest);
    const ids = model.get("controls");
    const controls = await Promise.all(ids.map(id => model.widget_manager.get_model(id)));
    const current = () => store.kept.get(keyOf(controls));
    const moved = () => {  // a control moved in the page: a kept picture at once
      const url = current();
      show(url);
      el.classList.toggle("mlnotes-pending", !url);
    };
    const arrived = () => {  // the kernel's picture; the one the controls say goes first
      show(current() ?? store.latest);
      el.classList.remove("mlnotes-pending");
    };
    arrived();
    store.views.add(arrived);
    const events = ["change:index", "change:value"];
    for (const c of controls) for (const e of events) c.on(e, moved);
    return () => {
      store.views.delete(arrived);
      for (const c of controls) for (const e of events) c.off(e, moved);
    };
  },
};
"""

CSS = """
.mlnotes-kept-figure { display: block; }
.mlnotes-pending .mlnotes-kept-figure { opacity: 0.8; }
"""


def setting_key(controls: typing.Mapping[str, typing.Any],
                params: typing.Mapping[str, typing.Any]) -> str:
    """The key the page gives the setting ``params`` of ``controls`` (``{name: ipywidgets
    selection}``): each control's index of its value, joined by commas ('' if a value is not
    among a control's options: never kept)."""
    indices = []
    for name, control in controls.items():
        values = [o[1] if isinstance(o, tuple) else o for o in control.options]
        if params[name] not in values:
            return ""
        indices.append(str(values.index(params[name])))
    return ",".join(indices)


@functools.cache
def kept_figure_class() -> type:
    """The widget class (built on first use: anywidget is imported only for a live explorer)."""
    anywidget = import_optional("anywidget", purpose="The live explorer")
    traitlets = import_optional("traitlets", purpose="The live explorer")

    base: typing.Any = anywidget.AnyWidget

    class KeptFigure(base):
        """A PNG picture that the page keeps per setting of the sibling ``controls``.

        Set pictures with :meth:`put`; ``value`` is the last one sent."""

        _esm = ESM
        _css = CSS
        value = traitlets.Bytes(b"").tag(sync=True)
        key = traitlets.Unicode("").tag(sync=True)
        controls = traitlets.List(traitlets.Unicode()).tag(sync=True)
        epoch = traitlets.Int(0).tag(sync=True)
        kept = traitlets.Int(KEPT_PICTURES).tag(sync=True)
        uid = traitlets.Unicode("").tag(sync=True)  # names the page's store of its pictures

        def __init__(self, **kwargs: typing.Any) -> None:
            kwargs.setdefault("uid", uuid.uuid4().hex)
            super().__init__(**kwargs)
            self.on_lost: typing.Callable[[], None] | None = None
            # what the page keeps: key -> PNG, first kept first (as the page drops them)
            self._in_page: collections.OrderedDict = collections.OrderedDict()
            self._fixed: object = None
            self._current: tuple[bytes, str] | None = None  # the last picture put, sent or not
            self.on_msg(self._on_page_message)
            self.observe(self._on_kept, names="kept")

        def put(self, png: bytes, key: str, fixed: object = None) -> bool:
            """Show ``png``, the picture of the setting ``key`` ('' for a picture that is not
            a setting's, such as a run under way), drawn with the fixed parameters ``fixed``
            (None: the same as the last picture's).
            Sends it only if the page does not keep it; returns whether it was sent."""
            self._current = (png, key)
            if fixed is not None and fixed != self._fixed:
                self._fixed = fixed
                self._in_page.clear()
                self.epoch += 1
            if key and key in self._in_page:
                return False  # the page shows it already, from its own controls
            if key != self.key or png != bytes(self.value):
                with self.hold_sync():
                    self.key = key
                    self.value = png
            else:  # the same picture and key: sent again all the same (a new view lacks it)
                self.send_state(["key", "value"])
            if key and self.kept > 0:
                self._in_page.pop(key, None)
                self._in_page[key] = png
                while len(self._in_page) > self.kept:
                    self._in_page.popitem(last=False)
            return True

        def keeps(self, key: str) -> bool:
            """Whether the page keeps the picture of the setting ``key``."""
            return key in self._in_page

        def picture(self, key: str) -> bytes | None:
            """The picture the page keeps for the setting ``key`` (None if it keeps none)."""
            return self._in_page.get(key)

        def _on_page_message(self, _widget: typing.Any, content: typing.Any,
                             _buffers: typing.Any) -> None:
            if not (isinstance(content, dict) and content.get("event") == "page"):
                return
            # a page's store of this widget was made (the page opened, or opened again): it
            # holds the pictures ``kept`` and no other
            held = set(content.get("kept") or ())
            lost = [key for key in self._in_page if key not in held]
            for key in lost:
                del self._in_page[key]
            if not lost:
                return
            if self.on_lost is not None:
                self.on_lost()
            elif self._current is not None:
                self.put(*self._current)

        def _on_kept(self, change: typing.Any) -> None:
            if change["new"] <= 0:
                self._in_page.clear()

    return KeptFigure
