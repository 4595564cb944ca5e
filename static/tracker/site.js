// The site's few behaviours, as event listeners (the Content-Security-Policy allows no inline script).
//
// - A <form data-confirm="…"> asks before it is sent (deleting a comment, detaching a file,
//   removing someone from the team; deleting an issue asks on a page of its own).
// - Keyboard shortcuts, ignored while typing in a field or with Ctrl/Alt/Meta held:
//     /      focus the element marked data-search (the list pages' query box); on a page without
//            one, go to <body data-search-url> (the project's or the team's list) and focus it there
//     c      follow the link marked data-new-issue, else go to <body data-new-issue-url> (the
//            project's new-issue form, or the team's "which project?")
//     j / k  move a highlight down / up over the elements marked data-list-item
//     Enter  open the first link inside the highlighted item
//     ?      show or hide the shortcuts that work on this page (Escape hides it)
//   and a page's own: an element marked data-shortcut="e" data-shortcut-label="Edit" is clicked
//   (a link, a button) or focused (a field) by its key. A page's own key wins over the ones above
//   (the issue page's c is "Comment"; the help says it stands for New issue elsewhere). Only
//   elements shown and enabled count, and the help lists them in the page's order.
//   Ctrl-K / ⌘K (the command palette) is static/tracker/palette.js's.
"use strict";
document.addEventListener("submit", function (event) {
  var form = event.target;
  if (form.dataset && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
  }
});

(function () {
  var HIGHLIGHT = "kbd-current";
  var current = -1;

  function typing(target) {
    if (!target || !target.closest) {
      return false;
    }
    return Boolean(target.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']"));
  }

  function items() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-list-item]"));
  }

  function move(step) {
    var all = items();
    if (!all.length) {
      return false;
    }
    var at = all.findIndex(function (item) { return item.classList.contains(HIGHLIGHT); });
    var next = at < 0 ? (step > 0 ? 0 : all.length - 1) : Math.min(all.length - 1, Math.max(0, at + step));
    if (at >= 0) {
      all[at].classList.remove(HIGHLIGHT);
      all[at].removeAttribute("aria-selected");
    }
    all[next].classList.add(HIGHLIGHT);
    all[next].setAttribute("aria-selected", "true");
    all[next].scrollIntoView({ block: "nearest" });
    current = next;
    return true;
  }

  function openCurrent() {
    var item = document.querySelector("[data-list-item]." + HIGHLIGHT);
    var link = item && item.querySelector("a[href]");
    if (link) {
      link.click();
      return true;
    }
    return false;
  }

  var SEARCH_HASH = "#search";  // a list reached by "/" from another page focuses its box

  function searchBox() {
    return document.querySelector("[data-search]");
  }

  function focusSearch(search) {
    search.focus();
    // The caret after what is there and a space, so a word typed now is a word of its own
    // ("is:closed deploy", never "is:closeddeploy").
    if (search.value && !/\s$/.test(search.value)) {
      search.value += " ";
    }
    try {  // not every input type allows a selection
      search.setSelectionRange(search.value.length, search.value.length);
    } catch (ignored) { /* no selection on this input type */ }
  }

  function search() {
    var box = searchBox();
    if (box) {
      focusSearch(box);
      return true;
    }
    var url = document.body.dataset.searchUrl;
    if (url) {
      window.location.assign(url + SEARCH_HASH);
      return true;
    }
    return false;
  }

  function newIssue() {
    var create = document.querySelector("a[data-new-issue]");
    if (create) {
      create.click();
      return true;
    }
    var url = document.body.dataset.newIssueUrl;
    if (url) {
      window.location.assign(url);
      return true;
    }
    return false;
  }

  function ownShortcuts() {  // the page's data-shortcut elements shown and enabled, the first for each key
    var seen = {};
    return Array.prototype.filter.call(document.querySelectorAll("[data-shortcut]"), function (element) {
      var key = element.dataset.shortcut;
      if (!key || seen[key] || element.disabled || !element.getClientRects().length) {
        return false;
      }
      seen[key] = true;
      return true;
    });
  }

  function ownShortcut(key) {
    return ownShortcuts().find(function (element) { return element.dataset.shortcut === key; });
  }

  function use(element) {  // a field takes the focus; a link or a button is pressed
    if (element.matches("input, textarea, select")) {
      element.scrollIntoView({ block: "center" });
      element.focus();
    } else {
      element.click();
    }
    return true;
  }

  function canCreate() {
    return Boolean(document.querySelector("a[data-new-issue]") || document.body.dataset.newIssueUrl);
  }

  function shortcuts() {  // the ones that do something on this page, as the help lists them
    var rows = [];
    var own = ownShortcuts();
    var claimed = own.map(function (element) { return element.dataset.shortcut; });
    if (claimed.indexOf("/") < 0 && searchBox()) {
      rows.push(["/", "Search"]);
    } else if (claimed.indexOf("/") < 0 && document.body.dataset.searchUrl) {
      rows.push(["/", "Search (on the issue list)"]);
    }
    if (claimed.indexOf("c") < 0 && canCreate()) {
      rows.push(["c", "New issue"]);
    }
    own.forEach(function (element) {
      var key = element.dataset.shortcut;
      var label = element.dataset.shortcutLabel || element.getAttribute("aria-label") || element.textContent.trim();
      if (key === "c" && canCreate()) {
        label += " (on this page; elsewhere c is New issue)";
      }
      rows.push([key, label]);
    });
    var all = items();
    if (all.length) {
      rows.push(["j / k", "Next / previous in the list"]);
    }
    if (all.some(function (item) { return item.querySelector("a[href]"); })) {
      rows.push(["Enter", "Open the highlighted one"]);
    }
    rows.push(["?", "Show or hide this help"]);
    return rows;
  }

  function help() {
    var box = document.getElementById("kbd-help");
    if (box) {
      box.hidden = !box.hidden;
      return true;
    }
    box = document.createElement("div");
    box.id = "kbd-help";
    box.className = "kbd-help";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-label", "Keyboard shortcuts");
    var rows = shortcuts();
    var list = document.createElement("dl");
    rows.forEach(function (row) {
      var key = document.createElement("dt");
      var kbd = document.createElement("kbd");
      kbd.textContent = row[0];
      key.appendChild(kbd);
      var what = document.createElement("dd");
      what.textContent = row[1];
      list.appendChild(key);
      list.appendChild(what);
    });
    var title = document.createElement("h2");
    title.textContent = "Keyboard shortcuts";
    box.appendChild(title);
    box.appendChild(list);
    if (document.querySelector("form[data-palette]")) {  // palette.js's, on every team page
      var palette = document.createElement("p");
      palette.className = "muted";
      // The key palette.js takes in a text box as well: ⌘K on a Mac (its Ctrl-K is the box's), Ctrl K elsewhere.
      var key = document.createElement("kbd");
      key.textContent = /Mac|iPhone|iPad/.test(navigator.platform || "") ? "⌘K" : "Ctrl K";
      palette.appendChild(key);
      palette.appendChild(document.createTextNode(" anywhere, also while typing: go to an issue, a project or a page"));
      box.appendChild(palette);
    }
    document.body.appendChild(box);
    return true;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented || typing(event.target)) {
      return;
    }
    var done = false;
    var own = event.key === "?" || event.key === "Escape" ? null : ownShortcut(event.key);
    if (own) {
      done = use(own);
    } else if (event.key === "/") {
      done = search();
    } else if (event.key === "c") {
      done = newIssue();
    } else if (event.key === "j") {
      done = move(1);
    } else if (event.key === "k") {
      done = move(-1);
    } else if (event.key === "Enter" && current >= 0 && !(event.target && event.target.closest && event.target.closest("a, button"))) {
      done = openCurrent();
    } else if (event.key === "?") {
      done = help();
    } else if (event.key === "Escape") {
      var box = document.getElementById("kbd-help");
      if (box && !box.hidden) {
        box.hidden = true;
        done = true;
      }
    }
    if (done) {
      event.preventDefault();
    }
  });

  if (window.location.hash === SEARCH_HASH && searchBox()) {  // "/" from another page led here
    // Dropped from the address, or the box's own search (action "": this address) would keep it.
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
    focusSearch(searchBox());
  }
})();
