// Serving page (tab=serving): PNG and SVG of the throughput chart. The figure's title carries
// the scenario, the calibration used and the measured data's source, so the image does too.
(function () {
  const nu = () => window.dash_clientside.no_update;
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    serving: {
      exportImage: function (nPng, nSvg) {
        const fired = (window.dash_clientside.callback_context.triggered || []).map((t) => t.prop_id);
        const format = fired.some((id) => id.startsWith("srv-export-svg")) ? "svg" : "png";
        const plot = document.querySelector("#srv-throughput .js-plotly-plot");
        if (plot && window.Plotly && (nPng || nSvg)) {
          const name = new URLSearchParams(window.location.search);
          const file = ["serving", (name.get("model") || "").replace(/[^A-Za-z0-9.-]+/g, "_"), name.get("hw") || "",
            "c" + (name.get("conc") || "")].filter(Boolean).join("-");
          window.Plotly.downloadImage(plot, {format: format, filename: file, width: 1400, height: 850});
        }
        return nu();
      },
    },
  });
})();
