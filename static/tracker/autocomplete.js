// Suggestions as one types, in the forms marked <form data-autocomplete-url="/t/<team>/autocomplete/">:
//
// - every <textarea>: "@" then the start of a name lists the team's people; choosing one writes
//   "@alice " in place of what was typed (the page links members' @mentions)
// - the labels field (input[name=labels] or [data-autocomplete=label]), a comma-separated list:
//   the label being typed lists the team's labels in use starting so, with their colour
// - the assignee <select>: becomes a text box that lists the people who may be assigned
//   (owners and members); the <select> stays in the form, hidden, and holds the choice
//
// One listbox per field (role=listbox, the field's aria-activedescendant names the highlighted
// option). Keys while it is open: ↓ ↑ move, Enter (or Tab) takes the highlighted one, Esc closes.
// A request waits for a 120 ms pause in typing; a newer one aborts the one in flight
// (AbortController), so a slow answer never replaces a newer list. Without JavaScript the fields
// are as they were: nothing here is needed to use the forms.
"use strict";
(function () {
  var DEBOUNCE_MS = 120;
  var MENTION = /(^|[^\w@.+-])@([\w.+-]*)$/;  // an @ that starts a word, then the name so far (tracker/markdown.py)
  var LABEL = /(^|,)\s*([^,]*)$/;  // the label being typed: after the last comma
  var made = 0;

  function Suggester(field, options) {
    // options: url, kind, extra (query string), token(field) → {start, end, query} or null, insert(s) → text
    var self = this;
    made += 1;
    self.field = field;
    self.options = options;
    self.items = [];
    self.active = -1;
    self.timer = null;
    self.controller = null;
    self.id = "ac-" + made;
    self.list = document.createElement("ul");
    self.list.id = self.id;
    self.list.className = "ac-list";
    self.list.setAttribute("role", "listbox");
    self.list.setAttribute("aria-label", options.kind === "label" ? "Labels" : "People");
    self.list.hidden = true;
    self.status = document.createElement("span");
    self.status.className = "sr";
    self.status.setAttribute("role", "status");
    field.insertAdjacentElement("afterend", self.list);
    self.list.insertAdjacentElement("afterend", self.status);
    field.setAttribute("aria-autocomplete", "list");
    field.setAttribute("aria-controls", self.id);
    if (field.getAttribute("role") === "combobox") {
      field.setAttribute("aria-expanded", "false");
    }
    field.setAttribute("autocomplete", "off");
    field.addEventListener("input", function () { self.later(); });
    field.addEventListener("keydown", function (event) { self.key(event); });
    field.addEventListener("blur", function () {
      window.clearTimeout(self.timer);  // nothing asked after the field is left
      window.setTimeout(function () {
        if (document.activeElement !== field) {
          self.stop();
          self.close();
        }
      }, 150);
    });
    self.list.addEventListener("mousedown", function (event) { event.preventDefault(); });  // keep the focus
    self.list.addEventListener("click", function (event) {
      var option = event.target.closest("[role=option]");
      if (option) {
        self.choose(Number(option.dataset.index));
      }
    });
  }

  Suggester.prototype.later = function () {
    var self = this;
    window.clearTimeout(self.timer);
    self.timer = window.setTimeout(function () { self.ask(); }, DEBOUNCE_MS);
  };

  Suggester.prototype.ask = function () {
    var self = this;
    var token = self.options.token(self.field);
    self.stop();
    if (!token) {
      self.close();
      return;
    }
    self.token = token;
    self.controller = new AbortController();
    var query = "?kind=" + self.options.kind + "&q=" + encodeURIComponent(token.query) + (self.options.extra || "");
    fetch(self.options.url + query, {
      credentials: "same-origin",
      headers: { Accept: "application/json" },
      signal: self.controller.signal
    }).then(function (response) {
      if (!response.ok) {
        throw new Error("suggestions answered " + response.status);
      }
      return response.json();
    }).then(function (found) {
      self.show(found);
    }).catch(function (error) {
      if (error.name !== "AbortError") {
        self.close();  // no suggestions just now: typing goes on as without them
      }
    });
  };

  Suggester.prototype.stop = function () {  // the answer on its way is not wanted any more
    if (this.controller) {
      this.controller.abort();
      this.controller = null;
    }
  };

  Suggester.prototype.show = function (found) {
    var self = this;
    if (document.activeElement !== self.field) {
      return;  // answered after the field was left: a list there would cover what comes next
    }
    self.items = found;
    self.list.textContent = "";
    if (!found.length) {
      self.close();
      return;
    }
    found.forEach(function (item, index) {
      var option = document.createElement("li");
      option.id = self.id + "-" + index;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      option.dataset.index = String(index);
      if (item.colour) {  // a label: its chip in its colour (labels.css), then its description
        var chip = document.createElement("span");
        chip.className = "label label-" + item.colour;
        chip.textContent = item.value;
        option.appendChild(chip);
        option.appendChild(document.createTextNode(item.label.slice(item.value.length)));
      } else {
        option.appendChild(document.createTextNode(item.label));
      }
      self.list.appendChild(option);
    });
    self.list.hidden = false;
    if (self.field.getAttribute("role") === "combobox") {
      self.field.setAttribute("aria-expanded", "true");
    }
    self.status.textContent = found.length + (found.length === 1 ? " suggestion" : " suggestions") +
      ": up and down arrows to choose, Enter to take one.";
    self.highlight(-1);
  };

  Suggester.prototype.open = function () {
    return !this.list.hidden && this.items.length > 0;
  };

  Suggester.prototype.close = function () {
    this.list.hidden = true;
    this.items = [];
    this.active = -1;
    this.field.removeAttribute("aria-activedescendant");
    if (this.field.getAttribute("role") === "combobox") {
      this.field.setAttribute("aria-expanded", "false");
    }
  };

  Suggester.prototype.highlight = function (index) {
    var options = this.list.querySelectorAll("[role=option]");
    this.active = index;
    Array.prototype.forEach.call(options, function (option, at) {
      option.setAttribute("aria-selected", at === index ? "true" : "false");
      option.classList.toggle("ac-active", at === index);
    });
    if (index >= 0) {
      this.field.setAttribute("aria-activedescendant", options[index].id);
      options[index].scrollIntoView({ block: "nearest" });
    } else {
      this.field.removeAttribute("aria-activedescendant");
    }
  };

  Suggester.prototype.key = function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    if (!this.open()) {
      if (event.key === "ArrowDown" && this.field.getAttribute("role") === "combobox") {
        event.preventDefault();
        this.ask();
      }
      return;
    }
    var count = this.items.length;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      var step = event.key === "ArrowDown" ? 1 : -1;
      this.highlight(this.active < 0 ? (step > 0 ? 0 : count - 1) : (this.active + step + count) % count);
    } else if ((event.key === "Enter" || event.key === "Tab") && this.active >= 0) {
      event.preventDefault();  // Enter takes the suggestion; it neither sends the form nor breaks the line
      this.choose(this.active);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      this.close();
    }
  };

  Suggester.prototype.choose = function (index) {
    var item = this.items[index];
    var token = this.token;
    if (!item || !token) {
      return;
    }
    var field = this.field;
    var text = this.options.insert(item);
    field.value = field.value.slice(0, token.start) + text + field.value.slice(token.end);
    var caret = token.start + text.length;
    if (field.setSelectionRange) {
      field.setSelectionRange(caret, caret);
    }
    this.close();
    this.status.textContent = item.value + " chosen.";
    field.focus();
    if (this.options.chosen) {
      this.options.chosen(item);
    }
    field.dispatchEvent(new Event("change", { bubbles: true }));
  };

  function caretBefore(field) {
    var caret = field.selectionStart === null ? field.value.length : field.selectionStart;
    return { caret: caret, before: field.value.slice(0, caret) };
  }

  function mentionToken(field) {
    var at = caretBefore(field);
    var match = MENTION.exec(at.before);
    if (!match) {
      return null;
    }
    return { start: at.caret - match[2].length - 1, end: at.caret, query: match[2] };
  }

  function labelToken(field) {
    var at = caretBefore(field);
    var match = LABEL.exec(at.before);
    if (!match) {
      return null;
    }
    return { start: at.caret - match[2].length, end: at.caret, query: match[2].trim() };
  }

  function assigneeBox(select, url) {
    // The <select> stays (hidden) and holds the choice; the box shows and suggests.
    var box = document.createElement("input");
    var chosen = select.options[select.selectedIndex];
    box.type = "text";
    box.id = select.id + "-box";
    box.className = "ac-box";
    box.setAttribute("role", "combobox");
    box.placeholder = "nobody";
    box.value = chosen ? chosen.value : "";
    var label = select.id && document.querySelector("label[for='" + select.id + "']");
    if (label) {
      label.htmlFor = box.id;
    }
    select.hidden = true;
    select.insertAdjacentElement("afterend", box);
    var typed = false;  // the box was typed in since the choice was last taken from it
    function settle() {  // what is typed counts if it names someone the list offers; else the choice stays
      if (!typed) {
        return;
      }
      typed = false;
      var name = box.value.trim().toLowerCase();
      var found = Array.prototype.find.call(select.options, function (option) {
        return option.value.toLowerCase() === name;
      });
      if (found) {
        select.value = found.value;
      }
      box.value = select.value;
    }
    box.addEventListener("input", function () { typed = true; });
    box.addEventListener("change", settle);
    box.form.addEventListener("submit", settle);  // Enter in the box sends the form before any change event
    select.addEventListener("change", function () { box.value = select.value; });
    return new Suggester(box, {
      url: url,
      kind: "member",
      extra: "&assignable=1",
      token: function (field) { return { start: 0, end: field.value.length, query: field.value.trim() }; },
      insert: function (item) { return item.value; },
      chosen: function (item) {
        typed = false;
        select.value = item.value;
      }
    });
  }

  function labels(field, url) {
    field.setAttribute("role", "combobox");
    return new Suggester(field, {
      url: url,
      kind: "label",
      token: labelToken,
      insert: function (item) { return item.value + ", "; }
    });
  }

  function enhance(form) {
    var url = form.dataset.autocompleteUrl;
    form.querySelectorAll("textarea").forEach(function (box) {
      return new Suggester(box, {
        url: url,
        kind: "member",
        token: mentionToken,
        insert: function (item) { return "@" + item.value + " "; }
      });
    });
    form.querySelectorAll("input[name=labels], [data-autocomplete=label]").forEach(function (field) {
      labels(field, url);
    });
    form.querySelectorAll("select[name=assignee]").forEach(function (select) { assigneeBox(select, url); });
  }

  document.querySelectorAll("form[data-autocomplete-url]").forEach(enhance);
  // A labels box of another form of a team's page (the issue page's quick changes): the team's own URL.
  var team = /^\/t\/[^/]+\//.exec(window.location.pathname);
  if (team) {
    document.querySelectorAll("[data-autocomplete=label]").forEach(function (field) {
      if (!field.closest("form[data-autocomplete-url]")) {
        labels(field, team[0] + "autocomplete/");
      }
    });
  }
}());
