// The CJK web font (01-variables.css, font-display: swap) can arrive after Plotly has laid a
// chart out in a fallback font, whose glyphs are wider or narrower: the chart's automatic
// margins were measured on those, and an axis title can then sit on its tick labels. When the
// page's fonts finish loading, each drawn chart is laid out again (Plotly.Plots.resize measures
// the margins anew; its data and view stay as they are).
(function () {
  "use strict";
  if (!document.fonts || !document.fonts.addEventListener) return;
  function relayoutDrawn() {
    if (!window.Plotly) return;
    document.querySelectorAll(".js-plotly-plot").forEach(function (gd) {
      if (!gd.offsetParent || !gd._fullLayout) return; // hidden, or not drawn yet: it draws in the loaded font
      var done = window.Plotly.Plots.resize(gd);
      if (done && done.catch) done.catch(function () {}); // a chart replaced meanwhile: nothing to redo
    });
  }
  document.fonts.addEventListener("loadingdone", relayoutDrawn);
})();
