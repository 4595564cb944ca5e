// The command palette: Ctrl-K (⌘K on a Mac) opens a <dialog> that finds an issue by its key (WEB-12),
// a project, a page (new issue, inbox, …) or issues by their words, from GET <the header's "Go to"
// form's action>?q=…&format=json (the same address without JavaScript is a page of results).
//
// The header's box (sent) and a phone's "Go to" link open it as well.
// Keyboard only: type, ↑ / ↓ move over the results, Enter opens the highlighted one (the first if
// none is), Escape closes and gives the focus back. Each answer is kept with the text it was asked
// for: an Enter pressed before the answer to what is in the box has come (typed fast: within the
// pause, or while the lookup is on its way) waits for that answer and opens its first result, never a
// result of an older answer still on show (typing takes the highlight off them; one picked with ↑ / ↓
// after typing is opened as picked); a lookup that fails sends Enter to the page of results.
// In a text field the platform's own key opens it (⌘K on a Mac, where Ctrl-K deletes to the end of
// the line; Ctrl-K elsewhere).
"use strict";
(function () {
  var form = document.querySelector("form[data-palette]");
  if (!form || typeof HTMLDialogElement !== "function") {
    return;  // no team (signed out, no membership) or an old browser: the header's box still works
  }
  var MAC = /Mac|iPhone|iPad/.test(navigator.platform || "");
  var DEBOUNCE_MS = 120;
  var dialog, input, list, status, timer, pending, active = -1, results = [], before = null;
  var asked = null;  // the text of the lookup on its way (null: none)
  var answered = null;  // the text the results shown are the answer to
  var wanted = false;  // Enter was pressed before that answer came: open its first result when it does
  var chosen = false;  // ↑ / ↓ pressed since the last typing: Enter opens the highlighted result, whatever it answers

  function typing(target) {
    return Boolean(target && target.closest &&
      target.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']"));
  }

  function build() {
    dialog = document.createElement("dialog");
    dialog.className = "palette";
    dialog.setAttribute("aria-label", "Go to");
    var label = document.createElement("label");
    label.className = "sr";
    label.htmlFor = "palette-q";
    label.textContent = "Go to an issue, a project or a page, or search";
    input = document.createElement("input");
    input.id = "palette-q";
    input.type = "text";
    input.autocomplete = "off";
    input.spellcheck = false;
    input.maxLength = 200;
    input.placeholder = "Go to… WEB-12, a project, inbox, words";
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-expanded", "true");
    input.setAttribute("aria-controls", "palette-results");
    input.setAttribute("aria-autocomplete", "list");
    list = document.createElement("ul");
    list.id = "palette-results";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Results");
    status = document.createElement("p");
    status.className = "palette-status muted";
    status.setAttribute("role", "status");
    var hint = document.createElement("p");
    hint.className = "palette-hint muted";
    hint.textContent = "↑ ↓ to move, Enter to open, Esc to close";
    dialog.appendChild(label);
    dialog.appendChild(input);
    dialog.appendChild(list);
    dialog.appendChild(status);
    dialog.appendChild(hint);
    document.body.appendChild(dialog);

    input.addEventListener("input", function () {
      wanted = false;  // typing on after an Enter: the new text's answer is shown, not opened
      chosen = false;
      highlight(-1);  // the results on show answer the text before: none is what Enter opens now
      later();
    });
    input.addEventListener("keydown", keys);
    dialog.addEventListener("close", function () {
      window.clearTimeout(timer);
      wanted = false;
      if (pending) { pending.abort(); }
      asked = null;
      if (before && before.focus) { before.focus(); }
    });
    dialog.addEventListener("click", function (event) {
      if (event.target === dialog) { dialog.close(); }  // a click on the backdrop
    });
  }

  function later() {
    window.clearTimeout(timer);
    timer = window.setTimeout(load, DEBOUNCE_MS);
  }

  function page() {  // the page of results: it goes straight to an issue whose key was typed
    window.location.assign(form.action + "?" + new URLSearchParams({ q: input.value }).toString());
  }

  function load() {
    window.clearTimeout(timer);
    if (pending) { pending.abort(); }
    var text = input.value;
    var controller = new AbortController();
    pending = controller;
    asked = text;
    var url = form.action + "?" + new URLSearchParams({ q: text, format: "json" }).toString();
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin", signal: controller.signal })
      .then(function (response) {
        if (response.redirected && /\/login\/$/.test(new URL(response.url).pathname)) {
          throw new Error("signed out");  // the login page, not an answer
        }
        if (!response.ok) { throw new Error("status " + response.status); }
        return response.json();
      })
      .then(function (data) {
        if (pending !== controller) { return; }  // a newer lookup has started
        pending = null;
        asked = null;
        show(data, text);
      })
      .catch(function (error) {
        if (error.name === "AbortError" || pending !== controller) { return; }
        pending = null;
        asked = null;
        answered = null;
        results = [];
        list.replaceChildren();
        highlight(-1);
        if (wanted) {
          wanted = false;
          page();
          return;
        }
        status.textContent = error.message === "signed out" ?
          "You are signed out: sign in again to look things up." :
          "Could not look that up just now; press Enter to search on a page instead.";
      });
  }

  function show(data, text) {
    answered = text;
    chosen = false;
    results = data.results || [];
    list.replaceChildren();
    results.forEach(function (result, at) {
      var item = document.createElement("li");
      item.id = "palette-option-" + at;
      item.setAttribute("role", "option");
      item.dataset.kind = result.kind;
      var link = document.createElement("a");
      link.href = result.url;
      link.tabIndex = -1;
      link.textContent = result.label;
      var hint = document.createElement("span");
      hint.className = "muted";
      hint.textContent = result.hint;
      item.appendChild(link);
      item.appendChild(document.createTextNode(" "));
      item.appendChild(hint);
      item.addEventListener("mousemove", function () { highlight(at); });
      list.appendChild(item);
    });
    highlight(results.length ? 0 : -1);
    status.textContent = data.missing || (results.length ? results.length + " result" + (results.length === 1 ? "" : "s") : "Nothing found.");
    if (wanted) {  // Enter came before this answer: open what it found first
      wanted = false;
      enter();
    }
  }

  function enter() {
    if (chosen && active >= 0 && results[active]) {  // picked with ↑ / ↓ from what is on show
      window.location.assign(results[active].url);
    } else if (answered !== input.value) {  // the results on show answer an older text: wait for this one's
      wanted = true;
      status.textContent = "Looking up “" + input.value.trim() + "”…";
      if (asked !== input.value) { load(); }  // not on its way yet (the pause after typing): ask now
    } else if (active >= 0 && results[active]) {
      window.location.assign(results[active].url);
    } else {  // nothing found: the page of results says so, and offers the search
      page();
    }
  }

  function highlight(at) {
    var items = list.children;
    if (active >= 0 && items[active]) { items[active].removeAttribute("aria-selected"); }
    active = at;
    if (at >= 0 && items[at]) {
      items[at].setAttribute("aria-selected", "true");
      items[at].scrollIntoView({ block: "nearest" });
      input.setAttribute("aria-activedescendant", items[at].id);
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function keys(event) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (results.length) {
        var step = event.key === "ArrowDown" ? 1 : -1;
        highlight(active < 0 && step < 0 ? results.length - 1 : (active + step + results.length) % results.length);
        chosen = true;
      }
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (answered === null && asked === null && !wanted) {  // the lookup failed: the page of results
        page();
      } else {
        enter();
      }
    }
  }

  function open(text) {
    if (!dialog) { build(); }
    if (dialog.open) {
      input.select();
      return;
    }
    before = document.activeElement;
    input.value = text || "";
    answered = null;
    dialog.showModal();
    input.focus();
    load();
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "k" && event.key !== "K") { return; }
    if (event.altKey || event.shiftKey || !(event.ctrlKey || event.metaKey)) { return; }
    // In a field only the platform's own key (a Mac's Ctrl-K is the field's: delete to the end of the line).
    if (typing(event.target) && !(dialog && dialog.contains(event.target)) && (MAC ? !event.metaKey : !event.ctrlKey)) {
      return;
    }
    event.preventDefault();
    open("");
  });

  // The header's box and a phone's "Go to" link open it too (what was typed in the box kept).
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var box = form.querySelector("input[name=q]");
    open(box ? box.value : "");
  });
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-palette-open]");
    if (link && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.button === 0) {
      event.preventDefault();
      open("");
    }
  });
})();
