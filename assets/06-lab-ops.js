// The op lab (app/dashboard/lab_ops.py): the server computes the canonical query of the view
// after every control change; this writes it into the address bar. replaceState, not
// pushState: typing a number must not flood the history. A preset is a dcc.Link (a history
// entry, so Back returns to the previous op).
(function () {
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lab_ops: {
      syncUrl: function (query) {
        const nu = window.dash_clientside.no_update;
        if (typeof query !== "string" || !query) return nu;
        const url = window.location.pathname + "?" + query;
        if (url === window.location.pathname + window.location.search) return nu;
        window.history.replaceState(null, "", url);
        // dcc.Location re-reads the address, so a later link back to the previous query still
        // counts as a change (the page-level render_page then compares it with view-flags).
        window.dispatchEvent(new CustomEvent("_dashprivate_pushstate"));
        return nu;
      },
    },
  });
})();
