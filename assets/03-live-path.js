// The roofline's live path (README "The live path"): a batch or context slider step moves the
// chart from the slider grid the server sent with the figure, with no server round trip, and
// once the sliders rest (250 ms) hands their values to the server. Numbers come from the grid;
// nothing here computes one. Used by app.js (the page's clientside callbacks).
//
// A step starts from the slider's thumb: React writes its aria-valuenow while it handles the
// key or the drag, and an observer moves the chart in that same task. Dash's callback for the
// slider (app.js syncSizes) runs a task or more later and only fills the box beside it; moving
// the chart from it made every step wait for Dash's renderer to schedule a callback over the
// whole page (scripts/bench_dashboard.py, "key -> callback").
(function () {
  // The two log2 sliders and their boxes; the slider spans come from their marks, the boxes'
  // limits from the server (view-flags `limits`: the engine's, through the parameter table).
  const SIZES = [
    {key: "batch", slider: "batch-size", box: "batch-size-input", error: "batch-error", lo: 0, hi: 10,
     message: "batch_invalid"},
    {key: "ctx", slider: "context-length", box: "context-length-input", error: "context-error", lo: 7, hi: 20,
     message: "context_invalid"},
  ];

  // A store's data as Dash holds it now (the grid, the resting sizes): read when a step needs it.
  function stored(id) {
    const api = window.dash_component_api;
    const layout = api && api.getLayout ? api.getLayout(id) : null;
    return layout && layout.props ? layout.props.data : null;
  }

  // The sliders' values as of the last step: the `sizes` store follows once they rest.
  function currentSizes(fallback) {
    const v = window.dashLinkValues;
    if (v && typeof v === "object" && "batch" in v && "ctx" in v) return v;
    return fallback || stored("sizes");
  }

  // Traces the grid does not carry but which move with the sliders (the serving estimate,
  // app/dashboard/pages/serving/roofline_estimate.py) are drawn by the server for one stop, named
  // in their `meta.stop` ([batch, context]). At any other stop they are hidden (no point, no
  // hover), never left where that stop put them, until the server's rest answer draws them
  // (callbacks.py update_roofline); back at their stop, they show what the server drew there.
  const drawnAtStop = {};  // uid -> {stop, x, y}: a hidden trace's values, as the server drew them
  function atItsStop(trace, sizes) {
    const stop = trace.meta.stop;
    const hidden = Array.isArray(trace.x) && trace.x.length === 1 && trace.x[0] === null;
    if (!hidden) drawnAtStop[trace.uid] = {stop: stop, x: trace.x, y: trace.y};
    if (stop[0] !== sizes.batch || stop[1] !== sizes.ctx) return hidden ? null : {x: [null], y: [null]};
    const kept = drawnAtStop[trace.uid];
    if (!hidden || !kept || kept.stop[0] !== stop[0] || kept.stop[1] !== stop[1]) return null;
    return {x: kept.x, y: kept.y};
  }

  // The grid's values at the sliders' stop: update(uid) gives a trace's new x, y (and hover
  // values), or null for a trace that does not move. null when the stop is not on the grid.
  function gridStop(sizes, grid) {
    if (!sizes || !grid || !grid.stops) return null;
    const bi = grid.batches.indexOf(sizes.batch), ci = grid.contexts.indexOf(sizes.ctx);
    if (bi < 0 || ci < 0) return null;
    const at = bi * grid.contexts.length + ci;
    const values = grid.stops[at];
    const byUid = {};
    grid.uids.forEach(function (uid, k) { byUid[uid] = values[k]; });
    return {
      context: ci,
      scenario: (grid.scenarios || [])[at],  // the scenario line's text
      subtitle: (grid.subtitles || [])[at],  // the same, as an export's title
      update: function (uid, trace) {
        if (trace && (trace.meta || {}).stop) return atItsStop(trace, sizes);
        const point = byUid[uid];
        if (point) {
          // solid where the scenario fits in memory, hollow where it does not (figures.marker_style)
          const color = (trace.meta || {}).color || (trace.marker || {}).color;
          const marker = point[3] ? {color: color, line: {color: "#ffffff", width: 1}}
                                  : {color: "rgba(0,0,0,0)", line: {color: color, width: 2}};
          // one point, or a group's points (an accelerator's elementwise ops: marks.drawn_as)
          if (Array.isArray(point[0])) return {x: point[0], y: point[1], customdata: point[2], marker: marker};
          return {x: [point[0]], y: [point[1]], customdata: [point[2]], marker: marker};
        }
        const path = grid.trajectories[uid];
        if (path) {
          const xy = path[ci] || [[], []];
          return {x: xy[0], y: xy[1]};
        }
        return null;
      },
    };
  }

  // The scenario line over the chart (HTML, app/dashboard/pages/roofline/layout.py): its text
  // node is React's, so its value is set in place.
  function showScenario(stop) {
    const line = document.getElementById("roofline-scenario");
    if (!line || typeof stop.scenario !== "string") return;
    const node = line.firstChild;
    if (node && node.nodeType === 3 && !node.nextSibling) node.nodeValue = stop.scenario;
    else line.textContent = stop.scenario;
  }

  // Update the drawn chart in place: only the traces that move, with no new figure through
  // React and dcc.Graph. Plotly.animate without a transition or redraw re-plots just those
  // traces (Plotly.restyle or react would redraw all of them). Nothing else of the figure
  // changes: a relayout, even of the title, makes dcc.Graph copy the layout back into its
  // figure and re-plot every trace. A trajectory moves with the context only, so a batch step
  // leaves it (`from`: the stop drawn before). The caller moves only when the sliders changed:
  // no "already there" check here (Plotly.animate swaps gd.layout for a copy of the figure's,
  // so a marker left in gd.layout would lie).
  function moveToStop(sizes, grid, from) {
    const stop = gridStop(sizes, grid);
    if (!stop) return;
    showScenario(stop);
    const gd = document.querySelector("#roofline-graph .js-plotly-plot");
    if (!gd || !gd.data || !gd.layout || !window.Plotly) return;
    const sameContext = from && from.ctx === sizes.ctx;
    const traces = [], data = [];
    gd.data.forEach(function (trace, i) {
      if (sameContext && grid.trajectories[trace.uid]) return;
      const update = stop.update(trace.uid, trace);
      if (!update) return;
      traces.push(i);
      data.push(update);
    });
    if (!traces.length) return;
    window.Plotly.animate(gd, {data: data, traces: traces},
                          {transition: {duration: 0}, frame: {duration: 0, redraw: false}, mode: "immediate"});
  }

  // Hand batch and context to the server (panels, off-grid figures) once they rest for 250 ms:
  // dragging costs no server work and no panel re-render.
  let settleTimer = null, lastSettled = null;
  function settleLater(sizes) {
    lastSettled = lastSettled || stored("settled");
    clearTimeout(settleTimer);
    settleTimer = setTimeout(function () {
      if (lastSettled && lastSettled.batch === sizes.batch && lastSettled.ctx === sizes.ctx) return;
      lastSettled = sizes;
      window.dash_clientside.set_props("sizes", {data: sizes});
      window.dash_clientside.set_props("settled", {data: sizes});
    }, 250);
  }

  // The sliders' new values: the chart and the scenario line now; the address bar and the
  // settle timer after this task (they are not what the user waits to see).
  function stepTo(next, grid) {
    const from = currentSizes();
    window.dashLinkValues = next;  // the link's slots (04-url.js), as of this step
    moveToStop(next, grid || stored("grid"), from);
    setTimeout(function () {
      if (window.dashUrl) window.dashUrl.moved(next);
      settleLater(next);
    }, 0);
  }

  // A thumb at a whole power of two (a stop): step there. A typed value between stops puts the
  // thumb between them: syncSizes hands that one to the server.
  function onThumb(thumb) {
    const d = SIZES.find(function (s) { return thumb.closest("#" + s.slider); });
    if (!d) return;
    const v = Number(thumb.getAttribute("aria-valuenow"));
    if (!Number.isInteger(v)) return;
    const sizes = currentSizes();
    const size = Math.pow(2, v);
    if (!sizes || sizes[d.key] === size) return;
    window.llmRooflineLive.stepTo(Object.assign({}, sizes, {[d.key]: size}));  // as exported (a benchmark wraps it)
  }

  new MutationObserver(function (records) {
    records.forEach(function (r) {
      if (r.target.getAttribute && r.target.getAttribute("role") === "slider") onThumb(r.target);
    });
  }).observe(document.documentElement, {subtree: true, attributes: true, attributeFilter: ["aria-valuenow"]});

  window.llmRooflineLive = {SIZES: SIZES, currentSizes: currentSizes, gridStop: gridStop, showScenario: showScenario,
                            stepTo: stepTo};
})();
