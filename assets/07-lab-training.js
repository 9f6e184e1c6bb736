// Training lab (app/dashboard/lab_training.py): the address bar follows the controls with
// history.replaceState, so a copied link or a reload shows the same run. The parameter names
// are the ones lab_training.PARAMS parses; nothing is computed here.
(function () {
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    train: {
      syncUrl: function (hw, model, n, layers, heads, hdim, gpus, seq, tokens, measure, measured, opt, zero,
                         recompute, dtype, busbw, mb, flags) {
        flags = flags || {};
        const q = new URLSearchParams();
        const add = function (name, value) {
          if (value !== null && value !== undefined && value !== "") q.set(name, String(value));
        };
        add("tab", "training");
        add("hw", hw);
        add("model", model);
        if (model === "teaching") {
          add("n", n);
          add("layers", layers);
          add("heads", heads);
          add("hdim", hdim);
        }
        add("gpus", gpus);
        add("seq", seq);
        add("tokens", tokens);
        add(measure === "rate" ? "tok_s" : "step", measured);
        add("opt", opt);
        add("zero", zero);
        add("recompute", recompute);
        add("dtype", dtype);
        add("busbw", busbw);
        add("mb", mb);
        add("lang", flags.lang || "en");
        add("theme", flags.theme || "light");
        if (flags.embed) add("embed", "1");
        if (flags.present) add("present", "1");
        const url = window.location.pathname + "?" + q.toString();
        if (url !== window.location.pathname + window.location.search) window.history.replaceState(null, "", url);
        return url;
      },
    },
  });
})();
