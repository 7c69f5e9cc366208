// browsercheck.js -- runs inside every page of the HTML book during scripts/check/browsercheck.sh,
// as the first script of a copy of the page, in an iframe of the width checked. It records errors
// from the start, inspects the DOM once the page has loaded, and reports one finding a line to the
// parent frame (postMessage), or into the page when it has no parent:
//
//   problem TEXT       something a reader would see go wrong
//   id ID              an element id (the shell checks other pages' links against these)
//   link FILE [FRAG]   a link to another file of the book, and the fragment it names if any
//   height N           the page's height in px at this width (for the full-page screenshots)
(function () {
  "use strict";
  var problems = [];
  var MAX_WIDE = 8;    // text-overflow findings per page and width, so one bad table is one screen
  var CODE_COLS = 100; // at 1280 px, a code block whose lines are no longer than this does not scroll
  var page = decodeURIComponent(location.pathname.replace(/^.*\//, ""));
  var root = location.pathname.replace(/[^/]*$/, "");
  function oneLine(s) { return String(s).replace(/\s+/g, " ").trim().slice(0, 200); }
  function problem(s) { problems.push("problem " + oneLine(s)); }
  function relative(url) {   // a file: URL as a path in the book's folder, or null outside it
    return url.protocol === "file:" && url.pathname.startsWith(root) ? decodeURIComponent(url.pathname.slice(root.length)) : null;
  }
  function describe(el) {    // <p class="x">, for a message
    return "<" + el.tagName.toLowerCase() + (el.id ? ' id="' + el.id + '"' : "") +
      (el.className && typeof el.className === "string" ? ' class="' + el.className + '"' : "") + ">";
  }

  // Errors from the start: scripts, resources (error events do not bubble, so capture them),
  // promises, and whatever the page writes with console.error.
  window.addEventListener("error", function (e) {
    var t = e.target;
    if (t && t !== window && t.tagName) {
      var src = t.currentSrc || t.src || t.href || "";
      var rel = src ? relative(new URL(src, location.href)) : null;
      problem("failed to load " + describe(t) + " " + (rel !== null ? rel : src));
    } else {
      var where = e.filename ? relative(new URL(e.filename, location.href)) || e.filename : "";
      problem("script error: " + e.message + (where ? " (" + where + ":" + e.lineno + ")" : ""));
    }
  }, true);
  window.addEventListener("unhandledrejection", function (e) {
    problem("script error: unhandled promise rejection: " + (e.reason && e.reason.message || e.reason));
  });
  var consoleError = console.error;
  console.error = function () {
    problem("console error: " + Array.prototype.map.call(arguments, String).join(" "));
    return consoleError.apply(console, arguments);
  };

  // Inside a code block or a table, in something that scrolls sideways (the pre itself, or
  // pandoc's div.sourceCode around a highlighted one): such text is within reach. Anything else
  // that scrolls (the contents on the side) must fit its width.
  function inScroller(node) {
    for (var el = node.parentElement.closest("pre, table"); el && el !== document.body; el = el.parentElement)
      if (/^(auto|scroll)$/.test(getComputedStyle(el).overflowX)) return true;
    return false;
  }

  function check() {
    var lines = [], w = window.innerWidth, d = document.documentElement, seen = {};
    // The height as the page opens (for its screenshots); what is folded is checked open, then folded.
    var folded = Array.prototype.filter.call(document.querySelectorAll("details"), function (el) { return !el.open; });
    lines.push("height " + Math.ceil(Math.max(d.scrollHeight, document.body ? document.body.scrollHeight : 0)));
    folded.forEach(function (el) { el.open = true; });
    if (!document.body) problem("the page has no body");
    document.querySelectorAll("[id]").forEach(function (el) {   // ids, each once
      if (seen[el.id]) problem('the id "' + el.id + '" is used twice (a link to it is ambiguous)');
      seen[el.id] = true;
      lines.push("id " + el.id);
    });
    // Links: within the page here; to other files of the book, by the shell.
    document.querySelectorAll("a[href]").forEach(function (a) {
      var href = a.getAttribute("href"), url;
      try { url = new URL(href, location.href); } catch (err) { problem('link "' + href + '" is not a URL'); return; }
      if (url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:") return;
      var rel = relative(url);
      if (rel === null) { problem('link "' + href + '" leaves the book (' + url.href + ")"); return; }
      var frag = url.hash ? decodeURIComponent(url.hash.slice(1)) : "";
      if (rel === "") rel = "index.html";   // the folder itself: its front page
      if (rel === page) {
        if (frag && !document.getElementById(frag))
          problem('broken anchor: link "' + href + '" (' + oneLine(a.textContent) + ') has no target id "' + frag + '" in this page');
        return;
      }
      if (/\s/.test(rel) || /\s/.test(frag)) problem('link "' + href + '" has blanks in it');
      else lines.push("link " + rel + (frag ? " " + frag : ""));
    });
    document.querySelectorAll("img").forEach(function (img) {   // images: loaded, and described
      var src = img.getAttribute("src") || "";
      if (!img.complete || img.naturalWidth === 0) problem('missing image "' + src + '" (it did not load)');
      if (!img.hasAttribute("alt")) problem('image "' + src + '" has no alt text');
      else if (!img.getAttribute("alt").trim() && !img.closest("figure")) problem('image "' + src + '" has an empty alt text');
    });
    // The page fits its width: nothing makes it scroll sideways, and no text runs out of it
    // except inside something that scrolls (a code block).
    if (d.scrollWidth > w + 1) problem("the page is " + d.scrollWidth + " px wide at a width of " + w + " px (it scrolls sideways)");
    var walker = document.createTreeWalker(document.body || d, NodeFilter.SHOW_TEXT), n, wide = 0, leak = 0;
    while ((n = walker.nextNode())) {
      if (!n.nodeValue.trim()) continue;
      if (leak < 3 && !n.parentElement.closest("pre, code, script, style") && /\{#[A-Za-z0-9]|\{\.[A-Za-z]|\{\{|\}\}/.test(n.nodeValue)) {
        leak++;
        problem('text that Markdown did not parse (an attribute or a directive?) in ' + describe(n.parentElement) + ': "' + oneLine(n.nodeValue).slice(0, 80) + '"');
      }
      if (wide >= MAX_WIDE) continue;
      var range = document.createRange();
      range.selectNodeContents(n);
      var over = Array.prototype.some.call(range.getClientRects(), function (r) { return r.width > 0 && (r.right > w + 1 || r.left < -1); });
      if (over && !inScroller(n)) {
        wide++;
        problem("text wider than the page at " + w + " px in " + describe(n.parentElement) + ': "' + oneLine(n.nodeValue).slice(0, 80) + '"');
      }
    }
    // On a desktop, code of up to CODE_COLS columns shows whole: its block does not scroll sideways.
    if (w >= 1280) document.querySelectorAll("pre").forEach(function (pre) {
      var cols = Math.max.apply(null, pre.textContent.split("\n").map(function (l) { return l.length; }));
      if (cols <= CODE_COLS && pre.scrollWidth > pre.clientWidth + 1)
        problem("a code block scrolls sideways at " + w + " px, its longest line only " + cols + " columns: " + describe(pre) + ' "' + oneLine(pre.textContent).slice(0, 60) + '"');
    });
    // A chapter page (NN-slug.html) has the book's contents with itself marked, previous and
    // next links, and the index of chunks and of identifiers.
    if (/^[0-9][0-9]-.*\.html$/.test(page)) {
      if (!document.querySelector('nav.book ol.chapters a[href="' + page + '"]'))
        problem("chapter page without the book's contents (nav.book ol.chapters with a link to " + page + ")");
      else if (!document.querySelector('nav.book ol.chapters li.current a[href="' + page + '"]'))
        problem("the book's contents do not mark this chapter as the current one");
      var parts = { ".prevnext a.prev": "a previous link", ".prevnext a.next": "a next link",
                    ".chunkindex": "an index of chunks", ".identindex": "an index of identifiers" };
      for (var sel in parts) if (!document.querySelector(sel)) problem("chapter page without " + parts[sel] + " (" + sel + ")");
    }
    folded.forEach(function (el) { el.open = false; });
    return problems.concat(lines);
  }

  function report() {
    var lines;
    try { lines = check(); } catch (err) { lines = problems.concat(["problem the check itself failed: " + oneLine(err)]); }
    if (window.parent !== window) window.parent.postMessage({ browsercheck: true, width: window.innerWidth, lines: lines }, "*");
    else (document.body || document.documentElement).appendChild(document.createElement("pre")).textContent = "\n" + lines.join("\n") + "\n";
  }
  // Images and styles are in by the load event; a moment more for late script errors.
  window.addEventListener("load", function () { setTimeout(report, 200); });
})();
