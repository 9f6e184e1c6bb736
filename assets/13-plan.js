// Planner page (tab=plan): the prices typed per accelerator gathered into one store, PNG and SVG
// of the frontier chart (the question, targets, calibration and source as the image's title,
// wrapped on the server: `layout.meta.export`), the charts' camera buttons named after the
// question (state.export_name, kept current by 04-url.js), and Copy commands on each row of the
// top N. Numbers come from the server; nothing here computes one.
(function () {
  const nu = () => window.dash_clientside.no_update;

  function stem() {
    if (window.llmRooflineExportName) return window.llmRooflineExportName;
    const gd = document.querySelector("#plan-frontier .js-plotly-plot");
    const first = gd && gd._context && gd._context.toImageButtonOptions;
    return (first && first.filename) || "plan";
  }

  function nameCameras() {
    [["#plan-frontier", ""], ["#plan-compare", "-compare"]].forEach(function (pair) {
      const gd = document.querySelector(pair[0] + " .js-plotly-plot");
      if (gd && gd._context && gd._context.toImageButtonOptions) {
        gd._context.toImageButtonOptions.filename = stem() + pair[1];
      }
    });
  }

  // Copy a row's launch commands (the button's data-copy); where the clipboard is blocked, the
  // row's commands are shown and selected for a copy by hand, and the page says so.
  function copyCommands(button) {
    const panel = document.getElementById("plan-top-panel");
    const status = document.getElementById("plan-copy-commands-status");
    const say = function (key) {
      if (status && panel) status.textContent = panel.dataset[key] || "";
      setTimeout(function () { if (status) status.textContent = ""; }, 4000);
    };
    const byHand = function () {
      const details = button.closest(".plan-launch") && button.closest(".plan-launch").querySelector("details");
      const pre = details && details.querySelector("pre");
      if (details) details.open = true;
      if (pre) {
        const range = document.createRange();
        range.selectNodeContents(pre);
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
      }
      say("blocked");
    };
    const text = button.dataset.copy || "";
    if (!(navigator.clipboard && window.isSecureContext)) return byHand();
    navigator.clipboard.writeText(text).then(function () { say("copied"); }, byHand);
  }

  document.addEventListener("click", function (event) {
    const button = event.target && event.target.closest && event.target.closest(".plan-copy");
    if (button) copyCommands(button);
  });

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    plan: {
      // {accelerator id: USD per GPU-hour} of the boxes holding a price; unchanged: no update
      gatherPrices: function (values, ids, current) {
        const prices = {};
        (ids || []).forEach(function (id, i) {
          const v = (values || [])[i];
          if (typeof v === "number" && Number.isFinite(v) && v > 0) prices[id.hw] = v;
        });
        return JSON.stringify(prices) === JSON.stringify(current || {}) ? nu() : prices;
      },
      exportImage: function (nPng, nSvg) {
        const fired = (window.dash_clientside.callback_context.triggered || []).map((t) => t.prop_id);
        const format = fired.some((id) => id.startsWith("plan-export-svg")) ? "svg" : "png";
        const plot = document.querySelector("#plan-frontier .js-plotly-plot");
        if (plot && window.Plotly && (nPng || nSvg)) {
          const patch = ((plot.layout || {}).meta || {}).export || {};
          const figure = {data: plot.data, layout: Object.assign({}, plot.layout, patch)};
          window.Plotly.downloadImage(figure, {format: format, filename: stem(), width: 1400, height: 850});
        }
        return nu();
      },
      nameCameras: function () {
        setTimeout(nameCameras, 0); // after 04-url.js has read the link's stem
        return nu();
      },
    },
  });
})();
