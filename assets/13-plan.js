// Planner page (tab=plan): the prices typed per accelerator gathered into one store; a target's
// move drawn on the chart in place; PNG and SVG of the frontier chart, titled by the server (the
// question, targets, calibration and source); the charts' camera buttons named after the
// question (state.export_name, kept current by 04-url.js); Copy commands on each row of the
// top N. Numbers come from the server; nothing here computes one.
(function () {
  const nu = () => window.dash_clientside.no_update;
  const triggeredIds = () => ((window.dash_clientside.callback_context || {}).triggered || [])
    .map((t) => t.prop_id || "");
  let latest = null, restTimer = null;  // the targets as drawn, before they rest

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

  // One row of the top N: the server's text in each cell (textContent only), a value over its
  // range, the Copy button holding the commands, the serving page's link, the commands.
  const COLUMNS = ["rank", "layout", "gpus", "conc", "ttft", "tpot", "gpu", "user", "cost", "headroom", "launch"];

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cell(key, row, i, words) {
    const box = el("div");
    const ranged = function (value, range) { box.append(value, el("br"), el("span", "plan-range", range)); };
    if (key === "rank") box.textContent = String(i + 1);
    else if (key === "layout") box.append(el("b", "", row.where), el("br"), row.layout, el("br"),
                                          el("span", "plan-range", row.stack));
    else if (key === "ttft" || key === "tpot" || key === "gpu") ranged(row[key], row[key + "_range"]);
    else if (key === "launch") {
      box.className = "plan-launch";
      const copy = el("button", "button plan-copy", words.wordCopy);
      copy.type = "button";
      copy.dataset.copy = row.copy;
      const open = el("a", "plan-open", row.open || words.wordOpen);  // "one of the 3" when replicated
      if (row.open_title) open.title = row.open_title;
      open.href = row.href;
      open.id = "plan-open-" + i;
      const details = el("details");
      details.append(el("summary", "", words.wordCommands), el("pre", "plan-commands", row.copy));
      box.append(copy, open, details);
    } else box.textContent = row[key];
    return box;
  }

  function drawRows(rows) {
    const body = document.getElementById("plan-rows");
    const panel = document.getElementById("plan-top-panel");
    if (!body || !panel) return;
    const labels = Array.from(document.querySelectorAll("#plan-table-grid thead th")).map((th) => th.textContent);
    body.replaceChildren.apply(body, rows.map(function (row, i) {
      const tr = el("tr", i === 0 ? "plan-best-row" : "");
      tr.id = "plan-row-" + i;
      COLUMNS.forEach(function (key, k) {
        const td = el("td", "col-" + key);
        td.dataset.label = labels[k] || "";
        td.appendChild(cell(key, row, i, panel.dataset));
        tr.appendChild(td);
      });
      return tr;
    }));
    const none = document.getElementById("plan-top-none");
    if (none) none.hidden = rows.length > 0;
    document.getElementById("plan-table-grid").hidden = rows.length === 0;
  }

  // A target moved: the region and the star move in place, and no other trace is drawn again
  // (Plotly.animate without a redraw, as the roofline's sliders do); the star's legend entry
  // follows when another accelerator or mode is best, the axes when it left them.
  function moveTarget(marks) {
    const gd = document.querySelector("#plan-frontier .js-plotly-plot");
    if (!gd || !gd.data || !window.Plotly) return;
    const star = marks.star;
    const starTrace = marks.traces[1];
    const named = gd.data[starTrace].name === star.name;
    // An animation without a redraw only moves points that are drawn: a star that goes (nothing
    // meets the target) or comes back is restyled, or the old star would stay on the chart.
    const appears = star.x.length === 0 || (gd.data[starTrace].x || []).length === 0;
    const data = [{x: marks.region.x}].concat(appears ? [] : [{x: star.x, y: star.y, text: star.text}]);
    const traces = appears ? [marks.traces[0]] : marks.traces;
    window.Plotly.animate(gd, {data: data, traces: traces},
                          {transition: {duration: 0}, frame: {duration: 0, redraw: false}, mode: "immediate"})
      .then(function () {
        if (appears) {
          window.Plotly.restyle(gd, {x: [star.x], y: [star.y], text: [star.text], name: [star.name]}, [starTrace]);
        } else if (!named) {
          window.Plotly.restyle(gd, {name: [star.name]}, [starTrace]);
        }
        if (marks.ranges) window.Plotly.relayout(gd, marks.ranges);
      });
  }

  let barsTimer = null;

  // A view: the words, the rows (places in the pool) and, after a target's move, the star, the
  // region and the comparison's bars, in place.
  function drawView(view, pool) {
    [["plan-verdict", view.verdict], ["plan-counts", view.counts], ["plan-provenance", view.caption]]
      .forEach(function (pair) {
        const node = document.getElementById(pair[0]);
        if (node && node.textContent !== pair[1]) node.textContent = pair[1];
      });
    drawRows((view.rows || []).map((i) => pool[i]).filter(Boolean));
    if (view.marks) moveTarget(view.marks);
    // the comparison once the target rests: redrawing its bars took ~100 ms of a 2-core
    // machine's main thread, the star, region and rows ~20, and a drag's next step waited
    clearTimeout(barsTimer);
    if (view.compare) barsTimer = setTimeout(function () { moveBars(view.compare); }, 250);
  }

  // the comparison's bars at the new target (their values, labels and ranges), trace by trace
  function moveBars(bars) {
    const gd = document.querySelector("#plan-compare .js-plotly-plot");
    if (!gd || !gd.data || !window.Plotly || gd.data.length !== bars.length) return;
    bars.forEach(function (bar, i) {
      const update = {};
      Object.keys(bar).forEach(function (key) { update[key] = [bar[key]]; });
      window.Plotly.restyle(gd, update, [i]);
    });
  }

  document.addEventListener("click", function (event) {
    const button = event.target && event.target.closest && event.target.closest(".plan-copy");
    if (button) copyCommands(button);
  });

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    plan: {
      // {accelerator id: USD per GPU-hour} of the boxes holding a number (the server refuses one
      // out of range in the box's words); unchanged: no update
      gatherPrices: function (values, ids, current) {
        const prices = {};
        (ids || []).forEach(function (id, i) {
          const v = (values || [])[i];
          if (typeof v === "number" && Number.isFinite(v)) prices[id.hw] = v;
        });
        return JSON.stringify(prices) === JSON.stringify(current || {}) ? nu() : prices;
      },
      // the server's title for the image (callbacks.image_request), then the file, drawn here
      exportImage: function (request) {
        const plot = document.querySelector("#plan-frontier .js-plotly-plot");
        if (request && plot && window.Plotly) {
          const figure = {data: plot.data, layout: Object.assign({}, plot.layout, request.title)};
          window.Plotly.downloadImage(figure, {format: request.format, filename: stem(), width: 1400, height: 850});
        }
        return nu();
      },
      gridReady: function (grid) {
        const panel = document.getElementById("plan-chart-panel");
        if (panel) panel.dataset.grid = (grid && grid.key) || "";
        return nu();
      },

      // The server's view (pages/plan/view.py), with the grid's pool of rows; one made for
      // targets the sliders have since left is not drawn (the next settle's is).
      showView: function (view, sizes) {
        sizes = latest || sizes;
        const at = view && view.at;
        if (at && sizes && (at.tpot_ms !== sizes.tpot_ms || at.ttft_ms !== sizes.ttft_ms)) return nu();
        if (view) drawView(view, view.pool || []);
        return nu();
      },

      // A slider's step: its box shows the stop and the step is drawn from the grid at once
      // (when the grid was made at the other target as it is now); a typed box waits for the
      // server. Nothing else runs on a step: once the targets rest 250 ms they go to
      // `plan-sizes` (the link's slots) and `plan-settled` (the server's turn) together.
      drag: function (tpotSlider, ttftSlider, tpotBox, ttftBox, stops, grid, sizes, drawn) {
        const fired = triggeredIds();
        const out = [nu(), nu()];
        const now = latest || sizes || {};
        const next = Object.assign({}, now);
        const sliders = {tpot: tpotSlider, ttft: ttftSlider}, boxes = {tpot: tpotBox, ttft: ttftBox};
        ["tpot", "ttft"].forEach(function (name, k) {
          const other = name === "tpot" ? "ttft_ms" : "tpot_ms";
          if (fired.indexOf("plan-" + name + "-slider.value") >= 0) {
            const i = sliders[name];
            const ms = Number.isInteger(i) && stops && stops[name] ? stops[name][i] : undefined;
            if (ms === undefined || (ms === now[name + "_ms"] && !now[name + "_refused"])) return;
            next[name + "_ms"] = ms;
            delete next[name + "_refused"];
            next.typed = false;
            out[k] = ms;
            // drawn here from the grid of the chart on screen, made at the other target as it is
            // now; else (a new search's grid comes a moment after its chart) by the server's answer
            const mine = grid && grid.views && drawn && grid.key === drawn.key && grid.at[other] === next[other];
            if (mine) drawView(grid.views[name][i], grid.pool);
          } else if (fired.indexOf("plan-" + name + ".value") >= 0) {
            if (boxes[name] === now[name + "_ms"] && !now[name + "_refused"]) return;  // the drag's own write
            if (typeof boxes[name] === "number" && isFinite(boxes[name])) {
              next[name + "_ms"] = boxes[name];
              delete next[name + "_refused"];
            } else {
              // null: not a number, or out of the box's range. The target stays as it was, in the
              // link too (not NaN), and the server says why in the box's words
              next[name + "_refused"] = true;
            }
            next.typed = true;
          }
        });
        if (JSON.stringify(next) === JSON.stringify(now)) return out;
        latest = next;
        window.dashLinkValues = next;  // the link's slots, as of this key press (04-url.js)
        clearTimeout(restTimer);
        restTimer = setTimeout(function () {
          window.dash_clientside.set_props("plan-sizes", {data: next});
          window.dash_clientside.set_props("plan-settled", {data: next});
        }, 250);
        return out;
      },

      nameCameras: function () {
        setTimeout(nameCameras, 0); // after 04-url.js has read the link's stem
        return nu();
      },
    },
  });
})();
