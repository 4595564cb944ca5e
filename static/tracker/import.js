// The import's progress page: polls its status.json (data-status-url) every second and moves the bar;
// once the import has finished, reloads the page, which then shows the summary (or what went wrong).
"use strict";
(function () {
  var root = document.querySelector(".import-progress");
  if (!root) { return; }
  var bar = document.getElementById("import-bar"), line = document.getElementById("import-state");
  function say(s) {
    if (s.status === "uploading") { return "Receiving the file…"; }
    if (s.status === "queued") { return "Waiting for a worker to start the import…"; }
    if (s.status === "running" && s.total) {
      return "Saving the issues and comments: " + s.percent + "%.";
    }
    if (s.status === "running") { return "Starting: " + (s.stage || "reading the file") + "…"; }
    return "Finished.";
  }
  function poll() {
    fetch(root.dataset.statusUrl, {credentials: "same-origin", cache: "no-store"})
      .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.json(); })
      .then(function (s) {
        if (s.total) { bar.max = s.total; bar.value = s.done; }
        line.textContent = say(s);
        if (s.finished) {
          if (s.status === "done") { bar.max = 1; bar.value = 1; }
          window.location.reload();
          return;
        }
        setTimeout(poll, 1000);
      })
      .catch(function () { setTimeout(poll, 3000); });
  }
  poll();
})();
