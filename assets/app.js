// Clientside callbacks (declared in app/dashboard/pages/roofline/clientside.py): slider <-> box sync with
// validation (the chart's live moves: 03-live-path.js), a figure drawn at a stale stop,
// the accelerator limit, the theme class and image exports (the header: 02-chrome.js; the
// address bar: 04-url.js). Numbers come from the server; nothing here computes one.
(function () {
  const live = window.llmRooflineLive;
  const nu = () => window.dash_clientside.no_update;
  const triggeredIds = () => ((window.dash_clientside.callback_context || {}).triggered || [])
    .map((t) => t.prop_id || "");

  function markInvalid(boxId, errorId, invalid) {
    const box = document.getElementById(boxId);
    if (!box) return;
    box.setAttribute("aria-invalid", invalid ? "true" : "false");
    box.setAttribute("aria-describedby", errorId);
  }

  function message(flags, key, value, typed) {
    const text = ((flags && flags.messages) || {})[key] || key;
    return text.replace("{v}", String(value)).replace(/\{n\}/g, String(value))
      .replace("{typed}", String(typed === undefined ? "" : typed));
  }

  // A box's error cleared by a valid value: true when there was one to clear (an output only then).
  function clearError(d) {
    const box = document.getElementById(d.box);
    if (!box || box.getAttribute("aria-invalid") !== "true") return false;
    markInvalid(d.box, d.error, false);
    return true;
  }

  // roofline-llama-3-8b-h100-sxm5+h200-sxm-b32-t4096-prec-fp8: a downloaded image names its
  // scenario by every non-default part, the name the server writes for its own downloads
  // (state.export_name, handed over with the link as a template that url.sync fills in).
  function exportName() {
    if (window.llmRooflineExportName) return window.llmRooflineExportName;
    const q = new URLSearchParams(window.location.search);
    const hw = (q.get("hw") || "none").split(",").join("+");
    return ["roofline", q.get("model") || "custom", hw, "b" + q.get("batch"), "t" + q.get("ctx")].join("-");
  }
  window.llmRoofline = {exportName: exportName};

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    roofline: {
      // Slider moved: the box shows its power of two (the chart moved already: 03-live-path.js).
      // Box typed: a whole number in range moves the slider (between stops if need be) and the
      // chart; anything else is flagged, and the last valid value stays computed (the message
      // says which). Only what changed is an output: every output is a pass of Dash's renderer.
      syncSizes: function (bSlider, bBox, cSlider, cBox, stored, grid, flags) {
        const ids = triggeredIds();
        const values = {"batch-size": bSlider, "batch-size-input": bBox, "context-length": cSlider,
                        "context-length-input": cBox};
        const out = [nu(), nu(), nu(), nu(), nu(), nu()];
        const sizes = live.currentSizes(stored);
        const next = Object.assign({}, sizes);
        live.SIZES.forEach(function (d, k) {
          const sliderOut = 2 * k, boxOut = 2 * k + 1, errorOut = 4 + k;
          if (ids.indexOf(d.slider + ".value") >= 0) {
            const v = values[d.slider];
            if (typeof v !== "number" || !Number.isFinite(v)) return;
            next[d.key] = Math.round(Math.pow(2, Math.round(v)));
            out[boxOut] = String(next[d.key]);
            if (clearError(d)) out[errorOut] = "";
          } else if (ids.indexOf(d.box + ".value") >= 0) {
            const text = String(values[d.box] === null || values[d.box] === undefined ? "" : values[d.box]).trim();
            const n = /^[0-9]{1,9}$/.test(text) ? Number(text) : NaN;
            if (n >= 1 && n <= (((flags || {}).limits || {})[d.key] || 0)) {
              next[d.key] = n;
              out[sliderOut] = Math.min(Math.max(Math.log2(n), d.lo), d.hi);
              out[boxOut] = String(n);
              if (clearError(d)) out[errorOut] = "";
            } else {
              out[errorOut] = message(flags, d.message, sizes[d.key], text);
              markInvalid(d.box, d.error, true);
            }
          }
        });
        // a typed value, or a slider step the thumb's observer did not see
        if (next.batch !== sizes.batch || next.ctx !== sizes.ctx) live.stepTo(next, grid);
        return out;
      },

      // A new grid (after a structural change) came with a figure drawn where the sliders were
      // when it was asked for: if they have moved since, draw where they are now (a new figure
      // for dcc.Graph, which is drawing the server's at this moment).
      drawStop: function (grid, stored, figure) {
        const sizes = live.currentSizes(stored);
        const stop = live.gridStop(sizes, grid);
        if (!stop || !figure || !figure.data) return nu();
        const meta = (figure.layout || {}).meta || {};
        if (meta.stop && meta.stop[0] === sizes.batch && meta.stop[1] === sizes.ctx) return nu();
        const data = figure.data.map(function (trace) {
          const update = stop.update(trace.uid, trace);
          return update ? Object.assign({}, trace, update, update.marker ?
            {marker: Object.assign({}, trace.marker, update.marker)} : {}) : trace;
        });
        const layout = Object.assign({}, figure.layout, {meta: Object.assign({}, meta, {stop: [sizes.batch, sizes.ctx]})});
        live.showScenario(stop);
        return Object.assign({}, figure, {data: data, layout: layout});
      },

      // At most 8 accelerators (the figure's palette and legend hold 8): "Select all" keeps the
      // first 8, and once 8 are chosen the others are offered disabled.
      limitHardware: function (value, options, whatIf, flags) {
        const LIMIT = 8 - (whatIf || []).length;  // what-if cards count against the same limit
        let kept = value || [], notice = "";
        if (kept.length > LIMIT) {
          kept = kept.slice(0, LIMIT);
          notice = message(flags, "hardware_limit", LIMIT);
        }
        const full = kept.length >= LIMIT;
        const opts = (options || []).map(function (o) {
          return Object.assign({}, o, {disabled: full && kept.indexOf(o.value) < 0});
        });
        return [kept.length === (value || []).length ? nu() : kept, opts, notice];
      },

      rootClass: function (theme, present, flags) {
        return ["app", theme && theme.length ? "theme-dark" : "theme-light", flags && flags.embed ? "embed" : "",
                flags && flags.embed && flags.controls === false ? "no-controls" : "",
                present && present.length ? "present" : ""]
               .filter(Boolean).join(" ");
      },

      customPanel: (model) => model !== "custom",

      unticked: (value) => !(value && value.length),

      exportImage: function (nPng, nSvg, stored, grid) {
        const format = triggeredIds().some((id) => id.startsWith("export-svg")) ? "svg" : "png";
        const plot = document.querySelector("#roofline-graph .js-plotly-plot");
        if (plot && window.Plotly && (nPng || nSvg)) {
          // the symbol key is HTML on the page: the image carries it in its legend, wrapped on
          // the server for this size (pages/roofline/symbol_key.py, `meta.export`)
          const patch = Object.assign({}, ((plot.layout || {}).meta || {}).export || {});
          // the title at the stop the sliders moved to (the server's names the stop it drew)
          const stop = live.gridStop(live.currentSizes(stored), grid);
          if (patch.title && stop && stop.subtitle) patch.title = Object.assign({}, patch.title, {text: stop.subtitle});
          const figure = {data: plot.data, layout: Object.assign({}, plot.layout, patch)};
          // with the CJK glyphs in the file (02-export.js): a machine without a CJK font draws them too
          window.llmExport.download(figure, {format: format, filename: exportName(), width: 1200, height: 750});
        }
        return nu();
      },
    },
  });

  // Slider handles announce the value a person reads (batch 64, 8 KV heads), not the log2 or
  // divisor index the slider moves on, and carry the field's name.
  function describeThumbs() {
    [["batch-size", "batch-size-input"], ["context-length", "context-length-input"], ["kv-heads", null]]
      .forEach(function ([sliderId, boxId]) {
        const slider = document.getElementById(sliderId);
        const thumb = slider && slider.querySelector("[role=slider]");
        if (!thumb) return;
        let text;
        if (boxId) {
          const box = document.getElementById(boxId);
          text = box ? box.value : "";
        } else {
          const marks = Array.from(slider.querySelectorAll(".dash-slider-mark")).map((m) => m.textContent);
          text = marks[Number(thumb.getAttribute("aria-valuenow"))] || "";
        }
        if (text && thumb.getAttribute("aria-valuetext") !== text) thumb.setAttribute("aria-valuetext", text);
        const label = slider.closest(".field") && slider.closest(".field").querySelector(".field-label");
        if (label && !thumb.getAttribute("aria-label")) thumb.setAttribute("aria-label", label.textContent);
      });
    // sliders whose stops the server wrote out in words (the planner's targets: "30 ms")
    document.querySelectorAll("[data-stop-labels]").forEach(function (holder) {
      const thumb = holder.querySelector("[role=slider]");
      if (!thumb) return;
      const at = Number(thumb.getAttribute("aria-valuenow"));
      // between stops (a typed 22 ms): the box beside it holds the value
      const box = holder.parentElement && holder.parentElement.querySelector("input");
      const typed = box && box.value ? box.value + " ms" : "";
      const text = Number.isInteger(at) ? holder.dataset.stopLabels.split("|")[at] || "" : typed;
      if (text && thumb.getAttribute("aria-valuetext") !== text) thumb.setAttribute("aria-valuetext", text);
      const name = holder.getAttribute("aria-label");
      if (name && !thumb.getAttribute("aria-label")) thumb.setAttribute("aria-label", name);
    });
  }
  new MutationObserver(describeThumbs).observe(document.documentElement, {
    subtree: true, attributes: true, attributeFilter: ["aria-valuenow", "value"], childList: true,
  });

  // Back and Forward after a model or accelerator change: the URL is the state, so show it.
  window.addEventListener("popstate", function () { window.location.reload(); });
})();
