// The labels page while a rename or delete runs ("Being changed"): every few seconds, ask each running change how
// far it is (GET <label>/progress/, a small JSON answer) and update its bar and "N of M issues done". When none is
// running any more, reload the page once (the label is then listed as renamed or deleted). Without JavaScript the
// page says to reload it. No inline script: the CSP allows none.
"use strict";
(function () {
  var items = Array.prototype.slice.call(document.querySelectorAll("li[data-progress]"));
  var help = document.getElementById("progress-help");
  var every = 3000;
  var failures = 0;
  if (!items.length || !window.fetch) { return; }
  if (help) { help.textContent = "The progress updates by itself; the page reloads when the change is done."; }

  function show(item, answer) {
    var bar = item.querySelector("progress");
    var text = item.querySelector(".progress-text");
    if (!answer.total) {  // too many for the request to count: the job counts them first (the bar stays moving)
      if (text) {
        text.textContent = answer.done + " issue" + (answer.done === 1 ? "" : "s") + " done; counting how many in all.";
      }
      return;
    }
    if (bar) { bar.max = answer.total; bar.value = Math.min(answer.done, answer.total); }
    if (text) {
      text.textContent = answer.done + " of " + answer.total + " issue" + (answer.total === 1 ? "" : "s") + " done.";
    }
  }

  function ask(item) {
    return fetch(item.getAttribute("data-progress"), {
      credentials: "same-origin",
      headers: { "Accept": "application/json" }
    }).then(function (response) {
      if (!response.ok) { throw new Error("progress " + response.status); }
      return response.json();
    }).then(function (answer) {
      if (answer.busy) { show(item, answer); return true; }
      return false;
    });
  }

  function poll() {
    Promise.all(items.map(ask)).then(function (running) {
      failures = 0;
      if (running.indexOf(true) === -1) { window.location.reload(); return; }
      window.setTimeout(poll, every);
    }).catch(function () {
      failures += 1;  // the server or the network did not answer: try less often, stop after a few
      if (failures < 5) { window.setTimeout(poll, every * (failures + 1)); return; }
      if (help) { help.textContent = "The progress stopped updating; reload the page to see it."; }
    });
  }

  window.setTimeout(poll, every);
})();
