// ranklens report: the per-query table (sort, filter, pages).  Data from #rl-data;
// every text is set with textContent, never parsed as HTML.
(function () {
  "use strict";
  var node = document.getElementById("rl-data");
  var table = document.getElementById("rl-queries");
  if (!node || !table) { return; }
  var data = JSON.parse(node.textContent);
  var queries = data.queries, runs = data.runs, base = data.baseline;
  var metricSel = document.getElementById("rl-metric");
  var filterBox = document.getElementById("rl-filter");
  var outcomeSel = document.getElementById("rl-outcome");
  var sizeSel = document.getElementById("rl-page-size");
  var statusEl = document.getElementById("rl-status");
  var prev = document.getElementById("rl-prev");
  var next = document.getElementById("rl-next");
  var headRow = table.tHead.rows[0];
  var body = table.tBodies[0];

  // columns: the query id, each run's value, each run's difference from the baseline
  var columns = [{ label: "query", kind: "query" }];
  runs.forEach(function (name, r) { columns.push({ label: name, kind: "value", run: r }); });
  if (base !== null) {
    runs.forEach(function (name, r) {
      if (r !== base) { columns.push({ label: "Δ " + name, kind: "delta", run: r }); }
    });
  }
  var state = { metric: 0, column: 0, desc: false, page: 0, rows: [] };

  function values(col) {
    var m = state.metric;
    return col.kind === "value" ? data.values[m][col.run] : data.deltas[m][col.run];
  }

  // as ranklens.render.table.number prints: four decimals, NaN as text
  function show(v) {
    if (v === null) { return "—"; }
    if (typeof v === "string") { return v; }
    if (Object.is(v, -0)) { return "-0.0000"; }
    return v.toFixed(4);
  }

  function rank(v) { // numbers first, then NaN, then missing (in either direction)
    if (v === null) { return [2, 0]; }
    if (typeof v === "string") {
      if (v === "inf") { return [0, Infinity]; }
      if (v === "-inf") { return [0, -Infinity]; }
      return [1, 0];
    }
    return [0, v];
  }

  function sortRows() {
    var col = columns[state.column], sign = state.desc ? -1 : 1;
    if (col.kind === "query") { // ids are in sorted order already
      state.rows.sort(function (a, b) { return sign * (a - b); });
      return;
    }
    var vals = values(col), n = vals.length;
    var cls = new Int8Array(n), num = new Float64Array(n);
    for (var i = 0; i < n; i++) { var k = rank(vals[i]); cls[i] = k[0]; num[i] = k[1]; }
    state.rows.sort(function (a, b) {
      if (cls[a] !== cls[b]) { return cls[a] - cls[b]; }
      if (num[a] !== num[b]) { return num[a] < num[b] ? -sign : sign; }
      return a - b;
    });
  }

  function filterRows() {
    var text = filterBox.value.toLowerCase();
    var outcome = outcomeSel ? outcomeSel.value : "";
    var codes = null, want = "";
    if (outcome) {
      var parts = outcome.split(":");
      want = parts[0];
      codes = data.outcomes[state.metric][Number(parts[1])];
    }
    var rows = [];
    for (var i = 0; i < queries.length; i++) {
      if (text && queries[i].toLowerCase().indexOf(text) < 0) { continue; }
      if (codes !== null && codes.charAt(i) !== want) { continue; }
      rows.push(i);
    }
    state.rows = rows;
    state.page = 0;
    sortRows();
  }

  function drawHead() {
    while (headRow.firstChild) { headRow.removeChild(headRow.firstChild); }
    columns.forEach(function (col, c) {
      var th = document.createElement("th");
      th.scope = "col";
      if (col.kind !== "query") { th.className = "num"; }
      if (c === state.column) { th.setAttribute("aria-sort", state.desc ? "descending" : "ascending"); }
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = col.label;
      button.addEventListener("click", function () {
        if (state.column === c) { state.desc = !state.desc; } else {
          state.column = c;
          state.desc = col.kind !== "query"; // numbers: biggest first
        }
        state.page = 0;
        sortRows();
        draw();
      });
      th.appendChild(button);
      headRow.appendChild(th);
    });
  }

  function draw() {
    drawHead();
    var size = Number(sizeSel.value), total = state.rows.length;
    var pages = Math.max(1, Math.ceil(total / size));
    state.page = Math.min(state.page, pages - 1);
    var start = state.page * size, end = Math.min(total, start + size);
    var frag = document.createDocumentFragment();
    var outcomes = data.outcomes[state.metric];
    for (var j = start; j < end; j++) {
      var i = state.rows[j], tr = document.createElement("tr");
      columns.forEach(function (col) {
        var cell = document.createElement(col.kind === "query" ? "th" : "td");
        if (col.kind === "query") {
          cell.scope = "row";
          cell.textContent = queries[i];
        } else {
          var v = values(col)[i];
          cell.className = v === null ? "num missing" : "num";
          cell.textContent = show(v);
          if (v === null) { cell.title = "not in this run"; }
          if (col.kind === "delta") {
            var code = outcomes[col.run].charAt(i);
            if (code === "w") { cell.className += " win"; }
            if (code === "l") { cell.className += " loss"; }
          }
        }
        tr.appendChild(cell);
      });
      frag.appendChild(tr);
    }
    while (body.firstChild) { body.removeChild(body.firstChild); }
    body.appendChild(frag);
    statusEl.textContent = total === 0 ? "No query matches (" + queries.length + " in all)." :
      "Queries " + (start + 1) + "–" + end + " of " + total + " shown" +
      (total < queries.length ? " (" + queries.length + " in all)" : "") +
      "; page " + (state.page + 1) + " of " + pages + ".";
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
  }

  metricSel.addEventListener("change", function () {
    state.metric = Number(metricSel.value);
    filterRows();
    draw();
  });
  filterBox.addEventListener("input", function () { filterRows(); draw(); });
  if (outcomeSel) { outcomeSel.addEventListener("change", function () { filterRows(); draw(); }); }
  sizeSel.addEventListener("change", function () { state.page = 0; draw(); });
  prev.addEventListener("click", function () { state.page -= 1; draw(); });
  next.addEventListener("click", function () { state.page += 1; draw(); });
  filterRows();
  draw();
}());
