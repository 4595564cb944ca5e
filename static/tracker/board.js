// The board (templates/tracker/board.html): drag a card to another column, or press one of its buttons,
// and the move is posted with the card's own form (n, v, to) and Accept: application/json, without
// leaving the page. The card goes to its new column at once; if the server refuses (the issue changed
// since the board was loaded, or the workflow forbids the move) its 409 says where the issue is now
// (`current`: status, version, moves): the card goes to that column with that version and those moves,
// so the next move is not refused again, and the status line (aria-live) says why. When no answer
// comes (a dropped connection, or a server error) the move may or may not have been saved: the card
// goes back where the board last knew it and the status line says so, with a link to reload the board.
// Signed out meanwhile (the session expired, or ended in another tab), the answer is the login page (a
// redirect, followed): nothing was moved, and the status line says so, with a link to sign in again.
// Only the columns the workflow allows accept a dropped card.
// Without JavaScript the buttons post the same form and the server sends the board back.
"use strict";
(function () {
  var board = document.querySelector("[data-board]");
  var status = document.getElementById("board-status");
  if (!board || !status) { return; }
  var help = document.querySelector("[data-drag-help]");
  if (help) { help.hidden = false; }
  var dragged = null;

  function say(text, refused) {
    status.textContent = text;
    status.classList.toggle("refused", Boolean(refused));
  }
  function columnOf(node) { return node.closest("[data-column]"); }
  function columnFor(to) { return board.querySelector('[data-column="' + to + '"]'); }
  function movesOf(card) { return (card.dataset.moves || "").split(" ").filter(Boolean); }
  function labelOf(to) { var column = columnFor(to); return column ? column.dataset.label : to; }

  function settle(column, delta) {
    var count = column.querySelector("[data-count]");
    if (count && delta) {  // "25+" (more on later pages) stays "26+"
      var more = /\+$/.test(count.textContent) ? "+" : "";
      count.textContent = String(Math.max(0, parseInt(count.textContent, 10) + delta)) + more;
    }
    var empty = column.querySelector("[data-empty]");
    if (empty) { empty.hidden = column.querySelectorAll("[data-card]").length > 0; }
  }

  function rebuildButtons(card, moves) {
    var form = card.querySelector("form.moves");
    form.querySelectorAll("button").forEach(function (button) { button.remove(); });
    moves.forEach(function (to) {
      var button = document.createElement("button");
      button.type = "submit";
      button.name = "to";
      button.value = to;
      button.textContent = labelOf(to);
      button.setAttribute("aria-label", "Move " + card.dataset.ref + " to " + labelOf(to));
      button.title = button.getAttribute("aria-label");
      form.appendChild(document.createTextNode(" "));
      form.appendChild(button);
    });
  }

  function move(card, to) {
    var from = columnOf(card);
    var target = columnFor(to);
    if (!target || target === from || card.classList.contains("moving")) { return; }
    var form = card.querySelector("form.moves");
    var data = new FormData(form);
    data.set("to", to);
    var home = card.parentNode;
    var next = card.nextElementSibling;
    var list = target.querySelector("[data-cards]");
    list.insertBefore(card, list.firstElementChild);
    settle(from, -1);
    settle(target, +1);
    card.classList.remove("snapped");
    card.classList.add("moving");
    card.setAttribute("aria-busy", "true");
    say("Moving " + card.dataset.ref + " to " + labelOf(to) + "…");

    function back(message) {
      home.insertBefore(card, next && next.parentNode === home ? next : null);
      settle(target, -1);
      settle(from, +1);
      card.classList.add("snapped");
      say(message, true);
    }
    function keep(version, moves) {  // the card now stands for this version of the issue
      form.querySelector("[data-version]").value = String(version);
      card.dataset.moves = moves.join(" ");
      rebuildButtons(card, moves);
    }
    function now(current, message) {  // refused: the card goes where the issue is now, as it is now
      var column = current ? columnFor(current.status) : null;
      if (!column) {  // deleted, or a status this board has no column for
        card.remove();
        settle(target, -1);
        say(message, true);
        return;
      }
      if (column === from) {
        back(message);
      } else {
        if (column !== target) {
          var list = column.querySelector("[data-cards]");
          list.insertBefore(card, list.firstElementChild);
          settle(target, -1);
          settle(column, +1);
        }
        card.classList.toggle("snapped", current.status !== to);  // already there: no refusal to show
        say(message, current.status !== to);
      }
      keep(current.version, current.moves || []);
    }
    function unsure(why) {  // no answer: the server may have saved the move or not
      back("");
      status.textContent = card.dataset.ref + " may or may not have been moved to " + labelOf(to) + " (" + why +
        "); its card is shown where it was. ";
      var reload = document.createElement("a");
      reload.href = window.location.href;
      reload.textContent = "Reload the board";
      status.appendChild(reload);
      status.appendChild(document.createTextNode(" to see where it is."));
    }
    function done() {
      card.classList.remove("moving");
      card.removeAttribute("aria-busy");
    }
    function signedOut(login) {  // the move never reached the board's view: nothing was moved
      back("You are signed out: " + card.dataset.ref + " was not moved. ");
      var again = new URL(login, window.location.href);
      again.search = new URLSearchParams({ next: window.location.pathname + window.location.search }).toString();
      var link = document.createElement("a");
      link.href = again.pathname + again.search;
      link.textContent = "Sign in again";
      status.appendChild(link);
      status.appendChild(document.createTextNode(", then move it again."));
    }

    fetch(form.action, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { Accept: "application/json" },
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (answer) {
        done();
        if (response.redirected && /\/login\/$/.test(new URL(response.url).pathname)) {  // signed out
          signedOut(response.url);
        } else if (response.ok && answer.status === to) {
          keep(answer.version, answer.moves);
          say(answer.message);
        } else if (response.status === 409 && answer.message) {
          now(answer.current, answer.message);
        } else if (response.status >= 400 && response.status < 500) {  // not understood, not allowed: not saved
          back(answer.message || "The move was refused (" + response.status + "); nothing was moved. Reload the board.");
        } else {  // a server error: it may have failed before the move was saved or after
          unsure("the server answered " + response.status);
        }
      });
    }, function () {
      done();
      unsure("no answer came: check the connection");
    });
  }

  board.addEventListener("submit", function (event) {
    var form = event.target.closest("form.moves");
    var button = event.submitter;
    if (!form || !button || button.name !== "to") { return; }
    event.preventDefault();
    var card = form.closest("[data-card]");
    move(card, button.value);
    var title = card.querySelector(".card-title a");
    if (title) { title.focus(); }  // its buttons are rebuilt: keep the keyboard on the card
  });

  board.addEventListener("dragstart", function (event) {
    var card = event.target.closest && event.target.closest("[data-card][draggable=true]");
    if (!card) { return; }
    dragged = card;
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", card.dataset.ref);
    card.classList.add("dragging");
  });

  board.addEventListener("dragend", function () {
    if (dragged) { dragged.classList.remove("dragging"); }
    dragged = null;
    board.querySelectorAll(".drop-ok").forEach(function (column) { column.classList.remove("drop-ok"); });
  });

  function allowed(column) {
    return dragged && column && column !== columnOf(dragged) && movesOf(dragged).indexOf(column.dataset.column) >= 0;
  }

  board.addEventListener("dragenter", function (event) {
    var column = columnOf(event.target);
    if (!dragged || !column || column === columnOf(dragged)) { return; }
    if (allowed(column)) {
      column.classList.add("drop-ok");
    } else {
      say(dragged.dataset.ref + " cannot move from " + columnOf(dragged).dataset.label + " to " + column.dataset.label + ".");
    }
  });

  board.addEventListener("dragover", function (event) {
    var column = columnOf(event.target);
    if (allowed(column)) {
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
    }
  });

  board.addEventListener("dragleave", function (event) {
    var column = columnOf(event.target);
    if (column && !column.contains(event.relatedTarget)) { column.classList.remove("drop-ok"); }
  });

  board.addEventListener("drop", function (event) {
    var column = columnOf(event.target);
    if (!allowed(column)) { return; }
    event.preventDefault();
    column.classList.remove("drop-ok");
    move(dragged, column.dataset.column);
  });
})();
