// DrillDown web app: live search. Progressive enhancement of the search field (the navigation
// bar's on every screen, and the search page's): while typing, a list of matches drops down under
// the field (a WAI-ARIA combobox with a listbox popup), each match with its title (the matched
// part marked) and the titles of its parents. Arrow keys move through it (aria-activedescendant:
// focus stays in the field), Enter opens the chosen match (or, with none chosen, the search page),
// Escape closes the list and clears the field, and "Show more" (or ArrowDown past the last match)
// loads the next page. Requests go 150 ms after the last keystroke and a newer keystroke aborts a
// stale one; each asks the server for one page (limit/offset), never every match.
(function () {
  "use strict";

  var PAGE = 25;

  // A results page sent before its count (the first hits at once) has the count below the list;
  // it belongs in the summary above it.
  function moveCountUp() {
    var total = document.getElementById("summary-total"), counting = document.querySelector("#summary[data-counting]");
    if (total && counting) {
      counting.textContent = total.textContent;
      counting.removeAttribute("data-counting");
      total.remove();
    }
  }

  function countText(n) { return n === 1 ? "1 match" : n.toLocaleString("en-US") + " matches"; }

  // `title` with the first case-insensitive occurrence of `q` in a <mark>.
  function marked(title, q) {
    var span = document.createElement("span");
    span.className = "row-title";
    var at = q ? title.toLowerCase().indexOf(q.toLowerCase()) : -1;
    if (at < 0 || title.toLowerCase().length !== title.length) { span.textContent = title; return span; }
    span.appendChild(document.createTextNode(title.slice(0, at)));
    var mark = document.createElement("mark");
    mark.textContent = title.slice(at, at + q.length);
    span.appendChild(mark);
    span.appendChild(document.createTextNode(title.slice(at + q.length)));
    return span;
  }

  function setUp(input) {
    var form = input.form, out = document.getElementById("search-count");
    if (!form || !window.fetch) return;
    var values = form.querySelector('input[name="values"]');
    var scopeBox = form.querySelector('input[name="in"]');
    var scopePath = form.dataset.scope || "", scopeTitle = form.dataset.scopeTitle || "";
    var scoped = !!(scopeBox && scopeBox.checked);

    // The popup: an optional scope switch, the listbox, and "Show more".
    var popup = document.createElement("div");
    popup.className = "search-popup";
    popup.id = "search-popup";
    popup.hidden = true;
    var scopeBar = null, scopeButtons = [], scopeField = null;
    if (scopePath && !scopeBox) {
      // Carries the narrowing to the search page when the form is sent.
      scopeField = document.createElement("input");
      scopeField.type = "hidden";
      scopeField.name = "in";
      scopeField.value = scopePath;
      form.appendChild(scopeField);
      scopeBar = document.createElement("div");
      scopeBar.className = "search-scope";
      scopeBar.setAttribute("role", "group");
      scopeBar.setAttribute("aria-label", "Search in");
      [["Everywhere", false], ["In " + scopeTitle, true]].forEach(function (pair) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "search-scope-button";
        b.textContent = pair[0];
        b.dataset.scoped = pair[1] ? "1" : "";
        b.addEventListener("mousedown", function (e) { e.preventDefault(); });
        b.addEventListener("click", function () { scoped = pair[1]; showScope(); refresh(); input.focus(); });
        scopeBar.appendChild(b);
        scopeButtons.push(b);
      });
      popup.appendChild(scopeBar);
    }
    var list = document.createElement("ul");
    list.id = "search-listbox";
    list.className = "search-options";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Matches");
    popup.appendChild(list);
    var more = document.createElement("button");
    more.type = "button";
    more.className = "search-more";
    more.id = "search-more";
    more.textContent = "Show more";
    more.hidden = true;
    more.addEventListener("mousedown", function (e) { e.preventDefault(); });
    more.addEventListener("click", function () { load(true); input.focus(); });
    popup.appendChild(more);
    form.classList.add("has-popup");
    form.appendChild(popup);

    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-controls", list.id);
    input.setAttribute("aria-expanded", "false");

    var timer = null, controller = null, asked = null, total = 0, shown = 0, active = -1, loading = false;

    function showScope() {
      scopeButtons.forEach(function (b) { b.setAttribute("aria-pressed", String(!!b.dataset.scoped === scoped)); });
      if (scopeBox) scopeBox.checked = scoped;
      if (scopeField) scopeField.disabled = !scoped;
    }
    showScope();

    function options() { return list.querySelectorAll("[role=option]"); }

    function open(yes) {
      popup.hidden = !yes;
      input.setAttribute("aria-expanded", yes ? "true" : "false");
      if (!yes) setActive(-1);
    }

    function setActive(k) {
      var all = options();
      if (active >= 0 && all[active]) all[active].setAttribute("aria-selected", "false");
      active = k;
      if (k >= 0 && all[k]) {
        all[k].setAttribute("aria-selected", "true");
        input.setAttribute("aria-activedescendant", all[k].id);
        all[k].scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    }

    function option(hit, q, k) {
      var li = document.createElement("li");
      li.setAttribute("role", "option");
      li.id = "search-option-" + k;
      li.className = "search-option";
      li.setAttribute("aria-selected", "false");
      li.dataset.href = hit.href;
      li.dataset.path = hit.path;
      var text = document.createElement("span");
      text.className = "text";
      text.appendChild(marked(hit.title, q));
      var sub = document.createElement("span");
      sub.className = "row-subtitle search-option-path";
      sub.textContent = (hit.parents || []).join(" \u203a ");
      text.appendChild(sub);
      li.appendChild(text);
      if (hit.drills) {
        var chevron = document.createElement("span");
        chevron.className = "chevron";
        chevron.setAttribute("aria-hidden", "true");
        li.appendChild(chevron);
      }
      return li;
    }

    function query() {
      var q = input.value.trim();
      return { q: q, key: q + "\u0000" + !!(values && values.checked) + "\u0000" + (scoped ? scopePath : "") };
    }

    // Asks for the first page of a new query (or, with `next`, the page after those shown).
    function load(next) {
      var now = query();
      if (!next) {
        if (now.key === asked) return;
        asked = now.key;
      } else if (loading || shown >= total) {
        return;
      }
      if (controller) controller.abort();
      controller = null;
      if (!now.q) { out.textContent = ""; list.textContent = ""; more.hidden = true; shown = total = 0; open(false); return; }
      controller = window.AbortController ? new AbortController() : null;
      var offset = next ? shown : 0;
      var url = "/api/search?limit=" + PAGE + "&offset=" + offset + "&q=" + encodeURIComponent(now.q) +
        (values && values.checked ? "&values=1" : "") + (scoped && scopePath ? "&in=" + encodeURIComponent(scopePath) : "");
      loading = true;
      popup.setAttribute("aria-busy", "true");
      fetch(url, { signal: controller ? controller.signal : undefined }).then(function (r) {
        return r.ok ? r.json() : null;
      }).then(function (data) {
        loading = false;
        popup.removeAttribute("aria-busy");
        if (!data || asked !== now.key) return;
        if (!next) { list.textContent = ""; shown = 0; active = -1; input.removeAttribute("aria-activedescendant"); list.dataset.query = now.q; }
        var frag = document.createDocumentFragment();
        data.hits.forEach(function (hit, k) { frag.appendChild(option(hit, now.q, offset + k)); });
        list.appendChild(frag);
        total = data.total;
        shown = offset + data.hits.length;
        out.textContent = countText(total);
        more.hidden = shown >= total;
        more.textContent = "Show more (" + (total - shown).toLocaleString("en-US") + ")";
        if (total === 0) {
          var none = document.createElement("li");
          none.className = "search-none";
          none.setAttribute("role", "option");
          none.setAttribute("aria-disabled", "true");
          none.setAttribute("aria-selected", "false");
          none.id = "search-none";
          none.textContent = "No matches";
          list.appendChild(none);
        }
        open(document.activeElement === input || popup.contains(document.activeElement));
        if (next && active === offset - 1) setActive(offset);
      }).catch(function () { loading = false; popup.removeAttribute("aria-busy"); /* aborted or offline: the next keystroke asks again */ });
    }

    function refresh() { asked = null; load(false); }

    function go(k) {
      var el = options()[k];
      if (el && el.dataset.href) location.href = el.dataset.href;
    }

    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(function () { load(false); }, 150); });
    input.addEventListener("focus", function () { if (input.value.trim() && shown + total > 0 && asked === query().key) open(true); });
    if (values) values.addEventListener("change", refresh);
    if (scopeBox) scopeBox.addEventListener("change", function () { scoped = scopeBox.checked; refresh(); });
    form.addEventListener("focusout", function (e) {
      if (!e.relatedTarget || !form.contains(e.relatedTarget)) open(false);
    });
    list.addEventListener("mousedown", function (e) { e.preventDefault(); });
    list.addEventListener("click", function (e) {
      var el = e.target.closest("[role=option]");
      if (el && el.dataset.href) location.href = el.dataset.href;
    });

    input.addEventListener("keydown", function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      var count = options().length, real = list.querySelectorAll("[data-href]").length;
      if (e.key === "ArrowDown") {
        if (popup.hidden) { if (input.value.trim()) { load(false); if (shown) open(true); } e.preventDefault(); return; }
        e.preventDefault();
        if (active + 1 < real) setActive(active + 1);
        else if (shown < total) load(true);
      } else if (e.key === "ArrowUp") {
        if (popup.hidden) return;
        e.preventDefault();
        setActive(active > 0 ? active - 1 : -1);
      } else if (e.key === "Enter") {
        if (!popup.hidden && active >= 0 && active < count) { e.preventDefault(); go(active); }
        // Otherwise the form goes to the search page with every match.
      } else if (e.key === "Escape") {
        e.stopPropagation();
        if (!popup.hidden || input.value) {
          e.preventDefault();
          input.value = "";
          load(false);
          open(false);
        } else if (document.body.dataset.screen === "search") {
          // An empty field on the search page: back to where the search started.
          var back = document.getElementById("back");
          if (back) back.click();
        } else {
          input.blur();
        }
      }
    });
  }

  moveCountUp();
  var field = document.getElementById("search");
  if (field) setUp(field);
})();
