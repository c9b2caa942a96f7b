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
  function makeSortable(table) {
    var headings = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headings, function (heading, index) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      button.textContent = heading.textContent;
      heading.textContent = "";
      heading.appendChild(button);
      button.addEventListener("click", function () {
        var descending = heading.getAttribute("aria-sort") === "ascending";
        Array.prototype.forEach.call(headings, function (h) { h.removeAttribute("aria-sort"); });
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
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), makeSortable);
  var order = document.getElementById("order");
  if (order) makeOrderable(order);
})();
