// DrillDown web app: progressive enhancement only. Every screen works without this script.
// Adds: keyboard navigation, copy buttons for paths, the outline as one virtualized WAI-ARIA tree
// (expand/collapse in place), a virtualized list for large levels (at most ~200 row elements in the
// DOM, whatever the size), and on editable servers: posting forms in the background, the Add and
// Rename dialogs, the outline's and columns' edit tools, moving rows by drag or Alt+arrows, and
// live updates.
(function () {
  "use strict";
  // The facet panel is a disclosure: open beside the list on wide screens, closed on phones.
  var facets = document.getElementById('facets');
  if (facets && window.matchMedia && window.matchMedia('(max-width: 899px)').matches) facets.open = false;

  var screen = document.body.dataset.screen;

  function isTyping(target) {
    return target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT" || target.isContentEditable);
  }

  // ---- Items that arrow keys move between -------------------------------------------------
  function items() {
    var root = document.querySelector("#rows, #tree, #results");
    if (screen === "columns") {
      var active = document.activeElement && document.activeElement.closest(".column");
      var columns = document.querySelectorAll(".column");
      root = active || columns[Math.max(0, columns.length - (document.querySelector(".column-detail") ? 2 : 1))];
    }
    return root ? Array.prototype.slice.call(root.querySelectorAll("a.cell, #tree [role=treeitem]")) : [];
  }

  function focusItem(el) {
    if (!el) return;
    el.focus();
    el.scrollIntoView({ block: "nearest" });
  }

  function goBack() {
    var back = document.getElementById("back") || document.getElementById("fields-cancel");
    if (back) back.click(); else if (history.length > 1) history.back();
  }

  // ---- The Path menu: copy buttons, Escape and a click elsewhere close it ------------------
  // Each .path-item[data-copy] gets a Copy button that copies the path's syntax (a title path
  // keeps its escapes, AC\/DC, while the menu shows the titles as they read).
  function setUpPathMenu() {
    var menu = document.getElementById("path-menu");
    if (!menu) return;
    Array.prototype.forEach.call(menu.querySelectorAll(".path-item[data-copy]"), function (item) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "button copy-button";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy " + item.getAttribute("data-copy-name"));
      if (!item.getAttribute("data-copy")) button.disabled = true;
      button.addEventListener("click", function () {
        var text = item.getAttribute("data-copy");
        var done = function () { button.textContent = "Copied"; setTimeout(function () { button.textContent = "Copy"; }, 1200); };
        if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(text).then(done, done); return; }
        var scratch = document.createElement("textarea");
        scratch.value = text;
        scratch.setAttribute("readonly", "");
        scratch.className = "visually-hidden";
        item.appendChild(scratch);
        scratch.select();
        try { document.execCommand("copy"); } catch (e) { /* the text stays selectable in the menu */ }
        scratch.remove();
        button.focus();
        done();
      });
      item.querySelector(".path-label").after(button);
    });
    var input = document.getElementById("tree-path");
    if (input) input.addEventListener("focus", function () { input.select(); });
    menu.addEventListener("toggle", function () {
      if (menu.open) { var go = document.getElementById("go-path"); if (go && !("ontouchstart" in window)) go.focus(); }
    });
    menu.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && menu.open) {
        e.preventDefault();
        e.stopPropagation();
        menu.open = false;
        document.getElementById("path-summary").focus();
      }
    });
    document.addEventListener("click", function (e) { if (menu.open && !menu.contains(e.target)) menu.open = false; });
  }

  // After a live refresh: the Path menu's paths as the fresh page has them (a rename or a move
  // changes them), keeping the menu open or closed and its Copy buttons.
  function syncPathMenu(doc) {
    var items = document.querySelectorAll("#path-menu .path-item"), fresh = doc.querySelectorAll("#path-menu .path-item");
    if (items.length !== fresh.length) return;
    Array.prototype.forEach.call(items, function (item, i) { item.setAttribute("data-copy", fresh[i].getAttribute("data-copy")); });
    ["download-csv", "download-opml"].forEach(function (id) {
      var link = doc.getElementById(id), mine = document.getElementById(id);
      if (link && mine) mine.setAttribute("href", link.getAttribute("href"));
    });
    var treePath = doc.getElementById("tree-path"), titles = doc.getElementById("title-path");
    if (treePath) document.getElementById("tree-path").value = treePath.value;
    if (titles) {
      var mine = document.getElementById("title-path");
      mine.innerHTML = titles.innerHTML;
      mine.setAttribute("data-path", titles.getAttribute("data-path"));
      mine.title = titles.title;
    }
  }

  // ---- Dates in the reader's locale ----------------------------------------------------------
  // The server writes <time datetime="2026-11-27T19:10:33Z">2026-11-27 19:10</time> (UTC); the
  // reader's language and time zone show it as they write dates.
  function formatTimes(root) {
    if (!window.Intl || !Intl.DateTimeFormat) return;
    Array.prototype.forEach.call(root.querySelectorAll("time[datetime]"), function (el) {
      var iso = el.getAttribute("datetime"), dateOnly = /^\d{4}-\d\d-\d\d$/.test(iso);
      var date = new Date(dateOnly ? iso + "T00:00:00Z" : iso);
      if (isNaN(date.getTime())) return;
      var options = dateOnly ? { dateStyle: "medium", timeZone: "UTC" } : { dateStyle: "medium", timeStyle: "short" };
      el.textContent = new Intl.DateTimeFormat(undefined, options).format(date);
      el.title = iso;
    });
  }

  // ---- TreePaths -------------------------------------------------------------------------
  // A TreePath as text ("3.0.1", "" for the root) and as an array of row numbers.
  function pathArray(text) { return text ? text.split(".").map(Number) : []; }
  function pathText(array) { return array.join("."); }
  function parentPath(text) { return pathText(pathArray(text).slice(0, -1)); }
  function lastIndex(text) { var a = pathArray(text); return a.length ? a[a.length - 1] : 0; }
  function comparePaths(a, b) {
    var x = pathArray(a), y = pathArray(b);
    for (var k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k] - y[k];
    return x.length - y.length;
  }
  function startsWith(path, prefix) { return path.length >= prefix.length && prefix.every(function (v, k) { return path[k] === v; }); }
  // Where `path` is after the node at `from` moved to `to` (its new path, counted after it left).
  function remapAfterMove(text, from, to) {
    var p = pathArray(text), f = pathArray(from), t = pathArray(to);
    if (startsWith(p, f)) return pathText(t.concat(p.slice(f.length)));
    var k = f.length - 1;
    if (p.length > k && startsWith(p, f.slice(0, k)) && p[k] > f[k]) p[k] -= 1;
    k = t.length - 1;
    if (p.length > k && startsWith(p, t.slice(0, k)) && p[k] >= t[k]) p[k] += 1;
    return pathText(p);
  }

  // ---- Outline state: the URL's open=… or all=1&closed=…, as the server reads it -----------
  function OutlineState(query) {
    var params = new URLSearchParams(query || "");
    this.all = params.get("all") === "1";
    var list = params.get(this.all ? "closed" : "open");
    this.paths = list ? list.split(",").filter(Boolean) : [];
  }
  OutlineState.prototype.query = function () {
    var sorted = this.paths.slice().sort(comparePaths).filter(function (p, k, a) { return k === 0 || a[k - 1] !== p; });
    if (this.all) return sorted.length ? "all=1&closed=" + sorted.join(",") : "all=1";
    return sorted.length ? "open=" + sorted.join(",") : "";
  };
  OutlineState.prototype.copy = function () { var c = new OutlineState(""); c.all = this.all; c.paths = this.paths.slice(); return c; };
  // This state with `path` expanded (open) or collapsed.
  OutlineState.prototype.setting = function (path, open) {
    var next = this.copy(), listed = open !== this.all;
    next.paths = next.paths.filter(function (p) { return p !== path; });
    if (listed) next.paths.push(path);
    return next;
  };
  OutlineState.prototype.href = function (extra) {
    var parts = [this.query()].concat(extra || []).filter(Boolean);
    return parts.length ? "/outline?" + parts.join("&") : "/outline";
  };

  // ---- Outline: one virtualized WAI-ARIA tree over every visible row -----------------------
  // At most ~60 row elements exist whatever is expanded: rows are fetched a window at a time from
  // /api/outline (the state travels with each request) and placed by index. Expanding or
  // collapsing changes only the rows after the toggled one, so the rows above stay cached and the
  // window is fetched again. The URL keeps the state and the first visible row (?offset=N),
  // so a reload comes back to the same place.
  function setUpVirtualTree(tree) {
    var state = new OutlineState(tree.dataset.state);
    var editing = tree.classList.contains("editing");
    var total = Number(tree.dataset.total), pageSize = 100, overscan = 15, maxHeight = 8000000;
    var rowHeight = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--row-h")) || 56;
    var scale = 1;
    var cache = new Map(), rendered = new Map(), pending = new Map();
    var generation = 0, focusWanted = null;
    var active = tree.dataset.focus || null;        // the roving tab stop's path
    var selected = editing ? tree.dataset.focus || null : null;
    // Edit mode's selection: every chosen row (Shift- and Ctrl/Cmd-click, Shift+arrows), with
    // `selected` the one chosen last (the URL's focus=) and `anchor` where a range starts.
    var chosen = new Set(selected ? [selected] : []), anchor = selected;
    // Outside Edit mode: the leaf whose detail was opened (the URL keeps it, so Back focuses it).
    var opened = editing ? null : tree.dataset.focus || null;
    if (editing) tree.setAttribute("aria-multiselectable", "true");
    var navbar = document.querySelector(".navbar");
    var count = document.getElementById("outline-count");

    function rowFromElement(li) {
      var cell = li.querySelector('[role="treeitem"]');
      var subtitle = li.querySelector(".row-subtitle");
      var disclosure = li.querySelector("a.disclosure");
      return {
        path: li.dataset.path, title: li.querySelector(".row-title").textContent,
        subtitle: subtitle ? subtitle.textContent : null, depth: Number(cell.getAttribute("aria-level")),
        children: disclosure ? 1 : 0, expanded: cell.getAttribute("aria-expanded") === "true",
        setSize: Number(cell.getAttribute("aria-setsize")), position: Number(cell.getAttribute("aria-posinset")),
        href: !editing && cell.tagName === "A" ? cell.getAttribute("href") : null
      };
    }
    var first = Number(tree.dataset.offset) || 0;
    Array.prototype.forEach.call(tree.querySelectorAll("li.treeitem"), function (li, k) { cache.set(first + k, rowFromElement(li)); });
    tree.textContent = "";
    tree.classList.add("virtual");
    var pager = document.getElementById("pager");
    if (pager) pager.hidden = true;

    function resize() {
      scale = Math.min(1, maxHeight / Math.max(1, total * rowHeight));
      tree.style.height = Math.round(total * rowHeight * scale) + "px";
      tree.dataset.total = String(total);
      if (count) count.textContent = total.toLocaleString("en-US") + " rows";
    }

    // A fetched row is the server's outline row template (RowHTML.treeTemplate) filled in.
    var template = document.getElementById("treeitem-template");
    function makeRow(row, index) {
      var li = template.content.firstElementChild.cloneNode(true);
      li.classList.add("d" + Math.min(row.depth, 16));
      if (chosen.has(row.path)) li.classList.add("focused");
      li.id = "n-" + row.path;
      li.dataset.path = row.path;
      li.dataset.index = String(index);
      var toggle = li.querySelector(".disclosure");
      if (row.children > 0) {
        if (row.expanded) toggle.classList.add("open");
        toggle.setAttribute("href", state.setting(row.path, !row.expanded).href(editing ? ["edit=1"] : []) + "#n-" + row.path);
      } else {
        toggle.removeAttribute("href");
        toggle.classList.add("leaf");
      }
      var href = editing ? state.href(["edit=1", "focus=" + row.path]) + "#n-" + row.path : row.href;
      var cell = li.querySelector(".cell");
      if (href) cell.setAttribute("href", href);
      else { cell.removeAttribute("href"); cell.setAttribute("aria-disabled", "true"); li.classList.add("disabled"); }
      cell.setAttribute("aria-level", String(row.depth));
      cell.setAttribute("aria-setsize", String(row.setSize));
      cell.setAttribute("aria-posinset", String(row.position || lastIndex(row.path) + 1));
      if (row.children > 0) cell.setAttribute("aria-expanded", row.expanded ? "true" : "false");
      cell.setAttribute("aria-selected", chosen.has(row.path) ? "true" : "false");
      li.querySelector(".row-title").textContent = row.title;
      var subtitle = li.querySelector(".row-subtitle");
      if (row.subtitle) subtitle.textContent = row.subtitle; else subtitle.remove();
      return li;
    }

    function fetchPage(page) {
      if (pending.get(page) === generation) return;
      var asked = generation;
      pending.set(page, asked);
      var url = "/api/outline?" + [state.query(), "offset=" + page * pageSize, "limit=" + pageSize].filter(Boolean).join("&");
      fetch(url).then(function (r) { return r.json(); }).then(function (data) {
        if (pending.get(page) === asked) pending.delete(page);
        if (asked !== generation) return;
        if (data.total !== total) { total = data.total; resize(); }
        (data.rows || []).forEach(function (row, k) { cache.set(page * pageSize + k, row); });
        // A row selected before it was fetched (a row just added) gets its title in the edit tools.
        var named = document.getElementById("edit-selected-title");
        if (editing && chosen.size === 1 && named && named.textContent === selected) updateEditTools();
        if (cache.size > 4000) {
          var drop = cache.size - 4000, it = cache.keys();
          while (drop-- > 0) cache.delete(it.next().value);
        }
        render();
      }).catch(function () { if (pending.get(page) === asked) pending.delete(page); });
    }

    function listTop() { return tree.getBoundingClientRect().top + window.scrollY; }
    function navHeight() { return navbar ? navbar.offsetHeight : 0; }
    // Past ~140 000 rows the list is drawn scaled down (browsers cap an element's height): the
    // scroll range then maps linearly onto the first rows, so the end of the range shows the
    // last rows exactly, and the window is drawn around the viewport.
    function scaled() {
      var maxPos = Math.max(1, total * rowHeight * scale - window.innerHeight);
      return { maxPos: maxPos, maxFirst: Math.max(0, total - window.innerHeight / rowHeight) };
    }
    function windowRange() {
      var pos = Math.max(0, window.scrollY - listTop()), exact;
      if (scale === 1) exact = pos / rowHeight;
      else { var m = scaled(); pos = Math.min(pos, m.maxPos); exact = pos / m.maxPos * m.maxFirst; }
      exact = Math.min(Math.max(0, total - 1), exact);
      var firstRow = Math.floor(exact);
      var visible = Math.ceil(window.innerHeight / rowHeight) + 1;
      return { pos: pos, exact: exact, first: firstRow, frac: exact - firstRow, from: Math.max(0, firstRow - overscan), to: Math.min(total, firstRow + visible + overscan) };
    }
    // Where row i is drawn, from the list's top.
    function rowTop(i, w) { return scale === 1 ? i * rowHeight : w.pos + (i - w.exact) * rowHeight; }
    // The first row not hidden under the navigation bar: what the URL keeps.
    function firstVisible() {
      var w = windowRange(), below = window.scrollY + navHeight() - listTop() - rowTop(w.first, w);
      return Math.max(0, Math.min(total - 1, Math.floor(w.first + below / rowHeight + 0.5)));
    }

    function render() {
      var w = windowRange();
      rendered.forEach(function (el, i) {
        if (i < w.from || i >= w.to) { el.remove(); rendered.delete(i); }
      });
      for (var i = w.from; i < w.to; i++) {
        var top = rowTop(i, w);
        var el = rendered.get(i);
        if (!el) {
          var row = cache.get(i);
          if (!row) { fetchPage(Math.floor(i / pageSize)); continue; }
          el = makeRow(row, i);
          rendered.set(i, el);
          var next = null;
          for (var j = i + 1; j < w.to && !next; j++) next = rendered.get(j) || null;
          tree.insertBefore(el, next);
        }
        el.style.top = Math.round(top) + "px";
      }
      // Roving tabindex: one tab stop, on the active row when it is rendered, else the first.
      var stop = null;
      rendered.forEach(function (el) { if (el.dataset.path === active) stop = el; });
      if (!stop) stop = tree.firstElementChild;
      Array.prototype.forEach.call(tree.children, function (el) {
        var c = el.querySelector('[role="treeitem"]');
        if (c) c.tabIndex = el === stop ? 0 : -1;
      });
      if (focusWanted !== null && rendered.has(focusWanted)) {
        var cell = rendered.get(focusWanted).querySelector('[role="treeitem"]');
        focusWanted = null;
        if (cell) { active = cell.parentNode.dataset.path; cell.tabIndex = 0; cell.focus({ preventScroll: true }); }
      }
    }

    // Scrolls so row i sits just under the navigation bar (or at the bottom of the viewport).
    function scrollToIndex(i, align) {
      var off = align === "bottom" ? window.innerHeight - rowHeight - 8 : navHeight() + 8, y;
      if (scale === 1) y = listTop() + i * rowHeight - off;
      else {
        var m = scaled(), e = Math.max(0, i - off / rowHeight);
        y = listTop() + Math.min(1, e / Math.max(1, m.maxFirst)) * m.maxPos;
      }
      window.scrollTo(0, Math.max(0, y));
    }

    function focusIndex(i) {
      i = Math.max(0, Math.min(total - 1, i));
      var el = rendered.get(i), rect = el && el.getBoundingClientRect();
      var navBottom = navbar ? navbar.getBoundingClientRect().bottom : 0;
      if (!el || rect.top < navBottom) scrollToIndex(i, "top");
      else if (rect.bottom > window.innerHeight) scrollToIndex(i, "bottom");
      focusWanted = i;
      render();
    }

    var urlTimer = null;
    function saveURL() {
      clearTimeout(urlTimer);
      urlTimer = setTimeout(function () {
        var at = firstVisible();
        var extra = [editing ? "edit=1" : "", selected || opened ? "focus=" + (selected || opened) : "", at > 0 ? "offset=" + at : ""];
        history.replaceState(null, "", state.href(extra));
      }, 250);
    }

    // Refetches the window (the rows at and above `keep` stay cached) after the state or the data changed.
    function reload(keep) {
      // The focused row keeps the focus when it is drawn again (a change made elsewhere, or here).
      var had = tree.contains(document.activeElement) && document.activeElement.closest("li[data-index]");
      if (had && (keep === undefined || Number(had.dataset.index) > keep)) focusWanted = Number(had.dataset.index);
      generation += 1;
      pending.clear();
      Array.from(cache.keys()).forEach(function (i) { if (keep === undefined || i > keep) cache.delete(i); });
      rendered.forEach(function (el, i) { if (keep === undefined || i > keep) { el.remove(); rendered.delete(i); } });
      var w = windowRange();
      for (var p = Math.floor(w.from / pageSize); p * pageSize < Math.max(w.to, w.from + 1); p++) fetchPage(p);
      render();
    }

    function toggle(index, expand) {
      var row = cache.get(index);
      if (!row || row.children === 0 || row.expanded === expand) return;
      state = state.setting(row.path, expand);
      row.expanded = expand;
      var el = rendered.get(index);
      if (el && el.contains(document.activeElement)) focusWanted = index;
      if (el) { el.remove(); rendered.delete(index); }
      reload(index);
      saveURL();
    }

    // The row of `path`: from the cache when it is there, else asked of the server.
    function rowOf(path) {
      var found = null;
      cache.forEach(function (row, i) { if (row.path === path) found = i; });
      if (found !== null) return Promise.resolve(found);
      var url = "/api/outline?" + [state.query(), "offset=0", "limit=1", "focus=" + encodeURIComponent(path)].filter(Boolean).join("&");
      return fetch(url).then(function (r) { return r.json(); }).then(function (data) { return data.focusRow === undefined ? null : data.focusRow; });
    }

    function indexOfCell(cell) { var li = cell && cell.closest("li[data-index]"); return li ? Number(li.dataset.index) : null; }

    tree.keyHandler = function (event, cell) {
      var i = indexOfCell(cell);
      if (i === null) return false;
      var row = cache.get(i), key = event.key;
      if (!row) return false;
      if (editing && tree.editKey && tree.editKey(event, i, row)) return true;
      if (key === "ArrowDown" || key === "ArrowUp") { focusIndex(i + (key === "ArrowDown" ? 1 : -1)); return true; }
      if (key === "Home" || key === "End") { focusIndex(key === "Home" ? 0 : total - 1); return true; }
      if (key === "ArrowRight" || key === " ") {
        if (row.children > 0 && !row.expanded) toggle(i, true);
        else if (key === "ArrowRight" && row.expanded) focusIndex(i + 1);
        return true;
      }
      if (key === "ArrowLeft") {
        if (row.expanded) { toggle(i, false); return true; }
        if (row.depth > 1) rowOf(parentPath(row.path)).then(function (p) { if (p !== null) focusIndex(p); });
        return true;
      }
      return false;
    };

    // Edit mode: a click on a row selects it (the edit tools act on the selection).
    function select(path, title) { choose(path ? [path] : [], path, title); anchor = path; }
    // Chooses `paths` (in any order), `primary` the row the edit tools name when it is one.
    function choose(paths, primary, title) {
      chosen = new Set(paths);
      selected = primary || null;
      if (primary) active = primary;
      rendered.forEach(function (el) {
        var on = chosen.has(el.dataset.path);
        el.classList.toggle("focused", on);
        var c = el.querySelector('[role="treeitem"]');
        if (c) c.setAttribute("aria-selected", on ? "true" : "false");
      });
      updateEditTools(title);
      saveURL();
    }
    // The rows from the anchor to row i (both included) become the selection.
    function chooseRange(i) {
      var from = anchor === null ? i : indexOfPath(anchor);
      if (from === null) from = i;
      var paths = [];
      for (var k = Math.min(from, i); k <= Math.max(from, i); k++) { var r = cache.get(k); if (r) paths.push(r.path); }
      var row = cache.get(i);
      choose(paths, row && row.path);
    }
    function indexOfPath(path) { var found = null; cache.forEach(function (row, i) { if (row.path === path) found = i; }); return found; }
    function updateEditTools(title) {
      var tools = document.getElementById("edit-tools");
      if (!tools) return;
      var here = state.href(["edit=1", selected ? "focus=" + selected : ""]);
      if (chosen.size > 1) { showSelectionTools(tools, Array.from(chosen).sort(comparePaths), state.href(["edit=1"]), state); return; }
      var row = null;
      cache.forEach(function (r) { if (r.path === selected) row = r; });
      showEditTools(tools, selected, title || (row && row.title), here, state.href(["edit=1"]));
    }

    tree.addEventListener("click", function (event) {
      if (editing && (event.shiftKey || event.ctrlKey || event.metaKey) && !event.button) {
        var picked = event.target.closest("li[data-index]");
        if (!picked || !event.target.closest('[role="treeitem"]')) return;
        event.preventDefault();
        var p = picked.dataset.path;
        if (event.shiftKey) chooseRange(Number(picked.dataset.index));
        else {
          var next = new Set(chosen);
          if (next.has(p)) next.delete(p); else next.add(p);
          anchor = p;
          choose(Array.from(next), next.has(p) ? p : (next.size ? Array.from(next)[0] : null));
        }
        picked.querySelector('[role="treeitem"]').focus({ preventScroll: true });
        return;
      }
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.button) return;
      var disclosure = event.target.closest("a.disclosure");
      var li = event.target.closest("li[data-index]");
      if (!li) return;
      if (disclosure) {
        event.preventDefault();
        var row = cache.get(Number(li.dataset.index));
        if (row) toggle(Number(li.dataset.index), !row.expanded);
        return;
      }
      if (editing && event.target.closest('[role="treeitem"]')) {
        event.preventDefault();
        select(li.dataset.path, li.querySelector(".row-title").textContent);
        li.querySelector('[role="treeitem"]').focus({ preventScroll: true });
        return;
      }
      if (!editing) openFromOutline(event, li);
    });
    // Outside Edit mode a title keeps you in the outline: a row with children expands or
    // collapses in place (and keeps the focus); a leaf opens its detail, whose Back returns here
    // as it is now (the state, the first visible row, the leaf focused). The URL is written at
    // once, so the browser's Back comes here the same way.
    function openFromOutline(event, li) {
      var cell = event.target.closest('[role="treeitem"]'), i = Number(li.dataset.index), row = cache.get(i);
      if (!cell || !row || !cell.getAttribute("href")) return;
      active = row.path;
      if (row.children > 0) {
        event.preventDefault();
        focusWanted = i;
        toggle(i, !row.expanded);
        return;
      }
      var base = cell.getAttribute("href").split("?")[0];
      if (base.indexOf("/d/") !== 0) return;
      var at = firstVisible(), offset = at > 0 ? "offset=" + at : "";
      cell.setAttribute("href", base + "?outline=" + encodeURIComponent([state.query(), offset].filter(Boolean).join("&")));
      clearTimeout(urlTimer);
      opened = row.path;
      history.replaceState(null, "", state.href(["focus=" + row.path, offset]));
    }
    tree.addEventListener("focusin", function (event) {
      var li = event.target.closest && event.target.closest("li[data-index]");
      if (li) active = li.dataset.path;
    });

    var ticking = false;
    function onScroll() {
      if (!ticking) { ticking = true; requestAnimationFrame(function () { ticking = false; render(); }); }
      saveURL();
    }
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("resize", render);

    // The script's handles: a reload after a change, the selection, and moves (drag and keys).
    tree.reload = function () { reload(); };
    tree.remap = function (from, to) {
      state.paths = state.paths.map(function (p) { return remapAfterMove(p, from, to); });
      if (selected) selected = remapAfterMove(selected, from, to);
      if (active) active = remapAfterMove(active, from, to);
    };
    tree.open = function (path) { state = state.setting(path, true); };
    tree.reveal = function (path) {
      return rowOf(path).then(function (i) { if (i !== null) { if (editing) select(path); focusIndex(i); } saveURL(); });
    };
    tree.rowAt = function (i) { return cache.get(i); };
    tree.unselect = function () { if (selected || chosen.size) select(null); };
    // Edit mode's selection for the outline's editing keys (setUpOutlineKeys).
    tree.selection = function () { return Array.from(chosen).sort(comparePaths); };
    tree.extend = function (i, delta) {
      var j = Math.max(0, Math.min(total - 1, i + delta));
      if (anchor === null || !chosen.size) anchor = cache.get(i) ? cache.get(i).path : null;
      chooseRange(j);
      focusIndex(j);
    };
    tree.indexOf = indexOfPath;
    // Dragging: the gap before or after row i as a drop at one depth, as close to `want` as the
    // rows around the gap allow (Finder's and Logseq's drop line). Between a row and a shallower
    // one (the end of a level) the depth goes from the lower row's (a sibling of an ancestor) to
    // one below the upper row's (its child); above a row's first child, only that child's.
    // Answers the target the drop code moves to ({path, zone}), the depth, and the line's left edge.
    tree.dropGap = function (i, zone, want) {
      var a = zone === "before" ? (i > 0 ? cache.get(i - 1) : null) : cache.get(i);
      var b = zone === "before" ? cache.get(i) : cache.get(i + 1);
      var el = rendered.get(i), cell = el && el.querySelector('[role="treeitem"]'), row = cache.get(i);
      if (!cell || !row) return null;
      var step = parseFloat(getComputedStyle(tree).getPropertyValue("--indent-step")) || 20;
      var base = cell.getBoundingClientRect().left - (row.depth - 1) * step, gap;
      if (!a || (b && b.depth > a.depth)) gap = { path: b.path, zone: "before", depth: b.depth };
      else {
        var d = Math.max(b ? b.depth : 1, Math.min(a.depth + 1, want));
        gap = d > a.depth ? { path: a.path, zone: "into", depth: d } : { path: pathText(pathArray(a.path).slice(0, d)), zone: "after", depth: d };
      }
      gap.left = base + (gap.depth - 1) * step;
      return gap;
    };
    tree.rowElement = function (i) { return rendered.get(i) || null; };
    // After a change, before the rows are fetched again: the rows at `paths` are the selection,
    // and their parents open (a row indented under another shows there).
    tree.prepare = function (paths, primary) {
      paths.forEach(function (p) { var parent = parentPath(p); if (parent) state = state.setting(parent, true); });
      anchor = primary;
      chosen = new Set(paths);
      selected = primary;
    };
    // ...and once they are: the primary row gets the focus (scrolled to when far away).
    tree.settle = function (paths, primary) {
      if (!primary) { choose([], null); return Promise.resolve(); }
      return rowOf(primary).then(function (i) { if (i !== null) { choose(paths, primary); focusIndex(i); } saveURL(); });
    };

    resize();
    var params = new URLSearchParams(location.search);
    var focusRow = tree.dataset.focusRow;
    // The #n-PATH of a link (for pages without script) would move the focus to the page when the
    // browser scrolls to it: the script places and focuses the row itself.
    if (/^#n-/.test(location.hash)) history.replaceState(null, "", location.pathname + location.search);
    if (params.has("offset")) {
      var top = Number(tree.dataset.offset) || 0;
      scrollToIndex(top, "top");
      // Back from a leaf's detail: the same place, and the leaf focused when it is on screen.
      if (focusRow !== undefined && Number(focusRow) >= top && Number(focusRow) < top + window.innerHeight / rowHeight - 2) focusWanted = Number(focusRow);
    } else if (focusRow !== undefined) { scrollToIndex(Math.max(0, Number(focusRow) - 3), "top"); focusWanted = Number(focusRow); }
    render();
    if (focusWanted !== null) render();
  }

  // The edit tools of the outline and columns screens for the row at `path` (none: the hint).
  function showEditTools(tools, path, title, back, away) {
    var hint = document.getElementById("edit-selection");
    var links = tools.querySelector(".edit-links:not(.selection-links)");
    var group = tools.querySelector(".selection-links");
    if (group) group.hidden = true;
    if (!path) { if (links) links.hidden = true; hint.textContent = "Select a row to rename it, add to it, move it or delete it."; return; }
    if (!links) {
      links = document.createElement("div");
      links.className = "edit-links";
      [["rename-link", "Rename…"], ["add-child-link", "Add child…"], ["move-link", "Move…"], ["delete-link", "Delete"]].forEach(function (l) {
        var a = document.createElement("a");
        a.className = "small" + (l[0] === "delete-link" ? " danger delete-link" : "");
        a.id = l[0]; a.textContent = l[1];
        links.appendChild(a);
      });
      tools.appendChild(links);
    }
    links.hidden = false;
    hint.textContent = "Selected: ";
    var strong = document.createElement("strong");
    strong.id = "edit-selected-title"; strong.textContent = title || path;
    var code = document.createElement("code");
    code.className = "tree-path"; code.id = "edit-selected-path"; code.textContent = path;
    hint.appendChild(strong); hint.appendChild(document.createTextNode(" ")); hint.appendChild(code);
    var b = "?back=" + encodeURIComponent(back), a = "?back=" + encodeURIComponent(away);
    document.getElementById("rename-link").href = "/rename/" + path + b;
    document.getElementById("add-child-link").href = "/add/" + path + b;
    document.getElementById("move-link").href = "/move/" + path + a;
    var del = document.getElementById("delete-link");
    del.href = "/delete/" + path + a;
    del.dataset.action = "/edit/delete/" + path;
    del.dataset.title = title || path;
    tools.dataset.back = back;
  }

  // The outline's edit tools for a selection of several rows: how many, and Move…, Indent,
  // Outdent and Delete acting on all of them as one step (Move… opens the destination picker).
  function showSelectionTools(tools, paths, back, state) {
    var hint = document.getElementById("edit-selection");
    var links = tools.querySelector(".edit-links:not(.selection-links)");
    if (links) links.hidden = true;
    hint.textContent = "";
    var strong = document.createElement("strong");
    strong.id = "edit-selected-title"; strong.textContent = paths.length + " rows selected";
    hint.appendChild(strong);
    var group = tools.querySelector(".selection-links");
    if (!group) {
      group = document.createElement("div");
      group.className = "edit-links selection-links";
      [["selection-move", "Move…", "a"], ["selection-indent", "Indent", "button"], ["selection-outdent", "Outdent", "button"], ["selection-delete", "Delete", "button"]].forEach(function (l) {
        var el = document.createElement(l[2]);
        el.className = "small" + (l[0] === "selection-delete" ? " danger" : "");
        el.id = l[0]; el.textContent = l[1];
        if (l[2] === "button") el.type = "button";
        group.appendChild(el);
      });
      tools.appendChild(group);
    }
    group.hidden = false;
    document.getElementById("selection-move").href = "/move?paths=" + paths.join(",") + "&back=" + encodeURIComponent(back);
    tools.dataset.back = back;
  }

  // ---- The outline's editing keys (Edit mode) ------------------------------------------------
  // Enter adds a row below (typed in place), F2 renames in place, Tab / Shift+Tab indent and
  // outdent, Alt+Up / Alt+Down move among siblings, Delete deletes, Shift+Up / Shift+Down extend
  // the selection. Every change is one POST /api/edit/batch, so Undo takes it back whole; the
  // result is announced in #outline-status and the focus lands on the changed rows.
  function setUpOutlineKeys(tree, batch) {
    var status = document.getElementById("outline-status");
    function announce(text) { if (status) { status.textContent = ""; status.textContent = text; } }
    function plural(n, one) { return n === 1 ? "1 " + one : n + " " + one + "s"; }
    // The rows a key acts on: the selection when the focused row is in it, else the focused row.
    function targets(row) {
      var sel = tree.selection();
      return sel.indexOf(row.path) >= 0 ? sel : [row.path];
    }
    // Sends one batch; then the rows at the answer's paths (or `focus`) are selected and focused.
    function run(changes, done, focus) {
      return batch(changes, function (json) {
        var paths = focus ? focus(json) : json.paths || [];
        tree.prepare(paths, paths[0] || null);
      }).then(function (json) {
        if (!json) return;
        var paths = focus ? focus(json) : json.paths || [];
        return tree.settle(paths, paths[0] || null).then(function () { announce(done(json)); });
      });
    }

    // An input over a row's title (F2) or over the row below it (Enter): Enter commits, Escape
    // cancels. It lies outside the tree (a tree holds only its items), placed over the row.
    function inlineEditor(i, label, value, below, commit) {
      var li = tree.rowElement(i);
      if (!li) return;
      var box = document.createElement("input");
      box.className = "inline-edit";
      box.id = "inline-edit";
      box.value = value;
      box.maxLength = 1000;
      box.setAttribute("aria-label", label);
      box.autocomplete = "off";
      var text = li.querySelector(".text") || li, row = li.getBoundingClientRect(), at = text.getBoundingClientRect();
      box.style.top = Math.round(row.top + window.scrollY + (below ? row.height : 0) + 6) + "px";
      box.style.left = Math.round(at.left + window.scrollX - 8) + "px";
      box.style.width = Math.max(160, Math.round(row.right - at.left - 32)) + "px";
      box.style.height = Math.round(row.height - 12) + "px";
      document.body.appendChild(box);
      var cell = li.querySelector('[role="treeitem"]'), finished = false;
      function finish(save) {
        if (finished) return;
        finished = true;
        var text = box.value.trim();
        box.remove();
        if (save && text && text !== value) commit(text);
        else if (cell && document.contains(cell)) cell.focus({ preventScroll: true });
      }
      box.addEventListener("keydown", function (event) {
        if (event.key === "Enter") { event.preventDefault(); event.stopPropagation(); finish(true); }
        else if (event.key === "Escape") { event.preventDefault(); event.stopPropagation(); finish(false); }
      });
      box.addEventListener("blur", function () { finish(false); });
      box.focus();
      box.select();
    }

    tree.editKey = function (event, i, row) {
      var key = event.key;
      if (event.shiftKey && (key === "ArrowDown" || key === "ArrowUp")) { tree.extend(i, key === "ArrowDown" ? 1 : -1); return true; }
      if (key === "Tab") {
        var paths = targets(row);
        run([{ op: event.shiftKey ? "outdent" : "indent", paths: paths }], function (json) {
          return (event.shiftKey ? "Outdented " : "Indented ") + plural(paths.length, "row") + ".";
        });
        return true;
      }
      if (event.shiftKey) return false;
      // Tab indents here, so Escape is the way out of the tree: to the Done button.
      if (key === "Escape") {
        var done = document.getElementById("edit-button");
        if (done) { done.focus(); return true; }
        return false;
      }
      if (key === "Enter") {
        var parent = parentPath(row.path), at = lastIndex(row.path) + 1;
        inlineEditor(i, "Title of the new row below " + row.title, "", true, function (title) {
          run([{ op: "add", path: parent, title: title, index: at }], function () { return "Added “" + title + "”."; });
        });
        return true;
      }
      if (key === "F2") {
        inlineEditor(i, "New title of " + row.title, row.title, false, function (title) {
          run([{ op: "rename", path: row.path, title: title }], function () { return "Renamed to “" + title + "”."; });
        });
        return true;
      }
      if (key === "Delete") {
        var gone = targets(row), first = gone[0];
        run([{ op: "delete", paths: gone }], function () {
          return "Deleted " + (gone.length === 1 ? "“" + row.title + "”" : plural(gone.length, "row")) + ". Undo brings " + (gone.length === 1 ? "it" : "them") + " back.";
        }, function () {
          // The focus goes to the row above the first deleted one: its sibling, or its parent
          // (neither moved); at the top of the outline, to the row that took its place.
          var p = lastIndex(first) > 0 ? pathText(pathArray(first).slice(0, -1).concat(lastIndex(first) - 1)) : parentPath(first) || first;
          return [p];
        });
        return true;
      }
      return false;
    };
    // Alt+Up / Alt+Down on a selection of several rows moves them together among their siblings.
    tree.moveSelection = function (row, direction) {
      var paths = targets(row);
      if (paths.length < 2) return false;
      run([{ op: "move", paths: paths, direction: direction }], function () { return "Moved " + plural(paths.length, "row") + " " + direction + "."; });
      return true;
    };
    // A drag of a selected row moves the whole selection (one step) before, after or into `target`.
    tree.dropSelection = function (from, target, zone) {
      var paths = tree.selection();
      if (paths.length < 2 || paths.indexOf(from) < 0) return false;
      var change = { op: "move", paths: paths };
      if (zone === "into") change.to = target;
      else {
        var parent = parentPath(target), index = lastIndex(target) + (zone === "after" ? 1 : 0);
        change.to = parent;
        change.index = index - paths.filter(function (p) { return parentPath(p) === parent && lastIndex(p) < index; }).length;
      }
      run([change], function () { return "Moved " + plural(paths.length, "row") + "."; });
      return true;
    };
    tree.runSelection = function (op) {
      var paths = tree.selection();
      var verbs = { indent: "Indented ", outdent: "Outdented ", "delete": "Deleted " };
      run([{ op: op, paths: paths }], function () { return verbs[op] + plural(paths.length, "row") + "."; },
        op === "delete" ? function () { return []; } : null);
    };
    document.addEventListener("click", function (event) {
      var button = event.target.closest && event.target.closest("#selection-indent, #selection-outdent, #selection-delete");
      if (button) tree.runSelection(button.id.slice(10));
    });
  }

  // ---- Virtualized level list --------------------------------------------------------------
  var virtualTeardown = null;
  function setUpVirtualList(list) {
    if (virtualTeardown) virtualTeardown();
    virtualTeardown = null;
    // In Edit mode a large level stays paged by the server: its rows carry forms the API's rows do not.
    if (list.querySelector(".row.editing")) return;
    var total = Number(list.dataset.total), api = list.dataset.api, pageSize = 100;
    var rowHeight = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--row-h")) || 56;
    var maxHeight = 8000000;
    var scale = Math.min(1, maxHeight / (total * rowHeight));
    var cache = new Map(), pending = new Map(), rendered = new Map();
    var overscan = 15, cacheLimit = 4000;

    // Server-rendered rows seed the cache.
    var start = Number(list.dataset.offset) || 0;
    Array.prototype.forEach.call(list.children, function (li, k) { cache.set(start + k, li.cloneNode(true)); });
    list.textContent = "";
    list.classList.add("virtual");
    list.style.height = Math.round(total * rowHeight * scale) + "px";
    var pager = document.getElementById("pager");
    if (pager) pager.hidden = true;

    // A fetched row is the server's row template (RowHTML.template) filled in: the same markup
    // as the rows the page came with, its look written once, on the server.
    var template = document.getElementById("row-template");
    function makeRow(row) {
      var li = template.content.firstElementChild.cloneNode(true);
      li.id = "n-" + row.path;
      li.dataset.path = row.path;
      var cell = li.querySelector(".cell");
      if (row.href) cell.setAttribute("href", row.href);
      else { cell.removeAttribute("href"); li.classList.add("disabled"); cell.querySelector(".chevron").remove(); }
      var img = cell.querySelector(".thumb");
      if (row.image) img.setAttribute("src", row.image); else img.remove();
      li.querySelector(".row-title").textContent = row.title;
      var subtitle = li.querySelector(".row-subtitle");
      if (row.subtitle) subtitle.textContent = row.subtitle; else subtitle.remove();
      var info = li.querySelector(".info");
      if (row.detailButton) {
        info.setAttribute("href", "/d/" + row.path);
        info.setAttribute("aria-label", "Details of " + row.title);
      } else info.remove();
      return li;
    }

    function fetchPage(page) {
      if (pending.has(page)) return;
      pending.set(page, true);
      fetch(api + (api.indexOf("?") < 0 ? "?" : "&") + "offset=" + page * pageSize + "&limit=" + pageSize).then(function (r) { return r.json(); }).then(function (data) {
        (data.rows || []).forEach(function (row, k) { cache.set(page * pageSize + k, makeRow(row)); });
        if (cache.size > cacheLimit) {
          var drop = cache.size - cacheLimit, it = cache.keys();
          while (drop-- > 0) cache.delete(it.next().value);
        }
        pending.delete(page);
        render();
      }).catch(function () { pending.delete(page); });
    }

    function listTop() { return list.getBoundingClientRect().top + window.scrollY; }

    // Scaled (past ~140 000 rows): the scroll range maps linearly onto the rows, so its end shows
    // the last row (a plain division would leave the last screenful unreachable).
    function scaledRange() {
      return { maxPos: Math.max(1, total * rowHeight * scale - window.innerHeight), maxFirst: Math.max(0, total - window.innerHeight / rowHeight) };
    }
    function windowRange() {
      var pos = Math.max(0, window.scrollY - listTop()), exact;
      if (scale === 1) exact = pos / rowHeight;
      else { var m = scaledRange(); pos = Math.min(pos, m.maxPos); exact = pos / m.maxPos * m.maxFirst; }
      exact = Math.min(total - 1, exact);
      var first = Math.floor(exact);
      var visible = Math.ceil(window.innerHeight / rowHeight) + 1;
      return { pos: pos, first: first, frac: exact - first, from: Math.max(0, first - overscan), to: Math.min(total, first + visible + overscan) };
    }

    var focusWanted = null;
    function render() {
      var w = windowRange();
      rendered.forEach(function (el, i) {
        if (i < w.from || i >= w.to) { el.remove(); rendered.delete(i); }
      });
      for (var i = w.from; i < w.to; i++) {
        var top = scale === 1 ? i * rowHeight : w.pos + (i - w.first - w.frac) * rowHeight;
        var el = rendered.get(i);
        if (!el) {
          var proto = cache.get(i);
          if (!proto) { fetchPage(Math.floor(i / pageSize)); continue; }
          el = proto.cloneNode(true);
          el.dataset.index = String(i);
          // List semantics: each item says its place among all the level's rows.
          el.setAttribute("aria-setsize", String(total));
          el.setAttribute("aria-posinset", String(i + 1));
          rendered.set(i, el);
          list.appendChild(el);
        }
        el.style.top = Math.round(top) + "px";
      }
      if (focusWanted !== null && rendered.has(focusWanted)) {
        var cell = rendered.get(focusWanted).querySelector(".cell");
        focusWanted = null;
        if (cell) cell.focus({ preventScroll: true });
      }
    }

    // Where scrollToIndex(i, "top") puts row i: below the navigation bar and the section header.
    function topOffset() { return document.querySelector(".navbar").offsetHeight + 8 + (current ? current.offsetHeight : 0); }
    // The row shown first below those bars: what the URL keeps (scrollToIndex's inverse, so a
    // reload puts the same row there again instead of the one hidden under the bar).
    function topRow() {
      var pos = Math.max(0, window.scrollY - listTop()), i;
      if (scale === 1) i = (pos + topOffset()) / rowHeight;
      else { var m = scaledRange(); i = Math.min(pos, m.maxPos) / m.maxPos * Math.max(1, m.maxFirst) + topOffset() / rowHeight; }
      return Math.max(0, Math.min(total - 1, Math.round(i)));
    }
    function scrollToIndex(i, align) {
      var off = align === "bottom" ? window.innerHeight - rowHeight - 8 : topOffset();
      var y;
      if (scale === 1) y = listTop() + i * rowHeight - off;
      else {
        var m = scaledRange(), e = Math.max(0, i - off / rowHeight);
        y = listTop() + Math.min(1, e / Math.max(1, m.maxFirst)) * m.maxPos;
      }
      window.scrollTo(0, Math.max(0, y));
    }

    var ticking = false, urlTimer = null;
    function onScroll() {
      if (!ticking) { ticking = true; requestAnimationFrame(function () { ticking = false; render(); }); }
      clearTimeout(urlTimer);
      urlTimer = setTimeout(function () {
        var first = topRow();
        var sort = /[?&](sort=[^&]*)/.exec(location.search);
        var items = [first > 0 ? "offset=" + first : "", location.search.indexOf("edit=1") >= 0 ? "edit=1" : "", sort ? sort[1] : ""].filter(Boolean);
        history.replaceState(null, "", location.pathname + (items.length ? "?" + items.join("&") : ""));
      }, 300);
    }
    function onResize() { render(); }
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("resize", onResize);
    virtualTeardown = function () {
      window.removeEventListener("scroll", onScroll);
      window.removeEventListener("resize", onResize);
    };

    list.moveFocus = function (delta) {
      var current = document.activeElement && document.activeElement.closest("li[data-index]");
      var i = current ? Number(current.dataset.index) + delta : windowRange().first;
      i = Math.max(0, Math.min(total - 1, i));
      var el = rendered.get(i);
      var rect = el && el.getBoundingClientRect();
      var navBottom = document.querySelector(".navbar").getBoundingClientRect().bottom;
      if (!el || rect.top < navBottom || rect.bottom > window.innerHeight) scrollToIndex(i, delta > 0 ? "bottom" : "top");
      focusWanted = i;
      render();
    };

    // Sections of a virtualized level: the header of the first visible row above the list, and
    // the jump bar's links scroll to their section's first row (the server computed its index).
    var sections = list.dataset.sections ? JSON.parse(list.dataset.sections) : null;
    var current = document.getElementById("section-current");
    function sectionAt(i) {
      var lo = 0, hi = sections.length - 1;
      while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (sections[mid].start <= i) lo = mid; else hi = mid - 1; }
      return sections[lo];
    }
    if (sections && sections.length && current) {
      var baseRender = render;
      render = function () {
        baseRender();
        // The first row not hidden under the navigation bar and this header.
        var w = windowRange(), hidden = document.querySelector(".navbar").offsetHeight + current.offsetHeight;
        var title = sectionAt(Math.min(total - 1, Math.ceil(w.first + w.frac + hidden / rowHeight - 0.25))).title;
        if (current.textContent !== title) current.textContent = title;
      };
    }
    var jumpBar = document.getElementById("jump-bar");
    if (jumpBar) jumpBar.addEventListener("click", function (event) {
      var link = event.target.closest("a[data-start]");
      if (!link) return;
      event.preventDefault();
      var i = Number(link.dataset.start);
      scrollToIndex(i, "top");
      focusWanted = i;
      render();
    });

    if (start > 0) scrollToIndex(start, "top");
    render();
  }

  // ---- Columns: Finder's keys ----------------------------------------------------------------
  // The columns answer the arrows as soon as they show (the focus starts on the deepest selected
  // row); ↑/↓ move within a column (the list keys below), ← goes to the previous column's
  // selected row, → into the next column (its selected row, else its first), and → on a row
  // that is not the one shown opens it with the focus in its first child (`#into`); Enter opens.
  function listColumns() { return Array.prototype.slice.call(document.querySelectorAll(".column:not(.column-detail)")); }
  function columnCell(column, selectedOnly) {
    if (!column) return null;
    return column.querySelector(".row.selected > a.cell") || (selectedOnly ? null : column.querySelector("a.cell"));
  }
  function columnKey(key, cell) {
    var all = listColumns(), k = all.indexOf(cell.closest(".column"));
    if (k < 0 || (key !== "ArrowLeft" && key !== "ArrowRight")) return false;
    if (key === "ArrowLeft") { if (k > 0) focusItem(columnCell(all[k - 1], false)); return true; }
    var shown = cell.parentNode.classList.contains("selected");
    if (shown && k + 1 < all.length) focusItem(columnCell(all[k + 1], false));
    else if (!shown && cell.querySelector(".chevron")) location.href = cell.getAttribute("href") + "#into";
    return true;
  }
  function focusColumns() {
    var all = listColumns(), target = null;
    if (location.hash === "#into") {
      target = columnCell(all[all.length - 1], false);
      history.replaceState(null, "", location.pathname + location.search);
    }
    for (var k = all.length - 1; k >= 0 && !target; k--) target = columnCell(all[k], true);
    target = target || columnCell(all[all.length - 1], false);
    if (!target || (document.activeElement && document.activeElement !== document.body)) return;
    // The strip keeps its place (on a phone: the last column, whole); the start-up code already
    // scrolled each column to its selected row.
    target.focus({ preventScroll: true });
  }

  // ---- Keyboard -------------------------------------------------------------------------
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (isTyping(target)) {
      if (event.key === "Escape") target.blur();
      return;
    }
    var key = event.key;
    if (key === "/") {
      var search = document.getElementById("search");
      if (search) { event.preventDefault(); search.focus(); search.select(); }
      return;
    }
    var cell = target.closest && target.closest("a.cell, #tree [role=treeitem]");
    var tree = document.getElementById("tree");
    if (screen === "outline" && cell && tree && tree.keyHandler && tree.keyHandler(event, cell)) { event.preventDefault(); return; }
    if (screen === "columns" && cell && columnKey(key, cell)) { event.preventDefault(); return; }
    var virtual = document.querySelector("#rows.virtual");
    if (key === "ArrowDown" || key === "ArrowUp") {
      event.preventDefault();
      if (virtual) { virtual.moveFocus(key === "ArrowDown" ? 1 : -1); return; }
      var list = items();
      var i = list.indexOf(cell);
      if (i < 0) focusItem(key === "ArrowDown" ? list[0] : list[list.length - 1]);
      else focusItem(list[Math.max(0, Math.min(list.length - 1, i + (key === "ArrowDown" ? 1 : -1)))]);
      return;
    }
    if ((key === "Home" || key === "End") && cell && !virtual) {
      // Tree and list pattern: Home and End move to the first and last item.
      event.preventDefault();
      var all = items();
      focusItem(key === "Home" ? all[0] : all[all.length - 1]);
      return;
    }
    if (key === "ArrowRight" && cell) {
      event.preventDefault();
      if (cell.href) cell.click();
      return;
    }
    if (key === "ArrowLeft" || key === "Backspace" || key === "Escape") {
      event.preventDefault();
      goBack();
    }
  });


  // ---- Live updates (editable servers and read-only instances of shared data) ---------------
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var liveMeta = document.querySelector('meta[name="live"]');
  document.documentElement.classList.add("js");
  var refreshing = null, again = false;

  // Re-renders the current page's main area and title in place (no reload).
  function refresh(force) {
    var tree = document.getElementById("tree");
    if (tree && tree.reload) { tree.reload(); return Promise.resolve(); }
    if (refreshing) { again = true; return refreshing; }
    refreshing = fetch(location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("main"), main = document.getElementById("main");
        var active = document.activeElement;
        if (!force && active && main.contains(active) && active.tagName === "INPUT" && active.type !== "range") return;
        if (fieldsFormChanged()) return;
        if (fresh && main) {
          var keep = rowFocus(), focusedID = active && active.id && main.contains(active) ? active.id : null;
          main.innerHTML = fresh.innerHTML;
          formatTimes(main);
          restoreRowFocus(keep);
          // Another element that had the focus (a History entry, a Revert button) keeps it.
          var refocus = focusedID && !main.contains(document.activeElement) && document.getElementById(focusedID);
          if (refocus) refocus.focus();
          var big = document.querySelector("#rows[data-virtual]");
          if (big) setUpVirtualList(big);
        }
        var title = doc.getElementById("title");
        if (title) document.getElementById("title").textContent = title.textContent;
        syncPathMenu(doc);
        document.title = doc.title;
        document.body.dataset.revision = (doc.querySelector('meta[name="revision"]') || {}).content || "";
      })
      .catch(function () {})
      .then(function () {
        refreshing = null;
        if (again) { again = false; refresh(); }
      });
    return refreshing;
  }

  // An event of the stream, passed on to feedback.js (the history state it carries) as drilldown:NAME.
  function announceEvent(name, e) {
    var data = null;
    try { data = JSON.parse(e.data); } catch (error) { return; }
    document.dispatchEvent(new CustomEvent("drilldown:" + name, { detail: data }));
  }

  // Every change made anywhere re-renders this page within a moment. A refused stream (429:
  // this browser or address follows enough pages; 503: the server is full) ends the EventSource
  // for good, so the page asks again itself after 2-6 s, waiting twice as long after each
  // refusal (at most 90 s), and refreshes once it follows again (it missed changes).
  function followChanges() {
    if (!window.EventSource) return;
    var events = null, timer = null, delay = 4000, missed = false;
    function open() {
      timer = null;
      events = new EventSource("/events" + presenceQuery());
      events.addEventListener("change", function (e) { refresh(); announceEvent("change", e); });
      events.addEventListener("presence", showPresence);
      // Marks the page as following changes (tests wait for it instead of sleeping).
      events.addEventListener("hello", function (e) {
        announceEvent("hello", e);
        presenceHello(e);
        document.body.dataset.live = "1";
        delay = 4000;
        if (missed) { missed = false; refresh(); }
      });
      events.addEventListener("error", function () {
        if (events.readyState !== EventSource.CLOSED) return;  // a dropped stream: it reconnects itself
        events = null;
        missed = true;
        delete document.body.dataset.live;
        timer = setTimeout(open, delay * (0.5 + Math.random()));
        delay = Math.min(delay * 2, 60000);
      });
    }
    function close() {
      if (events) { events.close(); events = null; }
      if (timer) { clearTimeout(timer); timer = null; }
    }
    open();
    // A page without a CSRF token (a read-only server) cannot post the levels it shows: it follows again, naming them.
    if (presence) presence.reopen = function () { close(); open(); };
    window.addEventListener("pagehide", close);
    window.addEventListener("pageshow", function (e) { if (e.persisted && !events && !timer) { missed = true; open(); } });
  }

  // ---- Presence (servers with accounts): who else shows these rows, and the rows they edit ----
  // The page follows /events?presence=LEVEL (the level of the meta tag; a detail's row while in
  // Edit mode as &editing=ROW); an outline or columns page (meta data-levels) names every level
  // whose rows it shows (presence=L1&presence=L2…), and posts the new list when it changes
  // (expanding, collapsing, scrolling, another column). `presence` events list the other users
  // there. Their initials show in the navigation bar (at most three, then +N), and a row another
  // user edits carries their initials. A row this page starts or stops editing in place (or in
  // the Rename dialog) is posted to /api/presence.
  var presenceMeta = document.querySelector('meta[name="presence"]');
  var presence = presenceMeta ? {
    level: presenceMeta.content, many: presenceMeta.hasAttribute("data-levels"), editing: presenceMeta.dataset.editing || "",
    page: null, renaming: "", here: [], asked: null, joined: null, reopen: null
  } : null;
  function parentPath(path) { var i = path.lastIndexOf("."); return i < 0 ? "" : path.slice(0, i); }
  // The levels whose rows this page shows: a level page's one; the outline's rows' parents; the columns.
  function presenceLevels() {
    if (!presence.many) return [presence.level];
    var seen = {}, levels = [];
    function add(level) { if (!seen.hasOwnProperty(level)) { seen[level] = true; levels.push(level); } }
    Array.prototype.forEach.call(document.querySelectorAll("#main section.column[data-path]"), function (c) { add(c.dataset.path); });
    Array.prototype.forEach.call(document.querySelectorAll("#main li.treeitem[data-path]"), function (li) { add(parentPath(li.dataset.path)); });
    if (!levels.length) add("");
    return levels.slice(0, 500);
  }
  // The stream's query: the levels it asks for (kept: a stream that reconnects by itself asks for them again).
  function presenceQuery() {
    if (!presence) return "";
    presence.asked = presenceLevels();
    return "?" + presence.asked.map(function (l) { return "presence=" + encodeURIComponent(l); }).join("&") +
      (presence.editing ? "&editing=" + encodeURIComponent(presence.editing) : "");
  }
  function presenceHello(e) {
    if (!presence) return;
    try { presence.page = JSON.parse(e.data).page || null; } catch (error) { presence.page = null; }
    if (presence.renaming) sendPresence({ editing: presence.renaming });
    presence.joined = presence.asked;
    presenceMoved();
  }
  function sendPresence(fields) {
    if (!presence || !presence.page || !csrfMeta) return;
    fields.page = presence.page;
    fetch("/api/presence", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrfMeta.content },
      body: JSON.stringify(fields)
    }).catch(function () {});
  }
  // This page starts (a path) or stops ("") editing a row in place.
  function presenceEditing(path) {
    if (!presence || presence.renaming === path) return;
    presence.renaming = path;
    sendPresence({ editing: path });
  }
  // An outline or columns page shows other levels now: it says so (posted, or by following again).
  function presenceMoved() {
    if (!presence || !presence.many || !presence.joined || !presence.page) return;
    var levels = presenceLevels();
    if (levels.join("\n") === presence.joined.join("\n")) return;
    presence.joined = levels;
    if (csrfMeta) sendPresence({ levels: levels });
    else if (presence.reopen) presence.reopen();
  }
  // A hue per user, the same on every page, so a user's circle and row marker match.
  function presenceHue(name) {
    var h = 0;
    for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 997;
    return Math.round(h * 137.508) % 360;   // the golden angle: near names get far hues
  }
  function presenceBadge(tag, className, visitor, spoken) {
    var el = document.createElement(tag);
    el.className = className;
    el.title = spoken;
    el.style.setProperty("--avatar-hue", presenceHue(visitor.user));
    var letters = document.createElement("span");
    letters.setAttribute("aria-hidden", "true");
    letters.textContent = visitor.initials;
    var words = document.createElement("span");
    words.className = "visually-hidden";
    words.textContent = spoken;
    el.appendChild(letters);
    el.appendChild(words);
    return el;
  }
  function showPresence(e) {
    var data = null;
    try { data = JSON.parse(e.data); } catch (error) { return; }
    if (!presence || (!presence.many && data.level !== presence.level)) return;
    var before = presence.here;
    presence.here = data.here || [];
    var bar = document.getElementById("presence");
    if (!bar) {
      bar = document.createElement("ul");
      bar.id = "presence";
      bar.className = "presence";
      bar.setAttribute("aria-label", "Also here");
      var trailing = document.getElementById("nav-actions");
      if (!trailing) return;
      trailing.insertBefore(bar, trailing.firstChild);
    }
    bar.textContent = "";
    var shown = presence.here.length > 3 ? 2 : presence.here.length;
    presence.here.slice(0, shown).forEach(function (v) {
      bar.appendChild(presenceBadge("li", "avatar", v, v.user + (v.editing.length ? " (editing)" : "")));
    });
    if (presence.here.length > shown) {
      var more = presenceBadge("li", "avatar avatar-more", { user: "", initials: "+" + (presence.here.length - shown) },
        presence.here.slice(shown).map(function (v) { return v.user; }).join(", "));
      bar.appendChild(more);
    }
    bar.hidden = presence.here.length === 0;
    document.body.dataset.presence = String(presence.here.length);
    markEditedRows();
    announcePresence(before, presence.here);
  }
  // Says politely, for screen readers, who came, left, started or stopped editing a row
  // ("ana.lima is editing Blur."): the circles and markers change silently.
  function announcePresence(before, now) {
    var status = document.getElementById("presence-status");
    if (!status) return;
    var was = {}, said = [];
    before.forEach(function (v) { was[v.user] = v; });
    now.forEach(function (v) {
      var old = was[v.user];
      delete was[v.user];
      if (!old) said.push(v.user + " is here.");
      v.editing.forEach(function (path) {
        if (old && old.editing.indexOf(path) >= 0) return;
        var title = document.querySelector('#main li[data-path="' + path + '"] .row-title');
        said.push(v.user + " is editing " + (title ? title.textContent : "a row") + ".");
      });
      if (old && old.editing.length && !v.editing.length) said.push(v.user + " stopped editing.");
    });
    Object.keys(was).forEach(function (user) { said.push(user + " left."); });
    if (said.length) status.textContent = said.join(" ");
  }
  // The rows other users edit, marked (again after a refresh or a scroll of a long list).
  function markEditedRows() {
    if (!presence) return;
    var want = {};
    presence.here.forEach(function (v) { v.editing.forEach(function (p) { (want[p] = want[p] || []).push(v); }); });
    Array.prototype.forEach.call(document.querySelectorAll("#main li[data-path].being-edited"), function (li) {
      var key = li.dataset.path, marker = li.querySelector(":scope > .editing-marker");
      var users = (want[key] || []).map(function (v) { return v.user; }).join(",");
      if (marker && marker.dataset.users === users) return;
      li.classList.remove("being-edited");
      if (marker) marker.remove();
      var cell = li.querySelector(":scope > .cell");
      if (cell && cell.getAttribute("aria-describedby") === "editing-" + key) cell.removeAttribute("aria-describedby");
    });
    Object.keys(want).forEach(function (path) {
      var li = document.querySelector('#main li[data-path="' + path + '"]');
      if (!li || li.classList.contains("being-edited")) return;
      var visitors = want[path], names = visitors.map(function (v) { return v.user; });
      var marker = presenceBadge("span", "editing-marker", { user: visitors[0].user, initials: visitors.map(function (v) { return v.initials; }).join(" ") },
        names.join(", ") + (names.length > 1 ? " are" : " is") + " editing this row");
      marker.dataset.users = names.join(",");
      // The row's focusable cell (a tree item, a column's or a level's row) is described by the
      // marker, so the keyboard's focus on it says who edits it.
      marker.id = "editing-" + path;
      li.style.setProperty("--marker-hue", presenceHue(visitors[0].user));
      li.classList.add("being-edited");
      var cell = li.querySelector(":scope > .cell, :scope > .rename-input");
      if (cell) cell.after(marker); else li.appendChild(marker);
      var focusable = li.querySelector(":scope > .cell");
      if (focusable && !focusable.hasAttribute("aria-describedby")) focusable.setAttribute("aria-describedby", marker.id);
    });
  }
  if (presence) {
    // The status region is there from the start: one added with its text is not read out.
    var presenceStatus = document.createElement("div");
    presenceStatus.id = "presence-status";
    presenceStatus.className = "visually-hidden";
    presenceStatus.setAttribute("role", "status");
    document.body.appendChild(presenceStatus);
    var presenceMain = document.getElementById("main");
    var marking = false;
    if (presenceMain && window.MutationObserver) new MutationObserver(function () {
      if (marking || (!presence.here.length && !presence.many)) return;
      marking = true;
      requestAnimationFrame(function () { markEditedRows(); presenceMoved(); marking = false; });
    }).observe(presenceMain, { childList: true, subtree: true });
  }

  // ---- Editing (editable servers only): forms posted with fetch, the Add dialog -------------
  function setUpEditing() {
    var token = csrfMeta.content;

    // Posts a change; a refusal (the core's message) shows above the page. `before` sees the
    // answer before the page is refreshed (a move remaps the outline's open paths there). A 409
    // (the row was changed or deleted by another writer meanwhile) also refreshes the page, so
    // it shows the data as it is now.
    var message = document.getElementById("edit-message");
    function say(text) {
      if (!message) { alert(text); return; }
      message.textContent = text;
      message.hidden = !text;
    }
    // One Idempotency-Key per user action: a 503 (the database is away, or went away while the
    // change was committed) is retried with the same key, up to three times, so the change is made
    // once at most, however the first attempt ended.
    function newKey() {
      if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
      var bytes = new Uint8Array(16);
      crypto.getRandomValues(bytes);
      return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
    }
    function send(action, body, key, tries) {
      var headers = { Accept: "application/json", "X-CSRF-Token": token, "Idempotency-Key": key };
      if (typeof body === "string") headers["Content-Type"] = "application/json";
      return fetch(action, {
        method: "POST", credentials: "same-origin", body: body, headers: headers
      }).then(function (r) {
        if (r.status !== 503 || tries >= 3) return r;
        var wait = Math.min(4, parseInt(r.headers.get("Retry-After"), 10) || 1) * 1000;
        return new Promise(function (done) { setTimeout(done, wait); }).then(function () { return send(action, body, key, tries + 1); });
      });
    }
    function post(action, body, before) {
      say("");
      return send(action, body, newKey(), 0).then(function (r) {
        return r.json().then(function (json) {
          if (!r.ok) { var failure = new Error(json.error || r.statusText); failure.stale = r.status === 409; throw failure; }
          return json;
        });
      }).then(function (json) {
        if (before) before(json);
        return refresh(true).then(function () { return json; });
      }).catch(function (error) {
        var shown = error.stale ? refresh(true) : Promise.resolve();
        return shown.then(function () { say(error.message); return null; });
      });
    }
    window.drilldownPost = post;
    // For feedback.js: a write with its own key, and the page drawn again.
    window.drilldownSend = function (action, body) { return send(action, body, newKey(), 0); };
    window.drilldownRefresh = refresh;
    // Several changes as one step (POST /api/edit/batch): the outline's keys and selection.
    window.drilldownBatch = function (changes, before) { return post("/api/edit/batch", JSON.stringify({ changes: changes }), before); };

    function submitForm(form, submitter) {
      var data = new URLSearchParams(new FormData(form, submitter));
      return post(form.action, data);
    }

    document.addEventListener("submit", function (event) {
      var form = event.target;
      if (!form.classList.contains("js-edit")) return;
      event.preventDefault();
      submitForm(form, event.submitter);
    });

    // A slider sends its value when released; its Set button is only for pages without script.
    document.addEventListener("change", function (event) {
      var input = event.target;
      if (input.type === "range" && input.form && input.form.classList.contains("js-edit")) submitForm(input.form);
    });

    // Delete without confirm(): the edit tools' Delete asks once more in place ("Delete “X”?"),
    // a second press deletes; Escape, or a press elsewhere, takes the question back.
    document.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a.delete-link");
      if (!link) return;
      event.preventDefault();
      if (!link.classList.contains("confirming")) {
        link.classList.add("confirming");
        link.dataset.label = link.textContent;
        link.textContent = "Delete “" + link.dataset.title + "”?";
        return;
      }
      var tree = document.getElementById("tree");
      post(link.dataset.action, new URLSearchParams({ csrf: token }), function () {
        if (link.id === "delete-link" && tree && tree.unselect) tree.unselect();
      });
    });
    function unconfirmLinks(except) {
      Array.prototype.forEach.call(document.querySelectorAll("a.delete-link.confirming"), function (link) {
        if (link === except) return;
        link.classList.remove("confirming");
        link.textContent = link.dataset.label || "Delete";
      });
    }
    document.addEventListener("click", function (event) { unconfirmLinks(event.target.closest && event.target.closest("a.delete-link")); }, true);

    setUpEditRows(post, token);

    var dialog = document.getElementById("add-dialog");
    var addButton = document.getElementById("add-button");
    if (dialog && addButton && dialog.showModal) {
      var form = document.getElementById("add-dialog-form");
      var input = document.getElementById("add-dialog-title-input");
      // Focus returns to whatever opened the dialog (the + button) when it closes, however it closes.
      var opener = null, addAction = form.getAttribute("action");
      function openAdd(event, action, heading) {
        event.preventDefault();
        form.setAttribute("action", action);
        document.getElementById("add-dialog-title").textContent = heading;
        opener = document.activeElement && document.activeElement !== document.body ? document.activeElement : addButton;
        loadAddFields(form, action === addAction ? null : action).then(function () {
          dialog.showModal();
          input = document.getElementById("add-dialog-title-input");
          if (input) input.focus();
        });
      }
      addButton.addEventListener("click", function (event) { openAdd(event, addAction, "Add"); });
      document.addEventListener("click", function (event) {
        var link = event.target.closest && event.target.closest("#add-child-link");
        if (link) openAdd(event, "/edit/add/" + link.getAttribute("href").slice(5).split("?")[0], "Add to " + (document.getElementById("edit-selected-title") || {}).textContent);
      });
      dialog.addEventListener("close", function () {
        // ...unless the row just added has taken it (the outline focuses it).
        var moved = document.activeElement && document.activeElement !== document.body && !dialog.contains(document.activeElement);
        if (opener && document.contains(opener) && !moved) opener.focus();
        opener = null;
      });
      document.getElementById("add-dialog-cancel").addEventListener("click", function () { dialog.close(); });
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        say("");
        // A refusal that names no field (this row takes no children) closes the dialog and shows above the page.
        postFields(form, send, newKey, function (text) { dialog.close(); say(text); }).then(function (json) {
          if (!json) return;
          dialog.close();
          // In the outline the new row shows at once: its parent expands, and it is selected.
          var tree = document.getElementById("tree"), added = json.changed && json.paths && json.paths[0];
          if (added && tree && tree.prepare) {
            tree.prepare([added], added);
            refresh(true).then(function () { return tree.settle([added], added); });
          } else if (json.changed) refresh(true);
        });
      });
    }

    // Rename… (the outline's and columns' edit tools): a dialog instead of the form page.
    var renameDialog = document.getElementById("rename-dialog");
    if (renameDialog && renameDialog.showModal) {
      var renameForm = document.getElementById("rename-dialog-form");
      var renameInput = document.getElementById("rename-dialog-input");
      var renameOpener = null;
      document.addEventListener("click", function (event) {
        var link = event.target.closest && event.target.closest("#rename-link");
        if (!link) return;
        event.preventDefault();
        renameForm.setAttribute("action", "/edit/rename/" + link.getAttribute("href").slice(8).split("?")[0]);
        renameInput.value = (document.getElementById("edit-selected-title") || {}).textContent || "";
        renameOpener = link;
        renameDialog.showModal();
        renameInput.select();
        presenceEditing((document.getElementById("edit-selected-path") || {}).textContent || "");
      });
      renameDialog.addEventListener("close", function () {
        presenceEditing("");
        if (renameOpener && document.contains(renameOpener)) renameOpener.focus();
        renameOpener = null;
      });
      document.getElementById("rename-dialog-cancel").addEventListener("click", function () { renameDialog.close(); });
      renameForm.addEventListener("submit", function (event) {
        event.preventDefault();
        var title = renameInput.value.trim(), action = renameForm.getAttribute("action");
        renameDialog.close();
        if (title) post(action, new URLSearchParams({ title: title }), function () {
          var strong = document.getElementById("edit-selected-title");
          if (strong) strong.textContent = title;
          var del = document.getElementById("delete-link");
          if (del) del.dataset.title = title;
        });
      });
    }

    // ---- Moving rows in Edit mode: drag by the handle, or Alt+arrows ----------------------
    // Every move is one POST /edit/move/PATH with to=PARENT and index=N (counted after the row
    // left its place); the server refuses a move into the row's own subtree with the core's
    // message, which shows above the page.
    // `focus` picks what gets focus in the moved row of a level (its cell unless given).
    function move(from, to, index, focus) {
      var body = new URLSearchParams({ to: to });
      if (index !== null && index !== undefined) body.set("index", String(index));
      var tree = document.getElementById("tree");
      var moved = null;
      return post("/edit/move/" + from, body, function (json) {
        moved = json.paths && json.paths[0];
        if (tree && tree.remap && moved) {
          tree.remap(from, moved);
          if (to && tree.open) tree.open(to);
        }
      }).then(function (json) {
        if (!json || !moved) return json;
        if (tree && tree.reveal) return tree.reveal(moved).then(function () { return json; });
        var cell = document.querySelector("#n-" + moved.replace(/\./g, "\\.") + " " + (focus || "a.cell"));
        if (cell) cell.focus();
        return json;
      });
    }
    // The move a drop on `target` (before, after or into it) asks for, or null when it changes nothing.
    function dropMove(from, target, zone) {
      if (target === from && zone === "into") return null;
      if (zone === "into") return { to: target, index: null };
      var parent = parentPath(target), index = lastIndex(target) + (zone === "after" ? 1 : 0);
      if (parentPath(from) === parent && lastIndex(from) < index) index -= 1;
      if (parentPath(from) === parent && lastIndex(from) === index) return null;
      return { to: parent, index: index };
    }
    function isEditMode() { return !!document.querySelector("#rows .row.editing, #tree.editing"); }
    function rowCount(li) {
      var cell = li.querySelector("[aria-setsize]");
      if (cell) return Number(cell.getAttribute("aria-setsize"));
      var rowsList = document.getElementById("rows");
      return rowsList ? Number(rowsList.dataset.total) : 0;
    }

    // Keyboard: Alt+Up/Down reorders among siblings, Alt+Right moves the row into the row above
    // it (its previous sibling, as its last child), Alt+Left moves it out, after its parent.
    document.addEventListener("keydown", function (event) {
      if (!event.altKey || event.ctrlKey || event.metaKey || !isEditMode()) return;
      var li = event.target.closest && event.target.closest("#rows li[data-path], #tree li[data-path]");
      if (!li) return;
      // A level ordered by its key or a sort: has no reorder handles, and its rows stay put.
      if (li.closest("#rows") && !li.querySelector(".drag-handle")) return;
      var path = li.dataset.path, last = lastIndex(path), parent = parentPath(path);
      var outline = document.getElementById("tree");
      if ((event.key === "ArrowUp" || event.key === "ArrowDown") && outline && outline.moveSelection) {
        var index = outline.indexOf(path), current = index === null ? null : outline.rowAt(index);
        if (current && outline.moveSelection(current, event.key === "ArrowUp" ? "up" : "down")) {
          event.preventDefault();
          event.stopPropagation();
          return;
        }
      }
      var plan = null;
      if (event.key === "ArrowUp" && last > 0) plan = { to: parent, index: last - 1 };
      else if (event.key === "ArrowDown" && last < rowCount(li) - 1) plan = { to: parent, index: last + 1 };
      else if (event.key === "ArrowRight" && last > 0) plan = { to: pathText(pathArray(parent).concat(last - 1)), index: null };
      else if (event.key === "ArrowLeft" && parent) plan = { to: parentPath(parent), index: lastIndex(parent) + 1 };
      if (!/^Arrow/.test(event.key)) return;
      event.preventDefault();
      event.stopPropagation();
      var fromHandle = event.target.classList.contains("drag-handle");
      if (plan) move(path, plan.to, plan.index, fromHandle ? ".drag-handle" : null).then(function (json) {
        if (json && fromHandle) announceMove(json);
      });
    }, true);

    // The reorder handle from the keyboard: Space or Enter grabs the row (the handle is a toggle
    // button), Up and Down move it, Space, Enter or Escape drop it; each step is announced.
    var reorderStatus = document.createElement("div");
    reorderStatus.className = "visually-hidden";
    reorderStatus.id = "reorder-status";
    reorderStatus.setAttribute("role", "status");
    document.body.appendChild(reorderStatus);
    function announce(text) { reorderStatus.textContent = text; }
    function place(path) {
      var rowsList = document.getElementById("rows");
      return "position " + (lastIndex(path) + 1) + " of " + (rowsList ? rowsList.dataset.total : "?");
    }
    function announceMove(json) {
      var moved = json.paths && json.paths[0], li = moved && document.getElementById("n-" + moved);
      if (li) announce("Moved " + li.querySelector(".row-title").textContent + " to " + place(moved) + ".");
    }
    function setGrabbed(handle, on) {
      handle.setAttribute("aria-pressed", on ? "true" : "false");
      handle.closest("li").classList.toggle("grabbed", on);
      grabbedPath = on ? handle.closest("li").dataset.path : null;
    }
    document.addEventListener("keydown", function (event) {
      var handle = event.target.closest && event.target.closest("#rows .drag-handle");
      if (!handle || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      var li = handle.closest("li[data-path]"), path = li.dataset.path;
      var title = li.querySelector(".row-title").textContent, grabbed = handle.getAttribute("aria-pressed") === "true";
      var key = event.key;
      if (key === " " || key === "Enter" || (key === "Escape" && grabbed)) {
        event.preventDefault();
        event.stopPropagation();
        setGrabbed(handle, !grabbed && key !== "Escape");
        announce(grabbed ? "Dropped " + title + " at " + place(path) + "." : "Grabbed " + title + " at " + place(path) + ". Up and Down move it; Space drops it.");
        return;
      }
      if (!grabbed || (key !== "ArrowUp" && key !== "ArrowDown")) return;
      event.preventDefault();
      event.stopPropagation();
      var last = lastIndex(path), index = key === "ArrowUp" ? last - 1 : last + 1;
      if (index < 0 || index >= rowCount(li)) { announce(title + " is already " + (index < 0 ? "first." : "last.")); return; }
      grabbedPath = null;  // while it moves: a re-render meanwhile grabs nothing
      move(path, parentPath(path), index, ".drag-handle").then(function (json) {
        if (!json) return;
        var moved = json.paths && json.paths[0], again = moved && document.querySelector("#n-" + moved.replace(/\./g, "\\.") + " .drag-handle");
        if (again) setGrabbed(again, true);
        announceMove(json);
      });
    }, true);

    // Dragging: the pointer picks the row by its handle; over another row of the same list, the
    // top quarter drops before it, the bottom quarter after it, the middle into it (as its last
    // child). Near the top or bottom edge the page scrolls; Escape cancels.
    var drag = null;
    var indicator = document.createElement("div");
    indicator.className = "drop-indicator";
    indicator.id = "drop-indicator";
    indicator.hidden = true;
    document.body.appendChild(indicator);
    function clearTarget() {
      var old = document.querySelector(".drop-into");
      if (old) old.classList.remove("drop-into");
      indicator.hidden = true;
    }
    function track(x, y) {
      clearTarget();
      drag.target = null;
      // In the outline the pointer may leave the list sideways (choosing a depth): the row is the one at its height.
      var bounds = drag.list.getBoundingClientRect();
      var hit = document.elementFromPoint(drag.list.dropGap ? Math.max(bounds.left + 1, Math.min(bounds.right - 1, x)) : x, y);
      var li = hit && hit.closest && hit.closest("li[data-path]");
      if (!li || li.parentNode !== drag.list) return;
      var rect = li.getBoundingClientRect(), f = (y - rect.top) / rect.height;
      var zone = f < 0.25 ? "before" : f > 0.75 ? "after" : "into";
      drag.target = { path: li.dataset.path, zone: zone };
      if (zone === "into") { li.classList.add("drop-into"); return; }
      var listRect = bounds, left = listRect.left;
      // In the outline the line is indented to the depth the row lands at, which follows the
      // pointer's x (a step left or right of where the drag began is a level out or in).
      if (drag.list.dropGap) {
        var step = parseFloat(getComputedStyle(drag.list).getPropertyValue("--indent-step")) || 20;
        var gap = drag.list.dropGap(Number(li.dataset.index), zone, drag.depth + Math.round((x - drag.startX) / step));
        if (!gap) { drag.target = null; return; }
        drag.target = { path: gap.path, zone: gap.zone };
        indicator.dataset.depth = String(gap.depth);
        left = Math.max(listRect.left, gap.left);
      }
      indicator.style.top = Math.round(zone === "before" ? rect.top : rect.bottom) - 1 + "px";
      indicator.style.left = Math.round(left) + "px";
      indicator.style.width = Math.round(listRect.right - left) + "px";
      indicator.hidden = false;
    }
    function autoScroll() {
      if (!drag || !drag.active) return;
      var navBottom = navbar ? navbar.getBoundingClientRect().bottom : 0, edge = 56, speed = 0;
      if (drag.y < navBottom + edge) speed = -Math.ceil((navBottom + edge - drag.y) / 3);
      else if (drag.y > window.innerHeight - edge) speed = Math.ceil((drag.y - window.innerHeight + edge) / 3);
      if (speed) {
        window.scrollBy(0, Math.max(-30, Math.min(30, speed)));
        track(drag.x, drag.y);
      }
      drag.frame = requestAnimationFrame(autoScroll);
    }
    function endDrag() {
      if (!drag) return;
      cancelAnimationFrame(drag.frame);
      clearTarget();
      if (drag.li) drag.li.classList.remove("dragging");
      document.body.classList.remove("drag-active");
      drag = null;
    }
    document.addEventListener("pointerdown", function (event) {
      var handle = event.target.closest && event.target.closest(".drag-handle");
      if (!handle || event.button !== 0) return;
      var li = handle.closest("li[data-path]");
      if (!li) return;
      event.preventDefault();
      var level = li.querySelector("[aria-level]");
      drag = {
        from: li.dataset.path, li: li, list: li.parentNode, x: event.clientX, y: event.clientY, startX: event.clientX, startY: event.clientY,
        depth: level ? Number(level.getAttribute("aria-level")) : 1, active: false, target: null
      };
    });
    document.addEventListener("pointermove", function (event) {
      if (!drag) return;
      drag.x = event.clientX; drag.y = event.clientY;
      if (!drag.active) {
        if (Math.abs(drag.y - drag.startY) < 4) return;
        drag.active = true;
        drag.li.classList.add("dragging");
        document.body.classList.add("drag-active");
        drag.frame = requestAnimationFrame(autoScroll);
      }
      event.preventDefault();
      track(drag.x, drag.y);
    });
    document.addEventListener("pointerup", function () {
      if (!drag) return;
      var done = drag.active && drag.target ? dropMove(drag.from, drag.target.path, drag.target.zone) : null;
      var from = drag.from, target = drag.active && drag.target;
      endDrag();
      var tree = document.getElementById("tree");
      if (target && tree && tree.dropSelection && tree.dropSelection(from, target.path, target.zone)) return;
      if (done) move(from, done.to, done.index);
    });
    document.addEventListener("pointercancel", endDrag);
    document.addEventListener("keydown", function (event) {
      if (drag && event.key === "Escape") { endDrag(); event.preventDefault(); event.stopPropagation(); }
    }, true);

    setUpFieldsForm(send, newKey);
    if (screen === "history") setUpRevert(send, newKey);
  }

  // The History screen's Revert, without leaving the page: the screen is shown again and the new
  // entry (the revert, at the top) gets the focus, so a keyboard user lands on what their Enter
  // made; a refusal is said above the list, and the focus stays on the button. Without the
  // script the form posts and the server redirects back.
  function setUpRevert(send, newKey) {
    function say(text) {
      var shown = document.getElementById("history-error");
      if (!shown) {
        shown = document.createElement("p");
        shown.className = "form-error";
        shown.id = "history-error";
        shown.setAttribute("role", "alert");
        var heading = document.getElementById("history-heading");
        heading.parentNode.insertBefore(shown, heading.nextSibling);
      }
      shown.textContent = text;
    }
    document.addEventListener("submit", function (event) {
      var form = event.target;
      if (!form.classList || !form.classList.contains("history-revert")) return;
      event.preventDefault();
      var id = form.querySelector('input[name="id"]').value;
      send("/api/history/revert", JSON.stringify({ id: Number(id) }), newKey(), 0)
        .then(function (r) {
          return r.json().then(function (json) {
            if (!r.ok) throw new Error(json.error || r.statusText);
            // A refresh already under way may have started before the revert: wait for the next.
            return refresh(true).then(function () { return refreshing; });
          });
        })
        .then(function () {
          var entries = document.querySelectorAll(".history-entry"), made = null;
          for (var i = 0; i < entries.length && !made; i++) {
            var kind = entries[i].querySelector(".history-kind");
            if (kind && kind.textContent.indexOf("Revert of #" + id + ":") === 0) made = entries[i];
          }
          (made || document.getElementById("history-heading")).focus();
        })
        .catch(function (error) { say(error.message); });
    });
  }

  // ---- A level's rows in Edit mode (RowHTML.appendEditingRow) ---------------------------------
  // The red ⊖ slides in the row's Delete button (a press elsewhere or Escape takes it back; the
  // button posts the delete); the title is edited in place (Enter saves, Escape cancels, leaving
  // the field saves). Without script the ⊖ and the title are links to the Delete and Rename pages.
  function setUpEditRows(post) {
    function closeDelete(except) {
      Array.prototype.forEach.call(document.querySelectorAll("#rows .row.confirming"), function (li) {
        if (li === except) return;
        li.classList.remove("confirming");
        li.querySelector(".delete-toggle").setAttribute("aria-expanded", "false");
      });
    }
    document.addEventListener("click", function (event) {
      var target = event.target.closest ? event.target : null;
      if (!target) return;
      var toggle = target.closest("#rows .delete-toggle"), li = toggle && toggle.closest("li");
      if (!target.closest("#rows .row.confirming .delete-form")) closeDelete(li);
      if (toggle) {
        event.preventDefault();
        var open = !li.classList.contains("confirming");
        li.classList.toggle("confirming", open);
        toggle.setAttribute("aria-expanded", open ? "true" : "false");
        if (open) li.querySelector(".delete-confirm").focus({ preventScroll: true });
        return;
      }
      var cell = target.closest("#rows .row.editing .rename-cell");
      if (cell && event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
        event.preventDefault();
        rename(cell);
      }
    });
    document.addEventListener("keydown", function (event) {
      var open = event.key === "Escape" && document.querySelector("#rows .row.confirming");
      if (!open) return;
      event.preventDefault();
      event.stopPropagation();
      closeDelete(null);
      open.querySelector(".delete-toggle").focus();
    }, true);
    function rename(cell) {
      var li = cell.closest("li[data-path]"), path = li.dataset.path, title = li.querySelector(".row-title");
      var old = title.textContent, done = false;
      var input = document.createElement("input");
      input.className = "rename-input";
      input.value = old;
      input.maxLength = 1000;
      input.autocomplete = "off";
      input.setAttribute("aria-label", "New title of " + old);
      cell.hidden = true;
      cell.after(input);
      input.focus();
      input.select();
      presenceEditing(path);
      function focusCell() {
        var now = document.querySelector("#n-" + path.replace(/\./g, "\\.") + " .rename-cell");
        if (now) now.focus();
      }
      function finish(save) {
        if (done) return;
        done = true;
        var value = input.value.trim();
        input.remove();
        cell.hidden = false;
        presenceEditing("");
        if (!save || !value || value === old) { focusCell(); return; }
        title.textContent = value;
        post("/edit/rename/" + path, new URLSearchParams({ title: value })).then(focusCell);
      }
      input.addEventListener("keydown", function (event) {
        if (event.key === "Enter") { event.preventDefault(); finish(true); }
        else if (event.key === "Escape") { event.preventDefault(); event.stopPropagation(); finish(false); }
      });
      input.addEventListener("blur", function () { finish(true); });
    }
  }

  // A level re-rendered in place (a change, here or elsewhere) keeps the focused control of its
  // row, and the row grabbed by its reorder handle stays grabbed.
  var grabbedPath = null;
  function rowFocus() {
    var active = document.activeElement, li = active && active.closest && active.closest("#rows li[id]");
    return li && active.classList.length ? { id: li.id, name: active.classList[0] } : null;
  }
  function restoreRowFocus(keep) {
    var handle = grabbedPath && document.querySelector("#n-" + grabbedPath.replace(/\./g, "\\.") + " .drag-handle");
    if (handle) { handle.setAttribute("aria-pressed", "true"); handle.closest("li").classList.add("grabbed"); }
    else grabbedPath = null;
    var li = keep && document.getElementById(keep.id), el = li && li.querySelector("." + keep.name);
    if (el) el.focus();
  }

  // A thumbnail that does not load becomes a neutral placeholder (not the broken-image icon).
  function setUpThumbnails() {
    function replace(img) {
      var box = document.createElement("span");
      box.className = "thumb thumb-missing";
      box.setAttribute("aria-hidden", "true");
      img.replaceWith(box);
    }
    document.addEventListener("error", function (event) {
      var img = event.target;
      if (img.tagName === "IMG" && img.classList.contains("thumb")) replace(img);
    }, true);
    Array.prototype.forEach.call(document.querySelectorAll("img.thumb"), function (img) {
      if (img.complete && img.naturalWidth === 0) replace(img);
    });
  }

  // ---- Fields (the detail's Edit mode, the Add dialog's fields) ------------------------------
  // The inputs are posted as they are (f.KEY, and o.KEY: the text each showed, so only changed
  // fields count) to /edit/update/PATH or /edit/add/PATH; the server reads and checks every
  // value (the core's FieldForm), and its refusal ({"error", "field"}) is shown next to the
  // field it names, or above the fields. Nothing is parsed or checked here.
  function fieldsFormChanged() {
    var form = document.getElementById("fields-form");
    if (!form) return false;
    return Array.prototype.some.call(form.elements, function (el) {
      if (el.type === "checkbox") return el.checked !== el.defaultChecked;
      if (el.tagName === "SELECT") return Array.prototype.some.call(el.options, function (o) { return o.selected !== o.defaultSelected; });
      return el.type !== "hidden" && el.value !== el.defaultValue;
    });
  }

  function clearFieldErrors(form) {
    Array.prototype.forEach.call(form.querySelectorAll(".field-error"), function (p) { p.remove(); });
    Array.prototype.forEach.call(form.querySelectorAll("[aria-invalid]"), function (el) {
      el.removeAttribute("aria-invalid");
      el.removeAttribute("aria-describedby");
    });
    var general = form.querySelector(".form-error");
    if (general) { general.textContent = ""; general.hidden = true; }
  }

  function showFieldError(form, message, key, elsewhere) {
    var row = null;
    Array.prototype.forEach.call(form.querySelectorAll(".field-row[data-key]"), function (r) {
      if (key && r.dataset.key.toLowerCase() === String(key).toLowerCase()) row = r;
    });
    var input = row && row.querySelector("input:not([type=hidden]), select, textarea");
    if (!input && elsewhere) { elsewhere(message); return; }
    if (!input) {
      var general = form.querySelector(".form-error");
      if (general) { general.textContent = message; general.hidden = false; } else alert(message);
      return;
    }
    var p = document.createElement("p");
    p.className = "field-error";
    p.id = input.id + "-error";
    p.textContent = message;
    row.appendChild(p);
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", p.id);
    input.focus();
  }

  // Posts the form's inputs; resolves to the answer's JSON, or null after showing a refusal
  // (by its field, else through `elsewhere` when given, else above the fields).
  function postFields(form, send, newKey, elsewhere) {
    clearFieldErrors(form);
    var body = new URLSearchParams(new FormData(form));
    return send(form.getAttribute("action"), body, newKey(), 0).then(function (r) {
      return r.json().then(function (json) {
        if (r.ok) return json;
        showFieldError(form, json.error || r.statusText, json.field, elsewhere);
        return null;
      });
    }).catch(function (error) { showFieldError(form, error.message, null, elsewhere); return null; });
  }

  // The Add dialog's fields are those of a new child of the row it adds to: the level's own
  // are in the page; another row's (the edit tools' Add child…) come from its /add/PATH page.
  var initialAddFields = null;
  function loadAddFields(form, action) {
    var box = document.getElementById("add-dialog-fields");
    clearFieldErrors(form);
    if (initialAddFields === null) initialAddFields = box.innerHTML;
    if (!action) { box.innerHTML = initialAddFields; form.reset(); return Promise.resolve(); }
    return fetch("/add/" + action.replace(/^\/edit\/add\//, ""), { credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        var fields = new DOMParser().parseFromString(html, "text/html").getElementById("add-fields");
        box.innerHTML = fields ? fields.innerHTML : initialAddFields;
        var title = document.getElementById("add-title");
        if (title) { title.id = "add-dialog-title-input"; title.removeAttribute("autofocus"); }
        var label = box.querySelector('label[for="add-title"]');
        if (label) label.htmlFor = "add-dialog-title-input";
      })
      .catch(function () { box.innerHTML = initialAddFields; });
  }

  // The detail's Edit mode: Done posts every changed field as one step and shows the detail
  // again; Edit and Cancel replace the page in the history (one entry for the detail).
  function setUpFieldsForm(send, newKey) {
    document.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("#fields-edit, #fields-cancel, #fields-cancel-bottom");
      if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      location.replace(link.href);
    });
    var form = document.getElementById("fields-form");
    if (!form) return;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var back = form.querySelector('input[name="back"]').value;
      postFields(form, send, newKey).then(function (json) { if (json) location.replace(back); });
    });
  }
  if (csrfMeta) setUpEditing();
  if (csrfMeta || liveMeta) followChanges();

  setUpPathMenu();
  formatTimes(document);
  setUpThumbnails();
  // Sticky section headers sit under the navigation bar, whatever its height.
  var navbar = document.querySelector(".navbar");
  function measureNav() { document.documentElement.style.setProperty("--nav-h", navbar.offsetHeight + "px"); }
  if (navbar) { measureNav(); window.addEventListener("resize", measureNav); }
  if (document.getElementById("jump-bar")) document.body.classList.add("has-jump");
  var outlineTree = screen === "outline" && document.getElementById("tree");
  if (outlineTree) setUpVirtualTree(outlineTree);
  if (outlineTree && outlineTree.classList.contains("editing") && window.drilldownBatch) setUpOutlineKeys(outlineTree, window.drilldownBatch);
  var big = document.querySelector("#rows[data-virtual]");
  if (big) setUpVirtualList(big);
  if (screen === "columns") {
    var columns = document.getElementById("columns");
    // Each column shows its selected row (scrolling that column only), then the strip shows its
    // last column whole: scrollIntoView would also scroll the strip back to earlier columns.
    var selected = document.querySelectorAll(".column .row.selected");
    Array.prototype.forEach.call(selected, function (row) {
      var column = row.closest(".column");
      if (row.offsetTop < column.scrollTop || row.offsetTop + row.offsetHeight > column.scrollTop + column.clientHeight) {
        column.scrollTop = row.offsetTop - column.clientHeight / 2;
      }
    });
    if (columns) columns.scrollLeft = columns.scrollWidth;
    focusColumns();
  }
})();
