// Bulk edit on a project's list: the rows' tick boxes (form="bulk") and the bar above them.
// Everything works without this file (tick, choose, Apply); it adds:
//   - "All on this page" in the bar (hidden without JavaScript)
//   - shift-click: ticks (or unticks) every box between the last one clicked and this one
//   - x: ticks or unticks the row highlighted with j / k (site.js's highlight), ignored while typing; site.js
//     presses the bar's hidden data-shortcut="x" button (so its ? help lists x), this file does the ticking
//   - the count of chosen issues, and Apply disabled while none is chosen
"use strict";
(function () {
  var form = document.getElementById("bulk");
  if (!form) {
    return;
  }
  var all = document.querySelector("[data-bulk-all]");
  var count = form.querySelector("[data-bulk-count]");
  var apply = form.querySelector("[data-bulk-apply]");
  var idle = "None chosen";
  form.classList.add("js");
  var last = null;

  function boxes() {
    return Array.prototype.slice.call(document.querySelectorAll("input[type=checkbox][name=n][form=bulk]"));
  }

  function refresh() {
    var list = boxes();
    var chosen = list.filter(function (box) { return box.checked; }).length;
    list.forEach(function (box) {
      var row = box.closest("tr");
      if (row) {
        row.classList.toggle("picked", box.checked);
      }
    });
    if (count) {
      count.textContent = chosen ? chosen + " chosen" : idle;
      count.classList.toggle("some", chosen > 0);
    }
    if (apply) {
      apply.disabled = chosen === 0;
    }
    if (all) {
      all.checked = chosen > 0 && chosen === list.length;
      all.indeterminate = chosen > 0 && chosen < list.length;
    }
  }

  if (all) {
    all.closest("[data-bulk-all-label]").hidden = false;
    all.addEventListener("change", function () {
      boxes().forEach(function (box) { box.checked = all.checked; });
      refresh();
    });
  }

  document.addEventListener("click", function (event) {
    var box = event.target;
    if (!box || !box.matches || !box.matches("input[type=checkbox][name=n][form=bulk]")) {
      return;
    }
    var list = boxes();
    if (event.shiftKey && last && last !== box && list.indexOf(last) >= 0) {
      var from = list.indexOf(last);
      var to = list.indexOf(box);
      var low = Math.min(from, to);
      var high = Math.max(from, to);
      for (var i = low; i <= high; i += 1) {
        list[i].checked = box.checked;
      }
    }
    last = box;
    refresh();
  });

  function typing(target) {
    return Boolean(target && target.closest &&
      target.closest("input:not([type=checkbox]), textarea, select, [contenteditable=''], [contenteditable='true']"));
  }

  function toggleHighlighted() {
    var row = document.querySelector("[data-list-item].kbd-current");
    var box = row && row.querySelector("input[type=checkbox][name=n][form=bulk]");
    if (!box) {
      return false;
    }
    box.checked = !box.checked;
    last = box;
    refresh();
    return true;
  }

  var pressX = form.querySelector("[data-bulk-x]");
  if (pressX) {
    pressX.addEventListener("click", toggleHighlighted);  // site.js's x
  }

  document.addEventListener("keydown", function (event) {  // x without site.js's shortcut (it prevents this one)
    if (event.key !== "x" || event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented || typing(event.target)) {
      return;
    }
    if (toggleHighlighted()) {
      event.preventDefault();
    }
  });

  window.addEventListener("pageshow", refresh);  // back/forward keeps ticks: count what is ticked
  refresh();
})();
