#!/usr/bin/python3
# site.py -- checks in headless Chromium, through chromedriver, what book.js does on the woven site (tests/site.test):
#   site.py pages DIR          search, chunks in place and copy buttons on the site DIR, opened as files
#   site.py nested DIR         on the woven fixture tests/fixtures/site/02-nested.nw: chunks open three levels deep
#   site.py preview DIR FILE   make preview, started in the project DIR: a one-word edit of its chapter FILE reloads
#                              the chapter's page at its place, and a malformed directive shows its FILE:LINE; prints
#                              the seconds to the reload; stopped by a signal, make preview leaves no preview.txt
# Several commands run in turn, in one browser.
import contextlib, json, os, re, shutil, signal, subprocess, sys, tempfile, time
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HTML = ''  # the site of the command at hand
SEP = re.compile(r'[^A-Za-z0-9_\u00c0-\u024f]+')  # as search.js and book.js split words
failures = []


def check(what, ok, detail=''):
    print(('ok   ' if ok else 'FAIL ') + what + ('' if ok or not detail else ': ' + str(detail)))
    if not ok:
        failures.append(what)
    return ok


def browser():
    o = webdriver.ChromeOptions()
    for a in ['--headless=new', '--no-sandbox', '--disable-gpu', '--window-size=1280,900']:
        o.add_argument(a)
    o.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    d = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=o)
    d.execute_cdp_cmd('Browser.grantPermissions', {'permissions': ['clipboardReadWrite', 'clipboardSanitizedWrite']})
    return d


def page(name):
    return 'file://' + HTML + '/' + name


def wait(d, cond, secs=10):
    return WebDriverWait(d, secs).until(lambda d: d.execute_script(cond) if isinstance(cond, str) else cond(d))


def phone(d, on):  # a viewport of 390 px (a headless window is never narrower than 500 px)
    if on:
        d.execute_cdp_cmd('Emulation.setDeviceMetricsOverride', {'width': 390, 'height': 844, 'deviceScaleFactor': 1, 'mobile': True})
    else:
        d.execute_cdp_cmd('Emulation.clearDeviceMetricsOverride', {})


def console_errors(d, what):
    bad = [e['message'] for e in d.get_log('browser') if e['level'] == 'SEVERE']
    check('no console errors: ' + what, not bad, bad[:3])


def exercise_words():
    """Words of a chapter 3 exercise's solution that no other section has: (word, section id)."""
    with open(os.path.join(HTML, 'bookdata.js'), encoding='utf-8') as f:
        data = json.loads(f.read().strip()[len('window.BOOK_DATA = '):-1])
    docs, seen = data['docs'], {}
    for i, doc in enumerate(docs):
        for w in set(SEP.split((doc['title'] + ' ' + doc['pageTitle'] + ' ' + doc['text']).lower())):
            seen.setdefault(w, set()).add(i)
    out = []
    for i, doc in enumerate(docs):
        if doc['page'] == '03-histogram-speed.html' and doc['id'].startswith('exercise-'):
            text, sol = doc['text'].lower(), doc['text'].find('Solution')
            out += [(w, doc['id']) for w in sorted(set(SEP.split(text)))
                    if re.fullmatch('[a-z]{6,}', w) and seen[w] == {i} and text.find(w) > sol > 0]
    return out


def test_search(d):
    """A word only chapter 3's exercises have, typed on chapter 1's page: Enter lands on it, marked, shown."""
    cands = exercise_words()
    if not check('search: chapter 3 has words only its exercises\' solutions use', cands):
        return
    d.get(page('01-atomics.html'))
    box = d.find_element(By.ID, 'search')
    for word, sec in cands:
        box.clear()
        box.click()
        box.send_keys(word)
        try:
            wait(d, 'return document.querySelectorAll("#search-results a").length > 0')
        except Exception:
            continue
        href = d.find_element(By.CSS_SELECTOR, '#search-results a').get_attribute('href')
        if href.endswith('03-histogram-speed.html?q=' + word + '#' + sec):
            break
    else:
        check('search: a word of an exercise finds the exercise first', False, cands[:5])
        return
    check('search: "%s" finds 03-histogram-speed.html#%s first' % (word, sec), True)
    phone(d, True)
    width = d.execute_script('return document.documentElement.scrollWidth')
    check('search: the results fit a 390 px phone', width <= 390, '%d px wide' % width)
    phone(d, False)
    box.send_keys(Keys.ENTER)
    wait(d, lambda d: '03-histogram-speed.html' in d.current_url and d.execute_script('return document.readyState') == 'complete')
    mark = wait(d, 'return document.querySelector("main mark")')
    check('search: Enter opens the page at the section', d.current_url.endswith('#' + sec), d.current_url)
    check('search: the word is marked', mark.text.lower() == word, mark.text)
    check('search: the mark is in the section', d.execute_script('return arguments[0].closest("section").id', mark) == sec)
    shown = d.execute_script('''var m = arguments[0], r = m.getBoundingClientRect(), d = m.closest("details:not([open])");
      var top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !d && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && !!top && (top === m || m.contains(top));''', mark)
    check('search: the mark is shown (its solution opened, scrolled into view)', shown)
    d.get(page('01-atomics.html'))
    box = d.find_element(By.ID, 'search')
    box.send_keys('histogram')
    wait(d, 'return document.querySelectorAll("#search-results a").length > 1')
    box.send_keys(Keys.ESCAPE)
    check('search: Escape clears', box.get_attribute('value') == '' and not d.find_elements(By.CSS_SELECTOR, '#search-results li'))
    console_errors(d, 'search')


def opened(d, toggle):
    """The box a toggle opened, once its definition is in."""
    return wait(d, lambda d: d.execute_script(
        'var b = arguments[0].closest(".chunkuse").querySelector(":scope > .knowl"); return b && b.querySelector("pre") && b', toggle))


def unique_ids(d):
    return d.execute_script('var s = {}, n = 0; document.querySelectorAll("[id]").forEach(function (e) { if (s[e.id]) n++; s[e.id] = 1; }); return n') == 0


def test_knowls(d):
    """On chapter 3: a use of a chunk of this page and one of another page open their definitions in place, and close."""
    d.get(page('03-histogram-speed.html'))
    toggles = d.find_elements(By.CSS_SELECTOR, 'main .knowl-toggle')
    check('knowls: chunk uses are toggles', toggles and all(t.get_attribute('role') == 'button' and t.get_attribute('aria-expanded') == 'false' for t in toggles))
    for kind, sel in [('another page', 'a[href*=".html#"]'), ('this page', 'a[href^="#"]')]:
        t = next((t for t in toggles if t.find_element(By.XPATH, '..').find_elements(By.CSS_SELECTOR, sel)), None)
        if not check('knowls: chapter 3 uses a chunk of ' + kind, t is not None):
            continue
        href = t.find_element(By.XPATH, '..').find_element(By.CSS_SELECTOR, 'a').get_attribute('href')
        d.execute_script('arguments[0].scrollIntoView({block: "center"})', t)
        t.click()
        box = opened(d, t)
        name = t.text.strip('⟨⟩')
        head = box.find_element(By.CSS_SELECTOR, '.chunk .chunkname').text
        check('knowls: ⟨%s⟩ (%s) opens its definition in place' % (name, kind), head.startswith('⟨' + name + '⟩') and box.is_displayed(), head)
        check('knowls: aria-expanded follows', t.get_attribute('aria-expanded') == 'true')
        check('knowls: ids stay unique, no cross-references in the box', unique_ids(d) and not box.find_elements(By.CSS_SELECTOR, '.chunkrefs'))
        phone(d, True)
        width = d.execute_script('return document.documentElement.scrollWidth')
        check('knowls: an open one fits a 390 px phone', width <= 390, '%d px wide' % width)
        phone(d, False)
        t.click()
        check('knowls: it closes', not d.find_elements(By.CSS_SELECTOR, 'main .knowl') and t.get_attribute('aria-expanded') == 'false')
        check('knowls: the number still links to the definition', href and '#' in href)
    console_errors(d, 'knowls')


CHUNK = '''<div id="{id}" class="chunk"{next}><p><span class="chunkname"><code>⟨{name}⟩≡</code></span> <span class="chunknum">{id}</span></p>
<div class="sourceCode" id="{id}-1"><pre class="sourceCode cuda"><code class="sourceCode cuda"><span id="{id}-1-1"><a href="#{id}-1-1" aria-hidden="true" tabindex="-1"></a>int {name};</span></code></pre></div>
{uses}<div class="chunkrefs">
<p>Used in <a href="#{id}">1</a>. <div class="x"><p>nested</p></div></p>
</div>
</div>
'''
PAGE = '''<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} · Fixture</title><link rel="icon" href="data:,"><link rel="stylesheet" href="style.css">
<script src="book.js" defer></script></head><body>
<nav class="book"><form class="search" role="search"><input type="search" id="search"><ol id="search-results"></ol></form>
<p class="set">Measured on the Test &amp; GPU (set <code>t</code>)</p></nav>
<main><p>Before &lt;any&gt; section.</p><section id="{title}-s" class="level1"><h1>{title} &quot;one&quot;</h1><p>Own text.</p>{extra}
<section id="{title}-sub" class="level2"><h2>Sub</h2><p>Sub text &#39;here&#39; &#955;.</p>
{chunks}</section><p>Own again.</p></section></main></body></html>
'''


def chunk(id, name, uses=(), next=''):
    return CHUNK.format(id=id, name=name, next=' data-next="%s"' % next if next else '', uses=''.join(
        '<div class="chunkuse">\n<p>  <span class="chunkusename"><code>⟨%s⟩</code></span> <a href="%s">2</a></p>\n</div>\n' % u for u in uses))


def fixture(dir):
    """Two pages whose chunks nest four deep, across the pages, one with a continuation; bookdata.js by search.js."""
    for f in ('book.js', 'lunr.js', 'style.css'):
        shutil.copy(os.path.join(HTML, f), dir)
    a = chunk('A1', 'outer', [('middle', '#A2')], next='A1b') + chunk('A1b', 'outer_more') + \
        chunk('A2', 'middle', [('inner', 'b.html#B1')]) + chunk('R', 'root', [('outer', '#A1')])
    b = chunk('B1', 'inner', [('deepest', '#B2')]) + chunk('B2', 'deepest') + chunk('U', 'user', [('outer', 'a.html#A1')])
    for name, chunks in (('a', a), ('b', b)):
        with open(os.path.join(dir, name + '.html'), 'w', encoding='utf-8') as f:
            f.write(PAGE.format(title=name, chunks=chunks, extra='<p>Build: <code class="command">nvcc -o r r.cu</code></p>' if name == 'b' else ''))
    env = dict(os.environ, LUNR=os.environ.get('LUNR', '/usr/share/javascript/lunr/lunr.min.js'))
    run = lambda *pages: subprocess.run(['node', os.path.join(ROOT, 'scripts/book/search.js')] + list(pages), cwd=dir, env=env, capture_output=True, text=True)
    one, two = run('a.html', 'b.html'), run('a.html', 'b.html')
    check('search.js: writes bookdata.js, the same bytes each time', one.returncode == 0 and one.stdout == two.stdout and not one.stderr, one.stderr)
    with open(os.path.join(dir, 'bookdata.js'), 'w', encoding='utf-8') as f:
        f.write(one.stdout)
    bad = run('a.html', 'nothing.html')
    check('search.js: a missing page is an error that names it', bad.returncode != 0 and bad.stderr.startswith('search.js: nothing.html: '), bad.stderr)
    data = json.loads(one.stdout.strip()[len('window.BOOK_DATA = '):-1])
    check('search.js: sets from the navigation', data['sets'].get('a.html') == {'id': 't', 'name': 'Test & GPU'}, data['sets'])
    docs = [(x['page'], x['id'], x['title'], x['text']) for x in data['docs']]
    check('search.js: a document a section, its own text, entities decoded', docs[:3] == [
        ('a.html', '', 'a "one"', 'Before <any> section.'), ('a.html', 'a-s', 'a "one"', 'Own text. Own again.'),
        ('a.html', 'a-sub', 'Sub', "Sub text 'here' λ. ⟨outer⟩≡ A1 int outer; ⟨middle⟩ 2 ⟨outer_more⟩≡ A1b int outer_more; ⟨middle⟩≡ A2 int middle; ⟨inner⟩ 2 ⟨root⟩≡ R int root; ⟨outer⟩ 2")], docs[:3])
    c = data['chunks'].get('a.html#A1', '')
    check('search.js: chunks keyed PAGE#ID, data-next kept, cross-references cut', c.startswith('<div id="A1" class="chunk" data-next="A1b">')
          and c.endswith('</div>') and 'chunkrefs' not in c and 'nested' not in c and sorted(data['chunks']) == ['a.html#A1', 'a.html#A1b', 'a.html#A2', 'a.html#R', 'b.html#B1', 'b.html#B2', 'b.html#U'], c)


def test_search_js(d):
    """search.js on two pages written here: its output, its errors, its documents and chunks."""
    tmp = tempfile.mkdtemp()
    try:
        fixture(tmp)
    finally:
        shutil.rmtree(tmp)


def test_nested(d):
    """On the woven fixture chapter: a root's use opens the outer part, in it the middle part, in it chapter
    0's kernels from another page with both their parts (data-next); each closes again."""
    d.get(page('02-nested.html'))
    t = d.find_element(By.CSS_SELECTOR, 'main .chunk .knowl-toggle')
    toggles = []
    for level, want in enumerate([['int outer()'], ['int middle()'], ['int plus_one(int x)', 'void add_one(int *a)']]):
        d.execute_script('arguments[0].scrollIntoView({block: "center"})', t)
        t.click()
        toggles.append(t)
        box = opened(d, t)
        got = [e.text for e in box.find_elements(By.CSS_SELECTOR, ':scope > .chunk pre')]
        check('knowls: level %d opens in place: %s' % (level + 1, ' + '.join(want)),
              len(got) == len(want) and all(w in g for w, g in zip(want, got)), got)
        if level < 2:
            t = box.find_element(By.CSS_SELECTOR, ':scope > .chunk .knowl-toggle')
    check('knowls: the chunk of another page links to that page', d.find_elements(By.CSS_SELECTOR, '.knowl a[href^="00-sample.html#"]'))
    check('knowls: ids stay unique three deep', unique_ids(d) and not d.find_elements(By.CSS_SELECTOR, 'main .knowl .chunkrefs'))
    for t in reversed(toggles):
        t.click()
    check('knowls: all close again', not d.find_elements(By.CSS_SELECTOR, '.knowl'))
    console_errors(d, 'nested knowls')


def clipboard(d):
    return d.execute_async_script('var cb = arguments[0]; navigator.clipboard.readText().then(cb, function (e) { cb("ERROR " + e); })')


def test_copy(d):
    """Copy buttons: a chunk's code, an output, a command; none covers code, none is in the text."""
    d.get(page('01-atomics.html'))
    chunk = d.find_element(By.CSS_SELECTOR, 'main .chunk')
    chunk.find_element(By.CSS_SELECTOR, ':scope > p > button.copy').click()
    want = d.execute_script('return arguments[0].querySelector("pre code").textContent', chunk)
    wait(d, lambda d: clipboard(d) != '')
    got = clipboard(d)
    check('copy: a chunk\'s button copies its code', got.startswith(want) and 'Copy' not in got, got[:80])
    pres = d.find_elements(By.CSS_SELECTOR, 'main pre')
    check('copy: every code block has a copy button (its own, or its chunk\'s)', all(d.execute_script(
        'var p = arguments[0], c = p.closest(".chunk"); return !!(c ? c.querySelector(":scope > p > button.copy") : p.querySelector(":scope > button.copy"))', p) for p in pres))
    out = d.find_element(By.CSS_SELECTOR, 'main pre.console')
    d.execute_script('arguments[0].scrollIntoView({block: "center"})', out)
    out.find_element(By.CSS_SELECTOR, ':scope > button.copy').click()
    time.sleep(0.3)
    got, shown = clipboard(d), d.execute_script('return arguments[0].querySelector("code").innerText', out)
    check('copy: an output\'s button copies it whole, without the buttons', got.startswith('$ ') and 'Copy' not in got and got.split('\n')[-1] == shown.split('\n')[-1], got[:80])
    cmd = out.find_element(By.CSS_SELECTOR, 'span.command')
    cmd.find_element(By.XPATH, 'following-sibling::button[1]').click()
    time.sleep(0.3)
    got = clipboard(d)
    check('copy: a command\'s button copies it without "$ "', got == cmd.text[2:], got)
    check('copy: "Copied" shows a moment', d.execute_script('return arguments[0].nextElementSibling.textContent', cmd) == 'Copied')
    commands = d.find_elements(By.CSS_SELECTOR, 'code.command')
    check('copy: every code.command has a button (%d)' % len(commands), commands and all(d.execute_script('var n = arguments[0].nextElementSibling; return n && n.matches("button.copy")', c) for c in commands))
    d.execute_script('arguments[0].scrollIntoView({block: "center"})', commands[0])
    commands[0].find_element(By.XPATH, 'following-sibling::button[1]').click()
    time.sleep(0.3)
    check('copy: a program\'s build command, from its header: %s' % commands[0].text, clipboard(d) == commands[0].text, clipboard(d))
    phone(d, True)
    covered = d.execute_script('''
      var bad = [];
      document.querySelectorAll("pre > button.copy").forEach(function (b) {
        var r = document.createRange(); r.selectNodeContents(b.parentNode.querySelector("code") || b.parentNode);
        var box = b.getBoundingClientRect(), first = r.getClientRects()[0];
        if (first && box.bottom > first.top + 1 && box.right > first.left) bad.push(b.parentNode.textContent.slice(0, 40));
      });
      return bad;''')
    check('copy: at 390 px no block\'s button covers its text', not covered, covered[:3])
    width = d.execute_script('return document.documentElement.scrollWidth')
    check('copy: the page fits 390 px with the buttons', width <= 390, '%d px wide' % width)
    phone(d, False)
    console_errors(d, 'copy')


def edit(path, text):
    """Writes a chapter as an editor saves it: a new file renamed into place."""
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(path + '.tmp', path)


def test_preview(d, url, chapter, proj):
    """Under make preview in PROJ: a one-word edit reloads the open page at its place; a malformed directive
    shows its FILE:LINE over the page, which stays; the fix reloads it again. Returns the seconds
    from the save to the page showing the word."""
    with open(chapter, encoding='utf-8') as f:
        was = f.read()
    lines = was.split('\n')
    n = next(i for i, l in enumerate(lines) if i > 1 and l[:1].isalpha())   # the first prose line after the title
    word = 'Xylophonically'
    d.get(url)
    wait(d, 'return document.readyState === "complete"')
    d.execute_script('window.scrollTo(0, document.body.scrollHeight / 3); window.notReloaded = true')
    time.sleep(0.5)
    y = d.execute_script('return scrollY')
    start = time.time()
    edit(chapter, '\n'.join(lines[:n] + [lines[n] + ' ' + word] + lines[n + 1:]))
    wait(d, lambda d: word in d.execute_script('return document.body.textContent'), 120)
    took = time.time() - start
    check('preview: the page shows the edit %.1f s after the save, reloaded by itself' % took,
          not d.execute_script('return window.notReloaded === true'))
    wait(d, 'return document.readyState === "complete"')
    time.sleep(0.5)
    got = d.execute_script('return scrollY')
    check('preview: ... at the same place (scrollY %d)' % y, y > 0 and abs(got - y) < 5, 'scrollY %s' % got)
    d.execute_script('window.notReloaded = true')
    edit(chapter, was + 'A broken directive {{nosuch: value\n')
    line = '%s:%d: error: ' % (os.path.relpath(chapter, proj), len(lines))
    box = wait(d, 'return document.getElementById("preview-error")', 120)
    check('preview: a failed build shows its messages over the page: ' + line, line in box.text, box.text[:300])
    check('preview: ... and the page stays', d.execute_script('return window.notReloaded === true'))
    edit(chapter, was)
    wait(d, 'return !window.notReloaded && document.readyState === "complete" && !document.getElementById("preview-error")', 120)
    check('preview: the fix reloads the page, without the messages', True)
    console_errors(d, 'preview')
    return took


def make_preview(d, proj, chapter):
    """make preview in PROJ, a session of its own (its output in PROJ/preview.log), and test_preview under it."""
    port, log = 20000 + os.getpid() % 20000, os.path.join(proj, 'preview.log')
    with open(log, 'w') as out:
        p = subprocess.Popen(['make', '-s', 'preview', 'PORT=%d' % port, 'PYTHON=' + sys.executable], cwd=proj,
                             stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        with contextlib.suppress(TimeoutException):   # said below, with what make preview printed
            wait(d, lambda d: p.poll() is not None or 'preview: http' in open(log).read(), 120)
        served = re.search('^preview: http.*', open(log).read(), re.M)
        if not check('make preview serves: ' + (served[0] if served else '?'), served, open(log).read()):
            return
        url = 'http://127.0.0.1:%d/%s.html' % (port, os.path.basename(chapter)[:-3])
        print('site.py: reloaded %.1f s after the save' % test_preview(d, url, os.path.join(proj, chapter), proj))
    finally:
        with contextlib.suppress(ProcessLookupError):   # it may have stopped by itself
            os.killpg(p.pid, signal.SIGTERM)
        p.wait()
    check('make preview stops on a signal and leaves no preview.txt behind',
          not os.path.exists(os.path.join(proj, 'build/html/preview.txt')))


def main():
    """The checks of each command in turn, in one browser, a line each ("ok" or "FAIL"); exit 1 when any failed."""
    global HTML
    args, todo = sys.argv[1:], []
    while args and args[0] in ('pages', 'nested', 'preview') and len(args) >= (3 if args[0] == 'preview' else 2):
        n = 3 if args[0] == 'preview' else 2
        todo.append(args[:n])
        args = args[n:]
    if args or not todo:
        sys.exit('usage: site.py pages DIR | nested DIR | preview DIR CHAPTER ... (each in turn)')
    d = browser()
    try:
        for cmd in todo:
            if cmd[0] == 'preview':
                tests = (lambda d: make_preview(d, cmd[1], cmd[2]),)
            else:
                HTML = os.path.abspath(cmd[1])
                tests = (test_search_js, test_search, test_knowls, test_copy) if cmd[0] == 'pages' else (test_nested,)
            for test in tests:
                try:
                    test(d)
                except Exception as e:  # one broken feature does not hide the others
                    check(cmd[0] + ' ran to its end', False, repr(e)[:300])
    finally:
        d.quit()
    print('site.py: %d check(s) failed' % len(failures) if failures else 'site.py: all checks pass')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
