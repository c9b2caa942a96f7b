// dmbench report: every diagram of a record's page at one scale, zoomed and panned in place.
// Without it each drawing sits at its own size in a scrolling box; it loads nothing.
"use strict";
(function () {
  var compare = document.getElementById("compare");
  var controls = document.getElementById("view-controls");
  if (!compare || !controls) return;
  // PlantUML writes class names at 14 px: "fit width" never goes below 11.2 px for them, and a
  // diagram wider than its box at that scale is panned instead of shrunk further.
  var READABLE = 0.8;
  var viewers = Array.prototype.map.call(compare.querySelectorAll("figure.viewer"), function (figure) {
    return { figure: figure, box: figure.querySelector(".viewport"), img: figure.querySelector("img"), scale: 1, x: 0, y: 0 };
  });
  var reference = viewers.filter(function (v) { return v.figure.closest(".pinned"); })[0];
  var shown = document.getElementById("scale-shown");

  function ready(viewer) { return viewer.img.complete && viewer.img.naturalWidth > 0; }
  function draw(viewer) {
    viewer.img.style.transform = "translate(" + viewer.x + "px, " + viewer.y + "px) scale(" + viewer.scale + ")";
  }
  function place(viewer, scale) {
    viewer.scale = scale;
    viewer.x = 0;
    viewer.y = 0;
    var height = viewer.img.naturalHeight * scale;
    viewer.box.style.height = Math.max(80, Math.min(height, window.innerHeight * 0.8)) + "px";
    draw(viewer);
  }
  function fitScale() {
    var basis = reference && ready(reference) ? reference : viewers.filter(ready)[0];
    if (!basis) return 1;
    var fit = basis.box.clientWidth / basis.img.naturalWidth;
    return Math.min(1, Math.max(READABLE, fit));
  }
  function setAll(scale) {
    viewers.filter(ready).forEach(function (viewer) { place(viewer, scale); });
    shown.value = Math.round(scale * 100) + " %";
    compare.dataset.scale = scale;
  }
  function zoomAt(viewer, factor, px, py) {
    var next = Math.min(8, Math.max(0.1, viewer.scale * factor));
    viewer.x = px - (px - viewer.x) * next / viewer.scale;
    viewer.y = py - (py - viewer.y) * next / viewer.scale;
    viewer.scale = next;
    draw(viewer);
  }

  viewers.forEach(function (viewer) {
    viewer.figure.classList.add("zoomable");
    viewer.img.addEventListener("load", function () { place(viewer, +compare.dataset.scale || fitScale()); });
    viewer.box.addEventListener("wheel", function (event) {
      event.preventDefault();
      var box = viewer.box.getBoundingClientRect();
      zoomAt(viewer, Math.exp(-event.deltaY * 0.0015), event.clientX - box.left, event.clientY - box.top);
    }, { passive: false });
    var dragging = null;
    viewer.box.addEventListener("pointerdown", function (event) {
      dragging = { x: event.clientX - viewer.x, y: event.clientY - viewer.y };
      viewer.box.setPointerCapture(event.pointerId);
      viewer.box.classList.add("dragging");
    });
    viewer.box.addEventListener("pointermove", function (event) {
      if (!dragging) return;
      viewer.x = event.clientX - dragging.x;
      viewer.y = event.clientY - dragging.y;
      draw(viewer);
    });
    function stop() { dragging = null; viewer.box.classList.remove("dragging"); }
    viewer.box.addEventListener("pointerup", stop);
    viewer.box.addEventListener("pointercancel", stop);
    viewer.box.addEventListener("keydown", function (event) {
      var step = { ArrowLeft: [40, 0], ArrowRight: [-40, 0], ArrowUp: [0, 40], ArrowDown: [0, -40] }[event.key];
      if (step) { viewer.x += step[0]; viewer.y += step[1]; draw(viewer); }
      else if (event.key === "+" || event.key === "=") zoomAt(viewer, 1.25, 0, 0);
      else if (event.key === "-") zoomAt(viewer, 0.8, 0, 0);
      else return;
      event.preventDefault();
    });
  });

  controls.hidden = false;
  controls.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.layout) {
      compare.dataset.layout = button.dataset.layout;
      Array.prototype.forEach.call(controls.querySelectorAll("[data-layout]"), function (b) {
        b.setAttribute("aria-pressed", String(b === button));
      });
      setAll(fitScale());
    } else if (button.dataset.zoom === "fit") setAll(fitScale());
    else if (button.dataset.zoom === "actual") setAll(1);
    else if (button.dataset.zoom === "in") setAll((+compare.dataset.scale || 1) * 1.25);
    else if (button.dataset.zoom === "out") setAll((+compare.dataset.scale || 1) * 0.8);
  });
  window.addEventListener("load", function () { setAll(fitScale()); });
})();
