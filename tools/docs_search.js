/* Search over every page of the offline documentation, from file:// as from a web server.

tools/build_docs.py writes the index as a script, search_index.js (window.RELIEFFML_SEARCH: one entry
per section of each page, {p: page title, s: section title, u: URL relative to the site root,
t: the section's text}), so no fetch is needed. Every term of the query must occur in a section
(case-insensitive substring: `one_error`, `n_neighbors`, `§2`); sections are ranked by where the
terms occur and how often: a section or page titled exactly as the whole query, with its case (an API
name, `ReliefFML`, over the package `relieffml`), first; then any case; then a page title, a section
title, the text. The papers' abbreviations of the measures (ABBREVIATIONS: HL, OE, RL, AP, Acc, F, ...)
match their full names too, and themselves only as whole words with that case. `?q=words` in the page's URL runs a
search on load. When the index has loaded, <body data-search="N"> holds its number of entries
(tools/check_pages.py checks it).
*/
(function () {
  "use strict";
  var MAX = 30;
  function esc(s) { return s.replace(/[&<>"]/g, function (c) { return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]; }); }
  function count(hay, term) { var n = 0, i = hay.indexOf(term); while (i >= 0) { n++; i = hay.indexOf(term, i + term.length); } return n; }

  // the measures as the papers abbreviate them (Reyes et al. 2013, Tables 1-4; Spolaôr et al. 2015; Zhang & Zhou 2014)
  // (their names in prose, then in code: a section named by the function, `hamming_loss`, ranks first)
  var ABBREVIATIONS = {HL: ["hamming loss", "hamming_loss"], OE: ["one-error", "one error", "one_error"],
    RL: ["ranking loss", "ranking_loss"], AP: ["average precision", "average_precision"], Acc: ["accuracy"],
    F: ["f-measure", "f1"], SA: ["subset accuracy", "subset_accuracy"], Cov: ["coverage"], MiF: ["micro-f1", "micro f1"],
    MaF: ["macro-f1", "macro f1"], KI: ["kuncheva"], FFA: ["forward feature addition"], LC: ["label cardinality"]};
  function escRe(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  // one query word: the strings it matches (lower case) and, for an abbreviation, itself as a whole word with its case
  function term(raw) {
    var alts = [raw.toLowerCase()], word = null;
    if (ABBREVIATIONS.hasOwnProperty(raw)) { alts = ABBREVIATIONS[raw]; word = new RegExp("(^|[^\\w-])" + escRe(raw) + "(?![\\w-])", "g"); }
    return {alts: alts, word: word};
  }
  function matches(text, lower, t) {
    var n = 0;
    t.alts.forEach(function (a) { n += count(lower, a); });
    if (t.word) n += (text.match(t.word) || []).length;
    return n;
  }

  function search(index, query) {
    var q = query.trim(), raw = q.split(/\s+/).filter(Boolean), terms = raw.map(term), hits = [];
    if (!terms.length) return hits;
    index.forEach(function (e) {
      var p = e.p.toLowerCase(), s = e.s.toLowerCase(), t = e.t.toLowerCase(), score = 0;
      for (var i = 0; i < terms.length; i++) {
        var n = matches(e.t, t, terms[i]), inP = matches(e.p, p, terms[i]) > 0, inS = matches(e.s, s, terms[i]) > 0;
        if (!n && !inP && !inS) return;
        score += (inP ? 20 : 0) + (inS ? 10 : 0) + Math.min(n, 10);
      }
      var name = e.s.split(".").pop(), title = [e.s, name, e.s === e.p ? e.p : null];
      if (title.indexOf(q) >= 0) score += 200;                               // exactly the name, with its case
      else if (title.some(function (x) { return x && x.toLowerCase() === q.toLowerCase(); })) score += 100;
      if (raw.length === 1 && terms[0].word && terms[0].alts.some(function (a) { return s.indexOf(a) >= 0; })) score += 100;
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
    var hits = search(index, q), first = term(q.split(/\s+/)[0]).alts[0];
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
