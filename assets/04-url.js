// The address bar, for every page: the server hands over the canonical link of the view
// (`link.template`, written from the page's parameter table) with a `{name}` slot for each
// parameter the browser moves itself (the roofline's sliders); this fills those slots from
// `values`, writes the address bar, and points the tabs at the links the server gave them
// (what every tab shares travels). No parameter is encoded here.
(function () {
  const nu = () => window.dash_clientside.no_update;

  function fill(template, values) {
    return String(template || "").replace(/\{([a-z_]+)\}/g, function (slot, name) {
      const v = (values || {})[name];
      return v === undefined || v === null ? slot : encodeURIComponent(String(v));
    });
  }

  function pointTabs(tabs, values) {
    Object.keys(tabs || {}).forEach(function (tab) {
      const a = document.getElementById("tab-" + tab);
      if (a) a.setAttribute("href", fill(tabs[tab], values));
    });
  }

  // The address bar, the tabs and the export name for `link` with `values` in its slots; a
  // history entry when `push` (a discrete change), else the entry is replaced.
  function write(link, values, push) {
    pointTabs(link.tabs, values);
    // the scenario's file name for the image exports, its slider slots filled (state.export_name)
    if (typeof link.export === "string") window.llmRooflineExportName = fill(link.export, values);
    const query = fill(link.template, values);
    const url = window.location.pathname + "?" + query;
    // in a wiki iframe the embedding stays in the address; "Open full view" leaves it out
    const embed = new URLSearchParams(window.location.search);
    const keep = ["embed", "controls"].filter((k) => embed.has(k)).map((k) => k + "=" + embed.get(k));
    const shown = keep.length ? url + "&" + keep.join("&") : url;
    const full = document.getElementById("open-full");
    if (full) full.href = url;
    if (shown === window.location.pathname + window.location.search) return null;
    // a new link for a discrete change (a model, an accelerator) is a history entry, so Back
    // undoes it; a slider's move replaces the entry, or dragging would flood the history
    if (push) window.history.pushState(null, "", shown);
    else window.history.replaceState(null, "", shown);
    // a lab's presets are links: dcc.Location re-reads the address, so a later link back to
    // the previous query still counts as a change (render_page compares it with view-flags)
    if (link.notify) window.dispatchEvent(new CustomEvent("_dashprivate_pushstate"));
    // the chart's own camera button names its file after the scenario too
    const gd = document.querySelector("#roofline-graph .js-plotly-plot");
    if (gd && gd._context && gd._context.toImageButtonOptions && window.llmRoofline) {
      gd._context.toImageButtonOptions.filename = window.llmRoofline.exportName();
    }
    return shown;
  }

  let lastLink = null;
  // A slider step (app.js syncSizes): the last link with the sliders' new values, no history entry.
  window.dashUrl = {
    moved: function (values) {
      if (lastLink) write(lastLink, values, false);
    },
  };

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    url: {
      // link: {template, tabs, push, notify}; values: the moving parameters ({batch, ctx}).
      sync: function (link, values) {
        if (!link || typeof link.template !== "string") return nu();
        // the sliders' latest values: a call Dash held back behind a pending request may be
        // handed older ones (app.js records them at every key press); a page's first call
        // (a new page: nothing fired) starts from its own
        const fired = ((window.dash_clientside.callback_context || {}).triggered || []).map((t) => t.prop_id);
        if (!fired.length || fired.every((id) => id === ".")) window.dashLinkValues = values;
        values = window.dashLinkValues || values;
        lastLink = link;
        const shown = write(link, values, link.push);
        return shown === null ? nu() : shown;
      },
    },
  });
})();
