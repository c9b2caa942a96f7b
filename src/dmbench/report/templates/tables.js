// dmbench report: sort tables by a column, filter their rows, order a record's outputs.
// The pages read the same without it; it loads nothing and needs no network.
"use strict";
(function () {
  function cellValue(row, index) {
    var cell = row.children[index];
    var text = cell ? cell.textContent.trim() : "";
    var number = parseFloat(text);
    return isNaN(number) || !/^-?[0-9.]/.test(text) ? text.toLowerCase() : number;
  }
  function compare(a, b) {
    if (typeof a === typeof b) return a < b ? -1 : a > b ? 1 : 0;
    return typeof a === "number" ? -1 : 1;
  }
  function sortableHeadings(table) {
    // [heading, column] for the headings that end on the head's last row (a heading spanning
    // several columns, such as a cell's name over its three scores, sorts nothing).
    var taken = [];
    var found = [];
    var last = table.tHead.rows.length - 1;
    Array.prototype.forEach.call(table.tHead.rows, function (row, r) {
      var column = 0;
      Array.prototype.forEach.call(row.cells, function (cell) {
        while (taken[r] && taken[r][column]) column++;
        for (var down = 0; down < cell.rowSpan; down++) {
          taken[r + down] = taken[r + down] || [];
          for (var across = 0; across < cell.colSpan; across++) taken[r + down][column + across] = true;
        }
        if (cell.colSpan === 1 && r + cell.rowSpan - 1 === last) found.push([cell, column]);
        column += cell.colSpan;
      });
    });
    return found;
  }
  function makeSortable(table) {
    var sortable = sortableHeadings(table);
    var headings = sortable.map(function (pair) { return pair[0]; });
    sortable.forEach(function (pair) {
      var heading = pair[0], index = pair[1];
      heading.dataset.column = index;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (heading.firstChild) button.appendChild(heading.firstChild);
      heading.appendChild(button);
      button.addEventListener("click", function () {
        var descending = heading.getAttribute("aria-sort") === "ascending";
        headings.forEach(function (h) { h.removeAttribute("aria-sort"); });
        heading.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var order = compare(cellValue(a, index), cellValue(b, index));
          return descending ? -order : order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
    var filter = document.createElement("input");
    filter.type = "search";
    filter.className = "filter";
    filter.placeholder = "Filter rows";
    filter.setAttribute("aria-label", "Filter the rows of " + table.caption.textContent);
    filter.addEventListener("input", function () {
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var text = row.textContent.toLowerCase();
        row.hidden = !words.every(function (word) { return text.indexOf(word) >= 0; });
      });
    });
    table.parentNode.insertBefore(filter, table);
  }
  function makeOrderable(select) {
    var runs = document.querySelectorAll(".runs");
    select.hidden = false;
    select.querySelector("select").addEventListener("change", function (event) {
      var key = event.target.value;
      Array.prototype.forEach.call(runs, function (grid) {
        var items = Array.prototype.slice.call(grid.children);
        items.sort(function (a, b) {
          if (key === "run") return compare(+a.dataset.position, +b.dataset.position);
          return compare(+(b.dataset[key] || -1), +(a.dataset[key] || -1));
        });
        items.forEach(function (item) { grid.appendChild(item); });
      });
    });
  }
  function stickHeadRows(table) {
    // A second head row sticks just below the first, however high the first has wrapped.
    if (table.tHead && table.tHead.rows.length > 1) {
      table.style.setProperty("--head-row", table.tHead.rows[0].getBoundingClientRect().height + "px");
    }
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
  Array.prototype.forEach.call(document.querySelectorAll("table"), stickHeadRows);
  var order = document.getElementById("order");
  if (order) makeOrderable(order);
})();
