// Serving page (tab=serving): PNG and SVG of the throughput chart. The page shows the scenario,
// the calibration used and the measured data's source above the chart; the image carries them
// as its title, wrapped for its size on the server (`layout.meta.export`, exports.export_title).
// Every file of the page has one stem, the server's (state.export_name): the chart's camera
// button holds it from the first render, and 04-url.js keeps it current with the link
// (window.llmRooflineExportName) once a control moves.
(function () {
  const nu = () => window.dash_clientside.no_update;
  function stem() {
    if (window.llmRooflineExportName) return window.llmRooflineExportName;
    const gd = document.querySelector("#srv-throughput .js-plotly-plot");
    const first = gd && gd._context && gd._context.toImageButtonOptions;
    return (first && first.filename) || "serving";
  }

  // the charts' own camera buttons name their files after the scenario too
  function nameCameras() {
    [["#srv-throughput", ""], ["#srv-latency", "-latency"]].forEach(function (pair) {
      const gd = document.querySelector(pair[0] + " .js-plotly-plot");
      if (gd && gd._context && gd._context.toImageButtonOptions) {
        gd._context.toImageButtonOptions.filename = stem() + pair[1];
      }
    });
  }

  // A refused box's digits read in the danger colour, as the roofline's do (03-controls.css:
  // aria-invalid). The page's boxes have no min or max (a browser would send what is outside
  // them as no value, which the page could not quote), so the browser never marks them itself:
  // the server names each refused box on its sentence (data-box), and every other box is valid.
  function markRefused(sentences) {
    const refused = new Set([].concat(sentences || []).map((p) => ((p && p.props) || {})["data-box"]));
    document.querySelectorAll("input[type=number][id^='srv-']").forEach(function (box) {
      const invalid = refused.has(box.id);
      box.setAttribute("aria-invalid", invalid ? "true" : "false");
      if (invalid) box.setAttribute("aria-describedby", "srv-error");
      else box.removeAttribute("aria-describedby");
    });
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    serving: {
      exportImage: function (nPng, nSvg) {
        const fired = (window.dash_clientside.callback_context.triggered || []).map((t) => t.prop_id);
        const format = fired.some((id) => id.startsWith("srv-export-svg")) ? "svg" : "png";
        const plot = document.querySelector("#srv-throughput .js-plotly-plot");
        if (plot && window.Plotly && (nPng || nSvg)) {
          const patch = ((plot.layout || {}).meta || {}).export || {};
          const figure = {data: plot.data, layout: Object.assign({}, plot.layout, patch)};
          window.Plotly.downloadImage(figure, {format: format, filename: stem(), width: 1400, height: 850});
        }
        return nu();
      },
      markRefused: function (sentences) {
        markRefused(sentences);
        return nu();
      },
      nameCameras: function () {
        setTimeout(nameCameras, 0); // after 04-url.js has read the link's stem
        return nu();
      },
    },
  });
})();
