// A long table's body drawn here from the server's text (components/table.drawn_table): the
// server formats and orders every cell, this only puts the text into rows. One Dash store per
// table instead of one Dash component per cell, which Dash's renderer revisits on every update
// (the ops table's ~200 cells cost ~16 ms of each slider step). Text only: textContent.
(function () {
  function row(texts) {
    const tr = document.createElement("tr");
    (Array.isArray(texts) ? texts : []).forEach(function (text) {
      const td = document.createElement("td");
      td.textContent = text === null || text === undefined ? "" : String(text);
      tr.appendChild(td);
    });
    return tr;
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    tables: {
      fill: function (cells, bodyId) {
        const body = document.getElementById(bodyId);
        if (body && Array.isArray(cells)) body.replaceChildren.apply(body, cells.map(row));
        return window.dash_clientside.no_update;
      },
      // a sortable table: sort is {key, desc}, the order the server gave the cells; its headers say it
      fillSorted: function (cells, sort, bodyId) {
        window.dash_clientside.tables.fill(cells, bodyId);
        const body = document.getElementById(bodyId);
        if (!body) return window.dash_clientside.no_update;
        const key = sort && sort.key;
        body.closest("table").querySelectorAll("th[aria-sort]").forEach(function (th) {
          const button = th.querySelector("button");
          const mine = key && button && button.id.endsWith("-" + key);
          th.setAttribute("aria-sort", mine ? (sort.desc ? "descending" : "ascending") : "none");
        });
        return window.dash_clientside.no_update;
      },
    },
  });
})();
