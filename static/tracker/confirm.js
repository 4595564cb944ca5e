// The page of an e-mail confirmation link (/accounts/email/confirm/#<code>): the code is in the
// fragment, which browsers never send to the server. Take it, remove it from the address bar and
// history, and POST it with the page's form; the server keeps it in the session and shows the
// button that confirms. Without JavaScript the person pastes the code (or the whole link).
"use strict";
(function () {
  var form = document.getElementById("confirm-code");
  var code = window.location.hash.slice(1);
  if (!form || !code) { return; }
  try { code = decodeURIComponent(code); } catch (e) { /* keep it as it is: the server says if it is wrong */ }
  window.history.replaceState(null, "", window.location.pathname + window.location.search);
  form.elements.code.value = code;
  form.hidden = true;
  document.getElementById("confirm-opening").hidden = false;
  form.submit();
})();
