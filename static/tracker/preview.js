// Write / Preview tabs over every <textarea> of a <form data-preview-url="/t/<team>/preview/">
// (an issue's description, a comment, a comment's edit).
//
// "Preview" posts the text (with the form's CSRF token) and shows the answer, the sanitised HTML
// the page will show, in place of the box; "Write" brings the box back, as it was. Nothing is
// saved. The form's own "Preview" button (the way without JavaScript: the page again, the
// preview under the form) is hidden, as the tabs do the same. A newer preview aborts one in
// flight (AbortController). ← → move between the tabs (WAI-ARIA tabs pattern).
// Signed out meanwhile (the session expired, or ended in another tab), the answer is the login page
// (a redirect, followed): it is not shown; the pane says so, with a link to sign in again in a new tab
// (this page and its text stay as they are).
"use strict";
(function () {
  var made = 0;

  function csrfToken(form) {
    var input = form.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function signedOut(pane, login) {
    var again = new URL(login, window.location.href);
    again.search = new URLSearchParams({ next: window.location.pathname + window.location.search }).toString();
    var link = document.createElement("a");
    link.href = again.pathname + again.search;
    link.target = "_blank";
    link.rel = "noopener";
    link.textContent = "sign in again";
    pane.replaceChildren(
      document.createTextNode("You are signed out, so no preview was made. Your text is kept: "),
      link,
      document.createTextNode(" (in a new tab), then choose Preview again.")
    );
  }

  function tab(text, id, panel) {
    var button = document.createElement("button");
    button.type = "button";
    button.id = id;
    button.className = "md-tab";
    button.setAttribute("role", "tab");
    button.setAttribute("aria-controls", panel);
    button.textContent = text;
    return button;
  }

  function switcher(form, box, url) {
    made += 1;
    var id = "md-" + made;
    if (!box.id) {
      box.id = id + "-box";
    }
    var pane = document.createElement("div");
    pane.id = id + "-preview";
    pane.className = "md-preview markdown";
    pane.setAttribute("role", "tabpanel");
    pane.setAttribute("aria-labelledby", id + "-show");
    pane.tabIndex = 0;
    pane.hidden = true;
    var tabs = document.createElement("div");
    tabs.className = "md-tabs";
    tabs.setAttribute("role", "tablist");
    tabs.setAttribute("aria-label", "Write or preview");
    var write = tab("Write", id + "-write", box.id);
    var show = tab("Preview", id + "-show", pane.id);
    tabs.appendChild(write);
    tabs.appendChild(show);
    box.insertAdjacentElement("beforebegin", tabs);
    // After the box and the suggestions list autocomplete.js may have put there.
    var after = box.nextElementSibling && box.nextElementSibling.classList.contains("ac-list") ?
      box.nextElementSibling.nextElementSibling : box;
    after.insertAdjacentElement("afterend", pane);
    var controller = null;

    function select(showing) {
      write.setAttribute("aria-selected", showing ? "false" : "true");
      show.setAttribute("aria-selected", showing ? "true" : "false");
      write.tabIndex = showing ? -1 : 0;
      show.tabIndex = showing ? 0 : -1;
      tabs.classList.toggle("md-showing", showing);
      box.hidden = showing;
      pane.hidden = !showing;
    }

    function preview() {
      if (controller) {
        controller.abort();
      }
      controller = new AbortController();
      pane.setAttribute("aria-busy", "true");
      pane.textContent = "Making the preview…";
      var data = new FormData();
      data.append("body", box.value);
      data.append("csrfmiddlewaretoken", csrfToken(form));
      fetch(url, {
        method: "POST",
        body: data,
        credentials: "same-origin",
        headers: { "X-CSRFToken": csrfToken(form) },
        signal: controller.signal
      }).then(function (response) {
        return response.text().then(function (text) {
          if (response.redirected && /\/login\/$/.test(new URL(response.url).pathname)) {  // signed out
            signedOut(pane, response.url);
          } else if (response.ok && !response.redirected) {  // a page elsewhere is no preview either
            pane.innerHTML = text;  // sanitised by the server (tracker.markdown: markdown-it + nh3)
          } else if (response.status === 400) {
            pane.textContent = text;  // plain words: why it cannot be previewed
          } else {
            pane.textContent = "The preview could not be made just now (" + response.status + "). " +
              "Your text is kept: choose Write to go on.";
          }
          pane.removeAttribute("aria-busy");
        });
      }).catch(function (error) {
        if (error.name !== "AbortError") {
          pane.textContent = "The preview could not be made just now. Your text is kept: choose Write to go on.";
          pane.removeAttribute("aria-busy");
        }
      });
    }

    box.addEventListener("invalid", function () { select(false); });  // a required box left empty: show it
    write.addEventListener("click", function () {
      select(false);
      box.focus();
    });
    show.addEventListener("click", function () {
      select(true);
      preview();
    });
    tabs.addEventListener("keydown", function (event) {
      if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
        event.preventDefault();
        var next = document.activeElement === write ? show : write;
        next.focus();
        next.click();
      }
    });
    select(false);
  }

  document.querySelectorAll("form[data-preview-url]").forEach(function (form) {
    form.querySelectorAll("textarea").forEach(function (box) { switcher(form, box, form.dataset.previewUrl); });
    form.querySelectorAll("[data-preview-button]").forEach(function (button) { button.hidden = true; });
  });
}());
