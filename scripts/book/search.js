// search.js -- writes bookdata.js (sets, search documents, lunr index, chunks) for book.js: node search.js PAGE.html... > bookdata.js
'use strict';
const fs = require('fs'), path = require('path');
let file = process.env.LUNR || '/usr/share/javascript/lunr/lunr.min.js', lunr;
function fail(what) { process.stderr.write('search.js: ' + file + ': ' + what + '\n'); process.exit(1); }
try { lunr = require(path.resolve(file)); } catch (e) { fail('cannot load lunr: ' + e.message.split('\n')[0]); }
// Code is searched by its identifiers: words split at any punctuation (book.js splits a query the same way).
lunr.tokenizer.separator = /[^A-Za-z0-9_\u00c0-\u024f]+/;
const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const decode = (s) => s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (all, e) =>
  e[0] === '#' ? String.fromCodePoint(Number('0' + e.slice(1))) : ENTITIES[e] || all);   // '0x3bb': hex
// Block tags part words, inline tags do not (a highlighted identifier is many spans).
const BLOCK = /<\/?(?:p|div|li|ul|ol|t[dhr]|table|h[1-6]|pre|br|section|details|summary|figure|figcaption|header|blockquote|dt|dd)\b[^>]*>/g;
function plain(html) { return decode(html.replace(BLOCK, ' ').replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim(); }
// The end of the <div> that opens at FROM: divs nest, so count them.
function divEnd(s, from) {
  const re = /<div\b|<\/div>/g;
  let depth = 0, m;
  re.lastIndex = from;
  while ((m = re.exec(s))) if ((depth += m[0] === '</div>' ? -1 : 1) === 0) return re.lastIndex;
  fail(s.slice(from, s.indexOf('>', from) + 1) + ' is never closed');
}
const attr = (tag, name) => (tag.match(new RegExp('\\s' + name + '="([^"]*)"')) || [])[1];

const sets = {}, docs = [], chunks = {};
for (file of process.argv.slice(2)) {
  let html;
  try { html = fs.readFileSync(file, 'utf8'); } catch (e) { fail(e.code === 'ENOENT' ? 'no such file' : e.message); }
  // The page's title: its <h1> without the chapter's number, else the <title> without the book's.
  const page = path.basename(file), title = html.match(/<title>([\s\S]*?)<\/title>/) || fail('no <title>');
  const h1 = html.match(/<main>[\s\S]*?<h1\b[^>]*>([\s\S]*?)<\/h1>/);
  const pageTitle = h1 ? plain(h1[1].replace(/<span class="header-section-number">[^<]*<\/span>/, '')) : decode(title[1]).replace(/ · [^·]*$/, '');
  // The set: the navigation names its GPU and id; else the name's suffix (SLUG.SET.html).
  const set = html.match(/<p class="set">Measured on the ([\s\S]*?) \(set <code>([^<]*)<\/code>\)/);
  const suffix = page.match(/^[^.]+\.([^.]+)\.html$/);
  sets[page] = set ? { id: set[2], name: plain(set[1]) } : { id: suffix ? suffix[1] : '', name: suffix ? suffix[1] : '' };
  for (let i; (i = html.indexOf('<div class="chunkrefs">')) >= 0;)   // the chunks' cross-references go
    html = html.slice(0, i) + html.slice(divEnd(html, i));
  const main = (html.match(/<main>([\s\S]*)<\/main>/) || [])[1];
  if (main === undefined) fail('no <main> element');

  // Chunks, whole but for their cross-references; the ids and the aria-hidden line anchors inside
  // go (book.js drops the ids anyway; they were over a quarter of the bytes).
  for (let re = /<div\b[^>]*\sclass="chunk"[^>]*>/g, m; (m = re.exec(main));) {
    const id = attr(m[0], 'id') || fail('a chunk <div class="chunk"> without an id');
    chunks[page + '#' + id] = m[0] + main.slice(m.index + m[0].length, divEnd(main, m.index))
      .replace(/<a href="#[^"]*" aria-hidden="true" tabindex="-1"><\/a>/g, '').replace(/(<[a-z][^>]*?)\sid="[^"]*"/g, '$1');
  }

  // Documents: the page's text before its first section, then each section's own text (its
  // subsections' are theirs). A page without sections (measurements) is cut at its headings with ids.
  // The indexes of chunks and identifiers, the folded values tables and comments are no reading.
  const body = main.replace(/<!--[\s\S]*?-->/g, '').replace(/<nav class="prevnext"[\s\S]*?<\/nav>/g, '')
    .replace(/<details class="values">[\s\S]*?<\/details>/g, ' ');
  const sectioned = /<section\b/.test(body), mine = [{ id: '', html: '' }], stack = [mine[0]];
  const re = sectioned ? /<section\b[^>]*>|<\/section>/g : /<h[1-6]\b[^>]*\sid="[^"]*"[^>]*>/g;
  let last = 0;
  for (let m; (m = re.exec(body));) {
    stack[stack.length - 1].html += body.slice(last, m.index);
    last = m.index + (sectioned ? m[0].length : 0);
    if (m[0] === '</section>') { if (stack.length < 2) fail('a </section> that closes nothing'); stack.pop(); continue; }
    const doc = { id: attr(m[0], 'id') || '', skip: /\b(chunkindex|identindex)\b/.test(attr(m[0], 'class') || ''), html: '' };
    mine.push(doc);
    if (sectioned) stack.push(doc); else stack[0] = doc;
  }
  stack[stack.length - 1].html += body.slice(last);
  for (const d of mine) {
    const h = d.html.match(/<h[1-6]\b[^>]*>([\s\S]*?)<\/h[1-6]>/), text = plain(h ? d.html.replace(h[0], ' ') : d.html);
    if (d.skip || (!d.id && !text)) continue;
    docs.push({ page: page, id: d.id, title: h && d.id ? plain(h[1]) : pageTitle, pageTitle: pageTitle, set: sets[page].id, text: text });
  }
}
const index = lunr(function () {
  this.ref('n');
  this.field('title', { boost: 5 });
  this.field('text');
  docs.forEach((d, n) => this.add({ n: String(n), title: d.title + ' ' + d.pageTitle, text: d.text }));
});
process.stdout.write('window.BOOK_DATA = ' + JSON.stringify({ sets: sets, docs: docs, index: index, chunks: chunks })
  .replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') + ';\n');
