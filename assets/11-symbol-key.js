// The roofline's own camera button downloads the same image as the header's PNG button: the
// figure at 1200 x 750 with the symbol key in its legend (on the page the key is HTML under the
// chart, app/dashboard/pages/roofline/symbol_key.py), so every downloaded image explains its
// marks. A capturing listener takes the click before Plotly's own handler.
(function () {
  document.addEventListener("click", function (event) {
    const target = event.target && event.target.closest ? event.target : null;
    const button = target && target.closest("#roofline-graph .modebar-btn[data-title^='Download plot']");
    const png = document.getElementById("export-png");
    if (!button || !png) return;
    event.preventDefault();
    event.stopPropagation();
    png.click();
  }, true);
})();
