/* Search over every page of the offline documentation, from file:// as from a web server.

tools/build_docs.py writes the index as a script, search_index.js (window.RELIEFFML_SEARCH: one entry
per section of each page, {p: page title, s: section title, u: URL relative to the site root,
t: the section's text}), so no fetch is needed. Every term of the query must occur in a section
(case-insensitive substring: `one_error`, `n_neighbors`, `§2`); sections are ranked by where the
terms occur (a section named exactly so > page title > section title > text) and how often. `?q=words` in the page's URL runs a
search on load. When the index has loaded, <body data-search="N"> holds its number of entries
(tools/check_pages.py checks it).
*/
(function () {
  "use strict";
  var MAX = 30;
  function esc(s) { return s.replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; }); }
  function count(hay, term) { var n = 0, i = hay.indexOf(term); while (i >= 0) { n++; i = hay.indexOf(term, i + term.length); } return n; }

  function search(index, query) {
    var terms = query.toLowerCase().split(/\s+/).filter(Boolean), hits = [];
    if (!terms.length) return hits;
    index.forEach(function (e) {
      var p = e.p.toLowerCase(), s = e.s.toLowerCase(), t = e.t.toLowerCase(), score = 0;
      for (var i = 0; i < terms.length; i++) {
        var w = terms[i], n = count(t, w), inP = p.indexOf(w) >= 0, inS = s.indexOf(w) >= 0;
        if (!n && !inP && !inS) return;
        score += (inP ? 20 : 0) + (inS ? 10 : 0) + (s === w || s.split(".").pop() === w ? 30 : 0) + Math.min(n, 10);
      }
      hits.push({e: e, score: score});
    });
    hits.sort(function (a, b) { return b.score - a.score; });
    return hits.slice(0, MAX);
  }

  function snippet(text, term) {
    var i = text.toLowerCase().indexOf(term), a = Math.max(0, i - 60);
    if (i < 0) return esc(text.slice(0, 140)) + (text.length > 140 ? " …" : "");
    var pre = (a > 0 ? "… " : "") + esc(text.slice(a, i)), mid = esc(text.slice(i, i + term.length));
    var post = esc(text.slice(i + term.length, i + term.length + 90));
    return pre + "<mark>" + mid + "</mark>" + post + " …";
  }

  function show(box, panel, index, root) {
    var q = box.value.trim();
    if (!q) { panel.hidden = true; panel.innerHTML = ""; return; }
    var hits = search(index, q), first = q.toLowerCase().split(/\s+/)[0];
    var html = '<p class="search-count">' + hits.length + (hits.length === MAX ? "+" : "") +
      " result" + (hits.length === 1 ? "" : "s") + " for <strong>" + esc(q) + "</strong></p>";
    html += hits.map(function (h) {
      var e = h.e, title = esc(e.p) + (e.s && e.s !== e.p ? " › " + esc(e.s) : "");
      return '<li><a href="' + esc(root + e.u) + '">' + title + "</a><p>" + snippet(e.t, first) + "</p></li>";
    }).join("");
    panel.innerHTML = html.replace("</p>", "</p><ol>") + "</ol>";
    panel.hidden = false;
  }

  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("search-box"), panel = document.getElementById("search-results");
    var index = window.RELIEFFML_SEARCH;
    if (!box || !panel) return;
    if (!index || !index.length) { box.placeholder = "search index missing"; box.disabled = true; return; }
    document.body.setAttribute("data-search", String(index.length));
    var root = box.getAttribute("data-root") || "";
    box.addEventListener("input", function () { show(box, panel, index, root); });
    box.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape") { box.value = ""; show(box, panel, index, root); }
      if (ev.key === "Enter") { var a = panel.querySelector("a"); if (a) window.location.href = a.href; }
    });
    var q = new URLSearchParams(window.location.search).get("q");
    if (q) { box.value = q; box.dispatchEvent(new Event("input")); }
  });
})();
