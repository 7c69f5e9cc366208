// browsercheck.js -- put into every page by scripts/check/browsercheck.py; window.__browsercheck() inspects the page.
(() => {
  const problems = [];
  const MAX_WIDE = 8;    // text-overflow findings per page and width, so one bad table is one screen
  const CODE_COLS = 100; // at 1280 px, a code block whose lines are no longer than this does not scroll
  const UNPARSED = /\{#[A-Za-z0-9]|\{\.[A-Za-z]|\{\{|\}\}/;   // what is left of an attribute or a directive
  const page = decodeURIComponent(location.pathname.replace(/^.*\//, ""));
  const root = location.pathname.replace(/[^/]*$/, "");
  const oneLine = (s) => String(s).replace(/\s+/g, " ").trim().slice(0, 200);
  const problem = (s) => problems.push(oneLine(s));
  const quote = (node, n) => `"${oneLine(node.textContent).slice(0, n)}"`;
  const describe = (el) =>    // <p class="x">, for a message
    "<" + el.tagName.toLowerCase() + (el.id ? ` id="${el.id}"` : "") +
    (el.className && typeof el.className === "string" ? ` class="${el.className}"` : "") + ">";
  // Whether EL, a code block or a table, or what is around it scrolls sideways (the pre itself, or pandoc's
  // div.sourceCode around it): its text is within reach. Anything else that scrolls (the contents) must fit.
  const scrolls = (el) => !!el && el !== document.body &&
    (/^(auto|scroll)$/.test(getComputedStyle(el).overflowX) || scrolls(el.parentElement));
  function check() {
    const w = window.innerWidth, d = document.documentElement, ids = {}, links = [];
    // The height as the page opens (for its screenshots); what is folded is checked open, then folded.
    const folded = [...document.querySelectorAll("details")].filter((el) => !el.open);
    const height = Math.ceil(Math.max(d.scrollHeight, document.body ? document.body.scrollHeight : 0));
    folded.forEach((el) => { el.open = true; });
    if (!document.body) problem("the page has no body");
    document.querySelectorAll("[id]").forEach((el) => {   // ids, each once
      if (ids[el.id]) problem(`the id "${el.id}" is used twice (a link to it is ambiguous)`);
      ids[el.id] = true;
    });
    // Links to files of the book, this page too: browsercheck.py checks the file and the id.
    document.querySelectorAll("a[href]").forEach((a) => {
      let href = a.getAttribute("href"), url;
      try { url = new URL(href, location.href); } catch (err) { problem(`link "${href}" is not a URL`); return; }
      if (url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:") return;
      // A path in the book's folder (the folder itself: its front page), or null outside it.
      const rel = url.protocol === "file:" && url.pathname.startsWith(root) ?
        decodeURIComponent(url.pathname.slice(root.length)) || "index.html" : null;
      if (rel === null) { problem(`link "${href}" leaves the book (${url.href})`); return; }
      const frag = decodeURIComponent(url.hash.slice(1));
      if (/\s/.test(rel) || /\s/.test(frag)) problem(`link "${href}" has blanks in it`);
      else links.push([rel, frag]);
    });
    document.querySelectorAll("img").forEach((img) => {   // images: loaded, and described
      const src = img.getAttribute("src") || "";
      if (!img.complete || img.naturalWidth === 0) problem(`missing image "${src}" (it did not load)`);
      if (!img.hasAttribute("alt")) problem(`image "${src}" has no alt text`);
      else if (!img.alt.trim() && !img.closest("figure")) problem(`image "${src}" has an empty alt text`);
    });
    // The page fits its width: nothing makes it scroll sideways, no text runs out of it but in what scrolls (code).
    if (d.scrollWidth > w + 1) problem(`the page is ${d.scrollWidth} px wide at a width of ${w} px (it scrolls sideways)`);
    const walker = document.createTreeWalker(document.body || d, NodeFilter.SHOW_TEXT);
    let n, wide = 0, leak = 0;
    while ((n = walker.nextNode())) {
      if (!n.nodeValue.trim()) continue;
      if (leak < 3 && !n.parentElement.closest("pre, code, script, style") && UNPARSED.test(n.nodeValue)) {
        leak++;
        problem(`text that Markdown did not parse (an attribute or a directive?) in ${describe(n.parentElement)}: ` +
                quote(n, 80));
      }
      if (wide >= MAX_WIDE) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const over = [...range.getClientRects()].some((r) => r.width > 0 && (r.right > w + 1 || r.left < -1));
      if (over && !scrolls(n.parentElement.closest("pre, table"))) {
        wide++;
        problem(`text wider than the page at ${w} px in ${describe(n.parentElement)}: ${quote(n, 80)}`);
      }
    }
    // On a desktop, code of up to CODE_COLS columns shows whole: its block does not scroll sideways.
    if (w >= 1280) document.querySelectorAll("pre").forEach((pre) => {
      const cols = Math.max(...pre.textContent.split("\n").map((l) => l.length));
      if (cols <= CODE_COLS && pre.scrollWidth > pre.clientWidth + 1)
        problem(`a code block scrolls sideways at ${w} px, its longest line only ${cols} columns: ${describe(pre)} ` +
                quote(pre, 60));
    });
    // A chapter page (NN-slug.html) has the book's contents, itself marked, previous and next links, and indexes.
    if (/^[0-9][0-9]-.*\.html$/.test(page)) {
      if (!document.querySelector(`nav.book ol.chapters a[href="${page}"]`))
        problem(`chapter page without the book's contents (nav.book ol.chapters with a link to ${page})`);
      else if (!document.querySelector(`nav.book ol.chapters li.current a[href="${page}"]`))
        problem("the book's contents do not mark this chapter as the current one");
      const parts = { ".prevnext a.prev": "a previous link", ".prevnext a.next": "a next link",
                      ".chunkindex": "an index of chunks", ".identindex": "an index of identifiers" };
      for (const sel in parts) if (!document.querySelector(sel)) problem(`chapter page without ${parts[sel]} (${sel})`);
    }
    folded.forEach((el) => { el.open = false; });
    return { problems, ids, links, height };
  }
  // For browsercheck.py once the page has loaded (errors are in Chromium's log): {problems: [what a reader would
  // see go wrong], ids: {ID: true}, links: [[FILE, FRAG] to files of the book], height: px (for screenshots)}.
  window.__browsercheck = () => {
    try { return check(); } catch (err) { problem(`the check itself failed: ${oneLine(err)}`); return { problems }; }
  };
})();
