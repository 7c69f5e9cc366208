// book.js -- what every page does in the browser: search, landing on a hit, chunks that open in place, copy buttons, live preview.
(function () {
  'use strict';
  var SEP = /[^A-Za-z0-9_\u00c0-\u024f]+/;   // words as scripts/book/search.js indexed them
  var here = decodeURIComponent(location.pathname.replace(/^.*\//, '')) || 'index.html';
  var scripts = {}, index = null;
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; e.textContent = text || ''; return e; }
  function wrap(node, box) { node.before(box); box.appendChild(node); return box; }   // box in node's place, node in it
  function all(root, sel, f) { Array.prototype.forEach.call(root.querySelectorAll(sel), f); }
  function words(q) { return q.toLowerCase().split(SEP).filter(Boolean); }
  function wordsRe(ws) { return new RegExp('\\b(' + ws.map(function (w) { return w.replace(/[^\w]/g, '\\$&'); }).join('|') + ')', 'i'); }
  // A script tag, not fetch: pages opened as files (file://) may not fetch, but may load scripts.
  function script(src) {
    return scripts[src] || (scripts[src] = new Promise(function (resolve, reject) {
      var s = document.createElement('script');
      s.src = src;
      s.onload = resolve;
      s.onerror = function () { s.remove(); delete scripts[src]; reject(new Error(src + ' did not load')); };
      document.head.appendChild(s);
    }));
  }
  function bookData() { return script('bookdata.js').then(function () { return window.BOOK_DATA; }); }
  // --- Search: lunr and the index load on the first focus; every key searches again. -------------
  // The words but the last must all be there (stemmed, as indexed); the last one too, or a word it
  // begins, as it may be half typed. The best first, the reader's own set before the others.
  function search(q) {
    var ws = words(q), last = ws.pop(), scores = {}, cur = (BOOK_DATA.sets[here] || {}).id, must = lunr.Query.presence.REQUIRED;
    if (!last) return [];
    ws = ws.filter(function (w) { return lunr.stopWordFilter(w); });   // not indexed, so never there
    [{ presence: must }, { presence: must, wildcard: lunr.Query.wildcard.TRAILING, usePipeline: false }].forEach(function (form) {
      try {
        index.query(function (query) {
          ws.forEach(function (w) { query.term(w, { presence: must }); });
          query.term(last, form);
        }).forEach(function (r) { scores[r.ref] = Math.max(scores[r.ref] || 0, r.score); });
      } catch (e) { /* a term that lunr refuses finds nothing */ }
    });
    return Object.keys(scores).map(function (ref) { return { ref: +ref, doc: BOOK_DATA.docs[ref], score: scores[ref] }; })
      .sort(function (a, b) { return (b.doc.set === cur) - (a.doc.set === cur) || b.score - a.score || a.ref - b.ref; }).slice(0, 10);
  }
  function snippet(text, ws) {   // some 120 characters around the first query word, the word marked
    var m = wordsRe(ws).exec(text), s = el('span', 'hit-text');
    var at = m ? m.index : 0, from = Math.max(0, at - 40), to = Math.min(text.length, at + (m ? 80 : 120));
    s.append((from ? '…' : '') + text.slice(from, at), m ? el('mark', '', m[0]) : '',
      text.slice(at + (m ? m[0].length : 0), to) + (to < text.length ? '…' : ''));
    return s;
  }
  function setupSearch() {
    var input = document.getElementById('search'), list = document.getElementById('search-results');
    if (!input || !list) return;
    function show() {
      var q = input.value.trim(), hits = q && index ? search(q) : [];
      list.textContent = '';
      if (q && index && !hits.length) list.appendChild(el('li', 'none', 'Nothing found.'));
      hits.forEach(function (h) {
        var a = list.appendChild(el('li')).appendChild(el('a')), set = BOOK_DATA.sets[h.doc.page] || {};
        a.href = h.doc.page + '?q=' + encodeURIComponent(q) + (h.doc.id ? '#' + h.doc.id : '');
        a.append(el('span', 'hit-title', h.doc.title), el('span', 'hit-where',
          (h.doc.title !== h.doc.pageTitle ? h.doc.pageTitle + ' · ' : '') + (set.name || h.doc.set)), snippet(h.doc.text, words(q)));
      });
    }
    function start() {
      Promise.all([script('lunr.js'), bookData()]).then(function () { index = index || lunr.Index.load(BOOK_DATA.index); show(); })
        .catch(function (e) { list.textContent = ''; list.appendChild(el('li', 'none', 'Search is not available: ' + e.message)); });
    }
    input.addEventListener('focus', start);
    input.addEventListener('input', function () { if (index) show(); else start(); });
    input.addEventListener('keydown', function (e) { if (e.key === 'Escape') { input.value = ''; list.textContent = ''; e.preventDefault(); } });
    input.form.addEventListener('submit', function (e) {   // Enter: the first hit
      e.preventDefault();
      if (list.querySelector('a')) location.href = list.querySelector('a').href;
    });
  }
  // --- Landing: PAGE?q=WORDS#SECTION marks the first of the words in the section, and shows it. ----
  function mark(root, re, own) {
    var walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT), n, m;
    while ((n = walk.nextNode())) {
      var p = n.parentElement;
      if (p.closest('nav, script, style, button, .chunkrefs') || (own && p.closest('section') !== root) || !(m = re.exec(n.data))) continue;
      var hit = n.splitText(m.index);
      hit.splitText(m[0].length);
      return wrap(hit, el('mark'));
    }
    return null;
  }
  function land() {
    var ws = words(new URLSearchParams(location.search).get('q') || ''), main = document.querySelector('main'), hit = null;
    if (!ws.length || !main) return;
    var target = (location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)))) || main;
    // The words as typed, then a guess at their stems (lunr found "counted" for "counts"); in the
    // section's own text first, then in its subsections, then anywhere on the page.
    [ws, ws.map(function (w) { return w.slice(0, Math.max(3, w.length - 3)); })].some(function (alts) {
      var re = wordsRe(alts);
      return (hit = (target.tagName === 'SECTION' && mark(target, re, true)) || mark(target, re, false) || mark(main, re, false));
    });
    if (!hit) return;
    for (var p = hit.parentElement; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;   // a folded solution
    hit.scrollIntoView({ block: 'center' });
  }
  // --- Knowls: a chunk's use opens the chunk's definition, all its parts, right under it. ---------
  function clean(node) {   // a copy of a chunk, without what must stay unique or is made again
    all(node, '.chunkrefs, .knowl, button.copy', function (e) { e.remove(); });
    [node].concat(Array.from(node.querySelectorAll('[id]'))).forEach(function (e) { e.removeAttribute('id'); });
    return node;
  }
  // The chunk at href and its continuations: data-next is where the next part is, as a link of the
  // chunk's page has it. This page's parts are cloned; another page's come from bookdata.js, with
  // their links made to point there.
  function definition(href) {
    var i = href.indexOf('#'), parts;
    function collect(data) {   // false: a part is on another page, and bookdata.js is not loaded yet
      parts = [];
      for (var key = (href.slice(0, i) || here) + href.slice(i), f, d, n, t; key && parts.length < 100; key = n ? (n.charAt(0) === '#' ? f + n : n) : '') {
        f = key.slice(0, key.indexOf('#'));
        if (f === here) d = document.getElementById(key.slice(f.length + 1));
        else if (!data) return false;
        else if ((t = data.chunks[key])) { d = el('template'); d.innerHTML = t.replace(/href="#/g, 'href="' + f + '#'); d = d.content.firstElementChild; }
        if (!d) throw new Error('no chunk ' + key);
        n = d.dataset.next;
        parts.push(clean(f === here ? d.cloneNode(true) : d));
        d = null;
      }
      return true;
    }
    try { if (collect(null)) return Promise.resolve(parts); } catch (e) { return Promise.reject(e); }
    return bookData().then(function (data) { collect(data); return parts; });
  }
  function toggle(use, name, href) {
    var box = use.querySelector(':scope > .knowl');
    name.setAttribute('aria-expanded', String(!box));
    if (box) return box.remove();
    box = use.appendChild(el('div', 'knowl'));
    definition(href).then(function (parts) { box.append.apply(box, parts); decorate(box); })
      .catch(function (e) { box.textContent = 'The definition did not load: ' + e.message; });
  }
  function knowls(root) {
    all(root, '.chunkuse', function (use) {
      var name = use.querySelector('.chunkusename'), link = use.querySelector('a[href*="#"]');
      if (!name || !link || name.knowl) return;
      name.knowl = true;   // a property, not a class: a clone of the chunk is made a toggle afresh
      name.classList.add('knowl-toggle');
      name.title = 'Show the definition here';
      [['role', 'button'], ['tabindex', '0'], ['aria-expanded', 'false']].forEach(function (a) { name.setAttribute(a[0], a[1]); });
      var open = function () { toggle(use, name, link.getAttribute('href')); };
      name.addEventListener('click', open);
      name.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(); } });
    });
  }
  // --- Copy buttons: a chunk's whole code (its uses as ⟨name⟩ lines), an output, each command. -----
  function textOf(node) { var c = node.cloneNode(true); all(c, 'button', function (b) { b.remove(); }); return c.textContent; }
  function copyButton(what, text) {
    var b = el('button', 'copy', 'Copy');
    b.type = 'button';
    b.setAttribute('aria-label', 'Copy ' + what);
    b.addEventListener('click', function () {
      var said = function (word) { b.textContent = word; setTimeout(function () { b.textContent = 'Copy'; }, 1500); };
      (navigator.clipboard ? navigator.clipboard.writeText(text()) : Promise.reject(new Error('no clipboard')))
        .then(function () { said('Copied'); }, function () { said('Not copied'); });
    });
    return b;
  }
  function chunkText(chunk) {
    return Array.prototype.map.call(chunk.querySelectorAll(':scope > div.sourceCode, :scope > pre, :scope > .chunkuse'), function (part) {
      if (!part.classList.contains('chunkuse')) return textOf(part.querySelector('pre') || part);
      var p = part.querySelector('p').cloneNode(true);   // the use's line: its indent and ⟨name⟩, not its number
      all(p, ':scope > a, button', function (a) { a.remove(); });
      return p.textContent.replace(/\s+$/, '');
    }).join('\n');
  }
  function commands(code) {   // each line "$ command" of an output: a span.command, and a button after it
    var start = true, texts = [], walk = document.createTreeWalker(code, NodeFilter.SHOW_TEXT), t;
    while ((t = walk.nextNode())) texts.push(t);
    texts.forEach(function (t) {
      var s = t.data, starts = start ? [0] : [];
      for (var i = s.indexOf('\n'); i >= 0 && i + 1 < s.length; i = s.indexOf('\n', i + 1)) starts.push(i + 1);
      start = s.charAt(s.length - 1) === '\n';
      starts.reverse().forEach(function (p) {   // from the end, so that t keeps the offsets before
        if (s.substr(p, 2) !== '$ ') return;
        var e = s.indexOf('\n', p), line = t.splitText(p);
        line.splitText((e < 0 ? s.length : e) - p);
        wrap(line, el('span', 'command')).after(copyButton('the command', function () { return line.data.slice(2); }));
      });
    });
  }
  function copies(root) {
    all(root, '.chunk', function (chunk) {
      var head = chunk.querySelector(':scope > p');
      if (head && !head.querySelector(':scope > button.copy')) head.appendChild(copyButton('the chunk', function () { return chunkText(chunk); }));
    });
    all(root, 'pre', function (pre) {
      var code = pre.querySelector('code') || pre, out = pre.classList.contains('console');
      if (pre.closest('.chunk') || pre.querySelector(':scope > button.copy')) return;
      if (out) commands(code);
      pre.appendChild(copyButton(out ? 'the output' : 'the text', function () { return textOf(code); }));
    });
    all(root, 'code.command', function (c) {
      var next = c.nextElementSibling;
      if (!(next && next.matches('button.copy'))) c.after(copyButton('the command', function () { return c.textContent; }));
    });
  }
  function decorate(root) { knowls(root); copies(root); }
  // --- Live preview (make preview, over http): reload on a new build, show a failed one's errors. --
  // preview.txt: the build's number, then the errors of the last build if it failed.
  function preview() {
    var key = 'book-scroll ' + location.pathname, first = null, saved = (sessionStorage.getItem(key) || '').split(' ');
    if (saved.length === 2) { sessionStorage.removeItem(key); window.scrollTo(+saved[0], +saved[1]); }
    function failed(text) {
      var box = document.getElementById('preview-error') || document.body.appendChild(el('div'));
      if (!box.id) {
        box.id = 'preview-error';
        box.setAttribute('role', 'alert');
        box.append(el('p', '', 'The build failed; this page is from the last good one.'), el('pre'));
      }
      box.querySelector('pre').textContent = text;
    }
    (function poll() {
      fetch('preview.txt', { cache: 'no-store' }).then(function (r) { if (r.ok) return r.text(); throw new Error(r.status); }).then(function (t) {
        var nl = t.indexOf('\n'), build = (nl < 0 ? t : t.slice(0, nl)).trim(), error = nl < 0 ? '' : t.slice(nl + 1).trim();
        if (first === null) first = build;
        if (error) failed(error);   // the page stays as it was, the errors over it
        else if (build !== first) {
          sessionStorage.setItem(key, window.scrollX + ' ' + window.scrollY);
          return location.reload();
        }
        setTimeout(poll, 300);
      }).catch(function () { /* no preview.txt: nothing to watch */ });
    })();
  }
  decorate(document);
  setupSearch();
  window.addEventListener('load', function () {
    land();
    if (location.protocol === 'http:') preview();
  });
})();
