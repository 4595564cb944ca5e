// The job page: polls status.json (data-status-url) until the run is ready, then reloads to show its answer.
"use strict";
(function () {
  var root = document.querySelector(".ddb-job"), bar = document.getElementById("job-progress");
  function text(id, value) { document.getElementById(id).textContent = value == null ? "" : value; }
  function poll() {
    fetch(root.dataset.statusUrl, {credentials: "same-origin"}).then(function (r) { return r.json(); }).then(function (s) {
      var p = s.progress || {};
      text("job-state", s.state);
      var note = document.getElementById("job-pending-note");
      if (note) { note.hidden = s.state !== "PENDING"; }
      text("job-stage", p.stage);
      text("job-count", p.total ? p.done + " / " + p.total : (p.keys != null ? p.keys + " keys" : ""));
      if (p.total) { bar.max = p.total; bar.value = p.done || 0; }
      if (!s.ready) { setTimeout(poll, 1000); return; }
      if (s.result) { window.location.reload(); return; }  // the page says the answer in words once it is there
      bar.max = 1; bar.value = 1;
      var res = s.result || {}, cap = res.capacity || {};
      if (s.error) { text("job-stage", s.error); }
      text("cap-rcu", cap.rcu); text("cap-wcu", cap.wcu); text("cap-requests", cap.requests);
      text("cap-ops", Object.entries(cap.by_operation || {}).map(function (e) { return e[0] + " " + e[1]; }).join(", "));
      text("cap-patterns", Object.entries(cap.by_pattern || {}).map(function (e) { return e[0] + " " + e[1].rcu + " RCU / " + e[1].wcu + " WCU"; }).join(", "));
      text("job-seconds", res.seconds);
      text("job-json", JSON.stringify(res, null, 2));
      document.getElementById("job-result").hidden = !s.result;
    }).catch(function () { setTimeout(poll, 3000); });
  }
  if (root.dataset.ready !== "true") { poll(); }
})();
