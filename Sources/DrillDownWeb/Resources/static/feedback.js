// DrillDown feedback (editable servers): Undo and Redo say what they do and are disabled when they
// cannot act; after one, a notice says what was undone or redone (and where, when it was another
// page), with the opposite step's button; a row's Play, Ping and other buttons show in the row that
// they worked, or why not. It builds on app.js's drilldownSend and drilldownRefresh, and follows
// the history state the server's answers and /events carry ({canUndo, canRedo, undo, redo}).
(function () {
  "use strict";
  var send = window.drilldownSend, refresh = window.drilldownRefresh;
  var region = document.getElementById("notice-region");
  if (!send || !refresh) return;

  // ---- Undo and Redo buttons ------------------------------------------------------------
  function setButton(id, verb, can, what) {
    var button = document.getElementById(id);
    if (!button) return;
    var label = can ? verb + (what ? " " + what : "") : "Nothing to " + verb.toLowerCase();
    var hadFocus = document.activeElement === button;
    button.disabled = !can;
    button.title = label;
    button.setAttribute("aria-label", label);
    if (hadFocus && !can) {
      var other = document.querySelector("#notice-again, #undo:not([disabled]), #redo:not([disabled])");
      if (other) other.focus();
    }
  }
  // The newest revision whose history is shown: an answer and the stream's events may arrive in
  // either order, and an older state never replaces a newer one.
  var shownRevision = Number((document.querySelector('meta[name="revision"]') || {}).content) || 0;
  function showHistory(history, revision) {
    if (!history || revision < shownRevision) return;
    shownRevision = revision;
    setButton("undo", "Undo", history.canUndo, history.undo);
    setButton("redo", "Redo", history.canRedo, history.redo);
    // A notice whose button can no longer act (a new step cleared what it would redo) goes.
    var again = document.getElementById("notice-again");
    if (again && !(again.textContent === "Redo" ? history.canRedo : history.canUndo)) dismiss(false);
  }
  function follow(event) { if (event.detail) showHistory(event.detail.history, event.detail.revision); }
  document.addEventListener("drilldown:change", follow);
  document.addEventListener("drilldown:hello", follow);

  // ---- The notice after an undo or redo ---------------------------------------------------
  // The level link of this page, as the server writes a step's `href`: a notice about this page
  // does not offer to go to it. The outline and columns show every level: always here.
  function here() {
    var screen = document.body.dataset.screen, path = location.pathname;
    if (screen === "outline" || screen === "columns") return null;
    if (screen === "detail") {
      var parts = path.slice(3).split(".");
      parts.pop();
      return parts.length ? "/l/" + parts.join(".") : "/";
    }
    return path;
  }
  var hideTimer = null;
  function dismiss(returnFocus) {
    var notice = document.getElementById("notice");
    if (!notice) return;
    var focused = notice.contains(document.activeElement);
    notice.remove();
    if (focused || returnFocus) {
      var back = document.querySelector("#undo:not([disabled]), #redo:not([disabled])");
      if (back) back.focus();
    }
  }
  // Hides the notice a while after it appeared, unless the pointer or the focus is in it.
  function scheduleHide() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(function () {
      var notice = document.getElementById("notice");
      if (!notice) return;
      if (notice.matches(":hover") || notice.contains(document.activeElement)) { scheduleHide(); return; }
      dismiss(false);
    }, 8000);
  }
  function hiddenField(name, value) {
    var input = document.createElement("input");
    input.type = "hidden"; input.name = name; input.value = value;
    return input;
  }
  // Shows `text` (and, for a step, where and the opposite step's button) in the polite region.
  function showNotice(text, step, isError) {
    if (!region) return;
    dismiss(false);
    var notice = document.createElement("div");
    notice.className = "notice" + (isError ? " notice-error" : "");
    notice.id = "notice";
    var p = document.createElement("p");
    p.className = "notice-text";
    var sentence = document.createElement("span");
    sentence.id = "notice-sentence";
    sentence.textContent = text;
    p.appendChild(sentence);
    if (step && step.href !== here()) {
      p.appendChild(document.createTextNode(" in " + step.place + " — "));
      var show = document.createElement("a");
      show.href = step.href; show.id = "notice-show"; show.textContent = "Show";
      p.appendChild(show);
    }
    notice.appendChild(p);
    if (step) {
      var again = step.op === "undo" ? "redo" : "undo";
      var form = document.createElement("form");
      form.method = "post"; form.action = "/edit/" + again; form.className = "js-history";
      var token = document.querySelector('meta[name="csrf-token"]');
      form.appendChild(hiddenField("csrf", token ? token.content : ""));
      form.appendChild(hiddenField("back", location.pathname + location.search));
      var button = document.createElement("button");
      button.type = "submit"; button.className = "notice-button"; button.id = "notice-again";
      button.textContent = again === "redo" ? "Redo" : "Undo";
      form.appendChild(button);
      notice.appendChild(form);
    }
    region.appendChild(notice);
    setUpNotice(notice);
  }
  // A notice gets its close button (one the server drew, after a form's undo, too) and goes later.
  function setUpNotice(notice) {
    if (!notice) return;
    if (!notice.querySelector(".notice-close")) {
      var close = document.createElement("button");
      close.type = "button"; close.className = "notice-close"; close.id = "notice-close";
      close.setAttribute("aria-label", "Dismiss"); close.textContent = "×";
      notice.appendChild(close);
    }
    scheduleHide();
  }
  setUpNotice(document.getElementById("notice"));
  if (region) {
    region.addEventListener("click", function (event) {
      if (event.target.closest && event.target.closest(".notice-close")) dismiss(true);
    });
    // Escape closes the notice (and does not go back a page, as Escape elsewhere does).
    region.addEventListener("keydown", function (event) {
      if (event.key !== "Escape") return;
      event.preventDefault();
      event.stopPropagation();
      dismiss(true);
    });
  }

  // Posts the form (as its submitter would) with the script; resolves to the answer's JSON, whose
  // history the buttons show, or fails with the server's message.
  function post(form, submitter) {
    var body = new URLSearchParams(new FormData(form, submitter));
    return send(form.getAttribute("action"), body).then(function (r) {
      return r.json().then(function (json) {
        if (!r.ok) throw new Error(json.error || r.statusText);
        showHistory(json.history, json.revision);
        return json;
      });
    });
  }

  // An undo or redo: answered with what it did and the history now.
  function history(form, submitter) {
    var op = /\/redo$/.test(form.getAttribute("action")) ? "redo" : "undo";
    var wasFocused = document.activeElement;
    return post(form, submitter).then(function (json) {
      return refresh(true).then(function () {
        if (json.step) showNotice((op === "undo" ? "Undid " : "Redid ") + json.step.summary, json.step, false);
        else if (json.changed) showNotice(op === "undo" ? "Undone." : "Redone.", null, false);  // a retry's replayed answer
        else showNotice(op === "undo" ? "Nothing to undo." : "Nothing to redo.", null, false);
        // The notice's own button was pressed (it is gone), or Undo or Redo can do no more: the
        // notice's button takes the focus.
        if (wasFocused && (wasFocused.id === "notice-again" || wasFocused.disabled)) {
          var next = document.getElementById("notice-again");
          if (next) next.focus();
        }
      });
    }).catch(function (error) {
      showNotice(error.message, null, true);
      return refresh(true);
    });
  }
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains("js-history")) return;
    event.preventDefault();
    history(form, event.submitter);
  });

  // ---- A row's buttons: a sign in the row that they worked --------------------------------
  // "Play" → "Played": the sign a button leaves in its row (a label of several words: "Done").
  function pastTense(label) {
    var word = label.replace(/^[^A-Za-z]+/, "").trim();
    if (!/^[A-Za-z]+$/.test(word)) return "Done";
    if (/e$/i.test(word)) return word + "d";
    if (/[^aeiou]y$/i.test(word)) return word.slice(0, -1) + "ied";
    return word + "ed";
  }
  // Signs by row path, put back after every refresh of the page (which draws the rows anew).
  var signs = new Map();
  function rowOf(path) { return document.getElementById("n-" + path); }
  function drawSign(path) {
    var sign = signs.get(path), row = rowOf(path);
    if (!sign || !row) return;
    var old = row.querySelector(".row-sign");
    if (old && old.textContent === sign.text) return;
    if (old) old.remove();
    var span = document.createElement("span");
    span.className = "row-sign" + (sign.error ? " row-sign-error" : "");
    span.setAttribute("role", sign.error ? "alert" : "status");
    span.textContent = sign.text;
    var place = row.querySelector(".row-controls") || row;
    place.insertBefore(span, place.firstChild);
  }
  function setSign(path, text, error) {
    clearTimeout((signs.get(path) || {}).timer);
    var sign = { text: text, error: error };
    sign.timer = setTimeout(function () {
      if (signs.get(path) !== sign) return;
      signs.delete(path);
      var row = rowOf(path), old = row && row.querySelector(".row-sign");
      if (old) old.remove();
    }, error ? 10000 : 4000);
    signs.set(path, sign);
    drawSign(path);
  }
  var main = document.getElementById("main");
  if (main && window.MutationObserver) {
    new MutationObserver(function () { signs.forEach(function (_, path) { drawSign(path); }); }).observe(main, { childList: true, subtree: true });
  }
  // Row buttons and actions (switches, sliders and steppers show their effect themselves; their
  // refusals show in the row too).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !(form.classList.contains("control-form") || form.classList.contains("action-form"))) return;
    var match = /^\/edit\/(?:run|set)\/([0-9.]+)$/.exec(form.getAttribute("action") || "");
    if (!match) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    var path = match[1];
    var button = event.submitter && event.submitter.classList.contains("action-button") ? event.submitter : null;
    post(form, event.submitter).then(function () {
      return refresh(true).then(function () {
        if (button) setSign(path, "✓ " + pastTense(button.textContent), false);
      });
    }).catch(function (error) {
      return refresh(true).then(function () { setSign(path, error.message, true); });
    });
  }, true);
})();
