// DrillDown web app: progressive enhancement only. Every screen works without this script.
// Adds: keyboard navigation, copy buttons for paths, in-place outline expand/collapse, and a
// virtualized list for large levels (at most ~200 row elements in the DOM, whatever the level size).
(function () {
  "use strict";

  var screen = document.body.dataset.screen;

  function isTyping(target) {
    return target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable);
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
    var back = document.getElementById("back");
    if (back) back.click(); else if (history.length > 1) history.back();
  }

  // ---- Copy buttons for the path bar -----------------------------------------------------
  function addCopyButtons() {
    ["tree-path", "title-path"].forEach(function (id) {
      var input = document.getElementById(id);
      if (!input) return;
      var button = document.createElement("button");
      button.type = "button";
      button.className = "button copy-button";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy " + (id === "tree-path" ? "TreePath" : "title path"));
      button.addEventListener("click", function () {
        input.select();
        var done = function () { button.textContent = "Copied"; setTimeout(function () { button.textContent = "Copy"; }, 1200); };
        if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(input.value).then(done, done);
        else { try { document.execCommand("copy"); } catch (e) { /* selection stays for manual copy */ } done(); }
      });
      input.parentNode.querySelector("span").appendChild(button);
      input.addEventListener("focus", function () { input.select(); });
    });
  }

  // ---- Search: a live match count while typing --------------------------------------------
  // Asks /api/search with limit=0 (the total only, no rows presented), 200 ms after the last
  // keystroke, and cancels the request a newer keystroke makes stale.
  function setUpSearchCount() {
    var input = document.getElementById("search"), out = document.getElementById("search-count");
    if (!input || !out || !window.fetch) return;
    var values = input.form && input.form.querySelector('input[name="values"]');
    var timer = null, controller = null, asked = null;
    function update() {
      var q = input.value.trim(), withValues = !!(values && values.checked);
      var key = q + "\u0000" + withValues;
      if (key === asked) return;
      asked = key;
      if (controller) controller.abort();
      controller = null;
      if (!q) { out.textContent = ""; return; }
      controller = window.AbortController ? new AbortController() : null;
      var url = "/api/search?limit=0&q=" + encodeURIComponent(q) + (withValues ? "&values=1" : "");
      fetch(url, { signal: controller ? controller.signal : undefined }).then(function (r) {
        return r.ok ? r.json() : null;
      }).then(function (data) {
        if (!data || asked !== key) return;
        out.textContent = data.total === 1 ? "1 match" : data.total.toLocaleString("en-US") + " matches";
      }).catch(function () { /* aborted or offline: the count waits for the next keystroke */ });
    }
    input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(update, 200); });
    if (values) values.addEventListener("change", update);
  }

  // ---- Outline: in-place expand and collapse ---------------------------------------------
  // The row (<li>) of an element inside the tree, and the row's treeitem (its cell).
  function treeItem(el) { return el && el.closest("li.treeitem"); }
  function itemCell(li) { return li && li.querySelector('[role="treeitem"]'); }

  // Roving tabindex (WAI-ARIA tree pattern): the tree is one tab stop, on the focused or
  // selected item; arrows move within it.
  function rove(cell) {
    var tree = document.getElementById("tree");
    if (!tree) return;
    var cells = tree.querySelectorAll('[role="treeitem"]');
    if (!cell) cell = tree.querySelector('[role="treeitem"][aria-selected="true"]') || cells[0];
    Array.prototype.forEach.call(cells, function (c) { c.setAttribute("tabindex", c === cell ? "0" : "-1"); });
  }

  function toggleInPlace(link, keepFocusPath) {
    var href = link.getAttribute("href");
    return fetch(href, { headers: { Accept: "text/html" } }).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.text();
    }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      ["#tree", "#pager", ".outline-count"].forEach(function (sel) {
        var now = document.querySelector(sel), next = doc.querySelector(sel);
        if (now && next) now.replaceWith(document.importNode(next, true));
        else if (now) now.remove();
        else if (next) document.querySelector("#tree").after(document.importNode(next, true));
      });
      history.replaceState(null, "", href.split("#")[0]);
      var item = keepFocusPath !== undefined ? document.getElementById("n-" + keepFocusPath) : null;
      rove(itemCell(item));
      if (item) focusItem(itemCell(item));
    }).catch(function () { location.href = href; });
  }

  function setUpOutline() {
    var main = document.getElementById("main");
    main.addEventListener("click", function (event) {
      var link = event.target.closest("a.disclosure");
      if (!link || event.metaKey || event.ctrlKey || event.shiftKey) return;
      event.preventDefault();
      toggleInPlace(link, treeItem(link).dataset.path);
    });
    main.addEventListener("focusin", function (event) {
      var cell = event.target.closest && event.target.closest('#tree [role="treeitem"]');
      if (cell) rove(cell);
    });
    rove();
    var focused = document.querySelector(".treeitem.focused [role=treeitem]");
    if (focused) focusItem(focused);
  }

  function outlineKey(event, cell) {
    var item = treeItem(cell);
    if (!item) return false;
    var disclosure = item.querySelector("a.disclosure");
    var expanded = cell.getAttribute("aria-expanded");
    if (event.key === "ArrowRight" || event.key === " ") {
      if (expanded === "false") { toggleInPlace(disclosure, item.dataset.path); return true; }
      if (event.key === " ") return true;
      if (expanded === "true") {
        var next = item.nextElementSibling;
        if (next) focusItem(itemCell(next));
        return true;
      }
      return false;
    }
    if (event.key === "ArrowLeft") {
      if (expanded === "true") { toggleInPlace(disclosure, item.dataset.path); return true; }
      var level = Number(cell.getAttribute("aria-level"));
      for (var p = item.previousElementSibling; p; p = p.previousElementSibling) {
        if (Number(itemCell(p).getAttribute("aria-level")) < level) { focusItem(itemCell(p)); return true; }
      }
      return true;
    }
    return false;
  }

  // ---- Virtualized level list --------------------------------------------------------------
  function setUpVirtualList(list) {
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
    list.setAttribute("aria-rowcount", String(total));
    var pager = document.getElementById("pager");
    if (pager) pager.hidden = true;

    function makeRow(row) {
      var li = document.createElement("li");
      li.className = "row" + (row.href ? "" : " disabled");
      li.id = "n-" + row.path;
      li.dataset.path = row.path;
      var cell = document.createElement(row.href ? "a" : "span");
      cell.className = "cell";
      if (row.href) cell.href = row.href;
      if (row.image) {
        var img = document.createElement("img");
        img.className = "thumb"; img.src = row.image; img.alt = ""; img.width = 44; img.height = 44;
        cell.appendChild(img);
      }
      var text = document.createElement("span");
      text.className = "text";
      var title = document.createElement("span");
      title.className = "row-title"; title.textContent = row.title;
      text.appendChild(title);
      if (row.subtitle) {
        var sub = document.createElement("span");
        sub.className = "row-subtitle"; sub.textContent = row.subtitle;
        text.appendChild(sub);
      }
      cell.appendChild(text);
      if (row.drills) {
        var chev = document.createElement("span");
        chev.className = "chevron"; chev.setAttribute("aria-hidden", "true");
        cell.appendChild(chev);
      }
      li.appendChild(cell);
      if (row.detailButton) {
        var info = document.createElement("a");
        info.className = "info"; info.href = "/d/" + row.path; info.textContent = "i";
        info.setAttribute("aria-label", "Details of " + row.title);
        li.appendChild(info);
      }
      return li;
    }

    function fetchPage(page) {
      if (pending.has(page)) return;
      pending.set(page, true);
      fetch(api + "?offset=" + page * pageSize + "&limit=" + pageSize).then(function (r) { return r.json(); }).then(function (data) {
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

    function windowRange() {
      var pos = Math.max(0, window.scrollY - listTop());
      var exact = Math.min(total - 1, pos / (rowHeight * scale));
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
          el.setAttribute("aria-rowindex", String(i + 1));
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

    function scrollToIndex(i, align) {
      var y = listTop() + i * rowHeight * scale;
      if (align === "bottom") y -= window.innerHeight - rowHeight - 8;
      else y -= document.querySelector(".navbar").offsetHeight + 8 + (current ? current.offsetHeight : 0);
      window.scrollTo(0, Math.max(0, y));
    }

    var ticking = false, urlTimer = null;
    window.addEventListener("scroll", function () {
      if (!ticking) { ticking = true; requestAnimationFrame(function () { ticking = false; render(); }); }
      clearTimeout(urlTimer);
      urlTimer = setTimeout(function () {
        var first = windowRange().first;
        var url = location.pathname + (first > 0 ? "?offset=" + first : "");
        history.replaceState(null, "", url);
      }, 300);
    }, { passive: true });
    window.addEventListener("resize", render);

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
    if (screen === "outline" && cell && outlineKey(event, cell)) { event.preventDefault(); return; }
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


  // ---- Editing (editable servers only): forms posted with fetch, the Add dialog, live updates --
  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  document.documentElement.classList.add("js");
  function setUpEditing() {
    var token = csrfMeta.content;
    var refreshing = null, again = false;

    // Re-renders the current page's main area and title in place (no reload).
    function refresh(force) {
      if (refreshing) { again = true; return refreshing; }
      refreshing = fetch(location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html === null) return;
          var doc = new DOMParser().parseFromString(html, "text/html");
          var fresh = doc.getElementById("main"), main = document.getElementById("main");
          var active = document.activeElement;
          if (!force && active && main.contains(active) && active.tagName === "INPUT" && active.type !== "range") return;
          if (fresh && main) main.innerHTML = fresh.innerHTML;
          var title = doc.getElementById("title");
          if (title) document.getElementById("title").textContent = title.textContent;
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

    function post(action, body) {
      return fetch(action, {
        method: "POST", credentials: "same-origin", body: body,
        headers: { Accept: "application/json", "X-CSRF-Token": token }
      }).then(function (r) {
        return r.json().then(function (json) {
          if (!r.ok) throw new Error(json.error || r.statusText);
          return json;
        });
      }).then(function (json) { return refresh(true).then(function () { return json; }); })
        .catch(function (error) { alert(error.message); });
    }

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

    document.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a.delete-link");
      if (!link) return;
      event.preventDefault();
      if (confirm("Delete “" + link.dataset.title + "” and everything under it?")) {
        post(link.dataset.action, new URLSearchParams({ csrf: token }));
      }
    });

    var dialog = document.getElementById("add-dialog");
    var addButton = document.getElementById("add-button");
    if (dialog && addButton && dialog.showModal) {
      var form = document.getElementById("add-dialog-form");
      var input = document.getElementById("add-dialog-title-input");
      // Focus returns to whatever opened the dialog (the + button) when it closes, however it closes.
      var opener = null;
      addButton.addEventListener("click", function (event) {
        event.preventDefault();
        input.value = "";
        opener = document.activeElement && document.activeElement !== document.body ? document.activeElement : addButton;
        dialog.showModal();
        input.focus();
      });
      dialog.addEventListener("close", function () {
        if (opener && document.contains(opener)) opener.focus();
        opener = null;
      });
      document.getElementById("add-dialog-cancel").addEventListener("click", function () { dialog.close(); });
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var title = input.value.trim();
        dialog.close();
        if (title) post(form.action, new URLSearchParams({ title: title }));
      });
    }

    // Live updates: every change made anywhere re-renders this page within a moment.
    if (window.EventSource) {
      var events = new EventSource("/events");
      events.addEventListener("change", function () { refresh(); });
      // Marks the page as following changes (tests wait for it instead of sleeping).
      events.addEventListener("hello", function () { document.body.dataset.live = "1"; });
      window.addEventListener("pagehide", function () { events.close(); });
    }
  }
  if (csrfMeta) setUpEditing();

  addCopyButtons();
  // Sticky section headers sit under the navigation bar, whatever its height.
  var navbar = document.querySelector(".navbar");
  function measureNav() { document.documentElement.style.setProperty("--nav-h", navbar.offsetHeight + "px"); }
  if (navbar) { measureNav(); window.addEventListener("resize", measureNav); }
  if (document.getElementById("jump-bar")) document.body.classList.add("has-jump");
  setUpSearchCount();
  if (screen === "outline") setUpOutline();
  var big = document.querySelector("#rows[data-virtual]");
  if (big) setUpVirtualList(big);
  if (screen === "columns") {
    var columns = document.getElementById("columns");
    if (columns) columns.scrollLeft = columns.scrollWidth;
    var selected = document.querySelectorAll(".column .row.selected");
    Array.prototype.forEach.call(selected, function (row) { row.scrollIntoView({ block: "nearest", inline: "nearest" }); });
  }
})();
