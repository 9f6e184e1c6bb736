// Clientside callbacks: slider <-> number sync, URL state, copy link, exports, theme.
// They run in the browser, so dragging a slider costs no extra server round trip.
(function () {
  const nu = () => window.dash_clientside.no_update;
  const triggered = () => ((window.dash_clientside.callback_context.triggered || [])[0] || {}).prop_id || "";

  function syncLog(sliderValue, inputValue, low, high) {
    if (triggered().endsWith("-input.value")) {
      const n = Number(inputValue);
      if (!Number.isFinite(n) || n < 1) return [nu(), nu()];
      return [Math.min(Math.max(Math.log2(n), low), high), nu()];
    }
    if (sliderValue === null || sliderValue === undefined) return [nu(), nu()];
    return [nu(), Math.round(Math.pow(2, sliderValue))];
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    roofline: {
      syncBatch: (s, i) => syncLog(s, i, 0, 10),
      syncContext: (s, i) => syncLog(s, i, 7, 20),

      // Mirror every control in the query string with replaceState: dragging must not
      // flood the history, and the URL is always a link to the exact view.
      syncUrl: function (hw, model, batch, ctx, kvIndex, kvMarks, prec, kvprec, fa, tp, measured, bweff, fleff, step,
                         theme, present, flags) {
        const q = new URLSearchParams();
        if (hw && hw.length) q.set("hw", hw.join(","));
        if (model && model !== "custom") q.set("model", model);
        if (batch) q.set("batch", String(batch));
        if (ctx) q.set("ctx", String(ctx));
        const kv = kvMarks && kvMarks[String(kvIndex)];
        if (kv) q.set("kv", String(kv));
        q.set("prec", prec);
        q.set("kvprec", kvprec);
        q.set("fa", fa && fa.length ? "1" : "0");
        q.set("tp", String(tp || 1));
        if (measured && measured.length) q.set("roofs", "measured");
        if (bweff && bweff < 1) q.set("bweff", String(bweff));
        if (fleff && fleff < 1) q.set("fleff", String(fleff));
        if (step) q.set("step", String(step));
        q.set("lang", (flags && flags.lang) || "en");
        q.set("theme", theme && theme.length ? "dark" : "light");
        if (flags && flags.embed) q.set("embed", "1");
        if (present && present.length) q.set("present", "1");
        const url = window.location.pathname + "?" + q.toString();
        if (url !== window.location.pathname + window.location.search) window.history.replaceState(null, "", url);
        return url;
      },

      rootClass: function (theme, present, flags) {
        return ["app", theme && theme.length ? "theme-dark" : "theme-light",
                flags && flags.embed ? "embed" : "", present && present.length ? "present" : ""]
               .filter(Boolean).join(" ");
      },

      customPanel: (model) => model !== "custom",

      // A new language re-renders the page server-side in that language (state is in the URL).
      changeLang: function (lang, flags) {
        if (!flags || lang === flags.lang) return nu();
        const q = new URLSearchParams(window.location.search);
        q.set("lang", lang);
        window.location.search = q.toString();
        return nu();
      },

      copyLink: function (n, flags) {
        if (!n) return nu();
        const href = window.location.href;
        const done = flags && flags.lang === "zh" ? "链接已复制" : "Link copied";
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(href).catch(() => {});
        } else {
          const area = document.createElement("textarea");
          area.value = href;
          document.body.appendChild(area);
          area.select();
          try { document.execCommand("copy"); } catch (e) { /* the URL bar still has the link */ }
          area.remove();
        }
        return done;
      },

      exportImage: function (nPng, nSvg) {
        const format = triggered().startsWith("export-svg") ? "svg" : "png";
        const plot = document.querySelector("#roofline-graph .js-plotly-plot");
        if (plot && window.Plotly && (nPng || nSvg)) {
          window.Plotly.downloadImage(plot, {format: format, filename: "roofline", width: 1200, height: 750});
        }
        return nu();
      },
    },
  });
})();
