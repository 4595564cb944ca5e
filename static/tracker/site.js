// The site's few behaviours, as event listeners (the Content-Security-Policy allows no inline script):
// a <select data-autosubmit> sends its form when it changes (the tenant switcher), and a
// <form data-confirm="…"> asks before it is sent (deleting an issue, detaching a file).
"use strict";
document.addEventListener("change", function (event) {
  var select = event.target.closest && event.target.closest("select[data-autosubmit]");
  if (select && select.form) {
    select.form.submit();
  }
});
document.addEventListener("submit", function (event) {
  var form = event.target;
  if (form.dataset && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
  }
});
