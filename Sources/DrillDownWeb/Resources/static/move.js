// DrillDown's Move… destination picker as a dialog. Every Move… link (a row's, the outline's
// and columns' edit tools, the outline's selection) opens GET /move/… — the picker page that
// also works without script — inside a modal <dialog>: links and search forms inside it load
// the next picker page into the dialog, Move Here posts the page's own form, and a refused move
// comes back as the picker at the same place with the message (the server renders it).
// Arrow keys move through the destinations, Enter opens one, Left goes up a level, Escape
// closes; the focus stays in the dialog and returns to the Move… link afterwards.
(function () {
  "use strict";

  var dialog = null;
  var opener = null;
  var loading = 0;

  function isPickerURL(url) { return url.origin === location.origin && /^\/move(\/|$)/.test(url.pathname); }

  function make() {
    if (dialog) return dialog;
    dialog = document.createElement("dialog");
    dialog.id = "move-dialog";
    dialog.className = "move-dialog";
    dialog.setAttribute("aria-labelledby", "move-heading");
    dialog.addEventListener("click", onClick);
    dialog.addEventListener("submit", onSubmit);
    dialog.addEventListener("keydown", onKey);
    dialog.addEventListener("close", function () {
      dialog.textContent = "";
      if (opener && document.contains(opener)) opener.focus();
      opener = null;
    });
    document.body.appendChild(dialog);
    return dialog;
  }

  // Shows the picker page `html` in the dialog; focuses the first destination (or the message).
  function show(html, focusPath) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var picker = doc.getElementById("move-picker");
    if (!picker) { location.href = dialog.dataset.url; return; }
    var close = document.createElement("button");
    close.type = "button"; close.className = "picker-close"; close.id = "move-close";
    close.setAttribute("aria-label", "Close"); close.textContent = "✕";
    dialog.textContent = "";
    picker = document.importNode(picker, true);
    picker.insertBefore(close, picker.firstChild);
    dialog.appendChild(picker);
    if (!dialog.open) dialog.showModal();
    var target = picker.querySelector("details[open] #move-to") ||
      (focusPath && picker.querySelector('.picker-row[data-path="' + focusPath + '"]')) ||
      picker.querySelector(".picker-row") || picker.querySelector("#move-here:not([disabled])") || picker.querySelector("#picker-search");
    if (target) target.focus();
  }

  function load(url, focusPath) {
    var ticket = ++loading;
    dialog.dataset.url = url;
    dialog.setAttribute("aria-busy", "true");
    return fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } }).then(function (r) {
      return r.text().then(function (text) { return { ok: r.ok || r.status === 400, text: text }; });
    }).then(function (answer) {
      if (ticket !== loading) return;
      dialog.removeAttribute("aria-busy");
      if (!answer.ok) { location.href = url; return; }
      show(answer.text, focusPath);
    }).catch(function () { if (ticket === loading) location.href = url; });
  }

  function open(url, from) {
    opener = from || document.activeElement;
    make();
    load(url);
  }

  function onClick(event) {
    var target = event.target;
    if (target.closest("#move-close, #move-cancel")) { event.preventDefault(); dialog.close(); return; }
    var link = target.closest("a[href]");
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    var url = new URL(link.href, location.href);
    if (!isPickerURL(url)) return;
    event.preventDefault();
    var back = link.id === "picker-up" ? dialog.querySelector(".picker-place") : null;
    load(url.href, back ? currentPath() : null);
  }

  // The TreePath of the level shown, so going up focuses the row we came from.
  function currentPath() {
    var to = dialog.querySelector('#move-here-form input[name="to"]');
    return to ? to.value : null;
  }

  function onSubmit(event) {
    var form = event.target;
    event.preventDefault();
    var data = new URLSearchParams(new FormData(form));
    if ((form.getAttribute("method") || "get").toLowerCase() === "get") {
      var url = new URL(form.getAttribute("action"), location.href);
      url.search = data.toString();
      load(url.href);
      return;
    }
    var button = form.querySelector("#move-here");
    if (button) button.disabled = true;
    fetch(form.getAttribute("action"), {
      method: "POST", credentials: "same-origin", body: data,
      headers: { Accept: "text/html", "Content-Type": "application/x-www-form-urlencoded" },
    }).then(function (r) {
      if (r.redirected || (r.ok && r.url && !isPickerURL(new URL(r.url)))) {
        dialog.close();
        location.href = r.url;
        return;
      }
      return r.text().then(function (text) {
        if (r.status === 400) { show(text); return; }
        // Another refusal (a stale session, a conflict): its page's message, in the dialog.
        var page = new DOMParser().parseFromString(text, "text/html").querySelector(".error-message");
        failed(form, page ? page.textContent : "The move failed (" + r.status + "). Try again.");
      });
    }).catch(function () { failed(form, "The server could not be reached. Try again."); });
  }

  function failed(form, message) {
    var p = dialog.querySelector("#move-error");
    if (!p) {
      p = document.createElement("p");
      p.id = "move-error"; p.className = "form-error picker-error"; p.setAttribute("role", "alert");
      form.insertBefore(p, form.firstChild);
    }
    p.textContent = message;
    var button = form.querySelector("#move-here");
    if (button) { button.disabled = false; button.focus(); }
  }

  // Tab stays in the dialog; arrows move through the destinations; Left goes up a level. The
  // page's own keys (app.js: arrows through its list, Escape and Left go back) stay out.
  function onKey(event) {
    event.stopPropagation();
    if (event.key !== "Tab") { rowKeys(event, dialog); return; }
    var all = Array.prototype.filter.call(dialog.querySelectorAll("a[href], button:not([disabled]), input:not([type=hidden]), select, summary"),
      function (el) { return el.offsetParent !== null && !el.closest("details:not([open]) > :not(summary)"); });
    if (!all.length) return;
    var first = all[0], last = all[all.length - 1];
    if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
    else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
  }

  // The keys of a destination row in `root` (the dialog, or the picker page).
  function rowKeys(event, root) {
    var row = event.target.closest && event.target.closest(".picker-row");
    if (!row) return false;
    var rows = Array.prototype.slice.call(root.querySelectorAll(".picker-row"));
    var i = rows.indexOf(row);
    var next = null;
    if (event.key === "ArrowDown") next = rows[Math.min(i + 1, rows.length - 1)];
    else if (event.key === "ArrowUp") next = i > 0 ? rows[i - 1] : root.querySelector("#picker-up") || root.querySelector("#picker-search");
    else if (event.key === "Home") next = rows[0];
    else if (event.key === "End") next = rows[rows.length - 1];
    else if (event.key === "ArrowRight" && row.href) { event.preventDefault(); row.click(); return true; }
    else if (event.key === "ArrowLeft" || event.key === "Backspace") {
      var up = root.querySelector("#picker-up");
      if (up) { event.preventDefault(); up.click(); }
      return true;
    }
    if (!next) return false;
    event.preventDefault();
    next.focus();
    next.scrollIntoView({ block: "nearest" });
    return true;
  }

  // Every Move… link on the page opens the dialog instead of the picker page.
  document.addEventListener("click", function (event) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    var link = event.target.closest && event.target.closest("a[href]");
    if (!link || (dialog && dialog.contains(link)) || document.body.dataset.screen === "move") return;
    var url = new URL(link.href, location.href);
    if (!isPickerURL(url) || typeof HTMLDialogElement === "undefined") return;
    event.preventDefault();
    event.stopPropagation();
    open(url.href, link);
  }, true);

  // On the picker page itself (no dialog) the same keys move through the destinations.
  document.addEventListener("keydown", function (event) {
    if (document.body.dataset.screen !== "move" || !(event.target.closest && event.target.closest(".picker-row"))) return;
    if (rowKeys(event, document)) event.stopPropagation();
  }, true);
})();
