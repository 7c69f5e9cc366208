#!/usr/bin/python3
# browsercheck.py DIR [SHOTS] -- checks every page of the HTML book in headless Chromium (notes/design.md, "Checks").
import atexit, base64, glob, importlib.util, os, pathlib, re, shutil, signal, sys, tempfile, urllib.parse

TIMEOUT, PART = int(os.environ.get("CHECK_TIMEOUT", 60)), int(os.environ.get("CHECK_PART", 16000))  # PART: px a picture
DRIVER, CHROMIUM = "/usr/bin/chromedriver", os.environ.get("CHROMIUM", "chromium")
JS = os.path.join(os.path.dirname(__file__), "browsercheck.js")
# No network: Chromium's own traffic off, and what a page asks of the outside goes to a proxy that is not there.
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
         "--disable-background-networking", "--disable-component-update", "--disable-extensions", "--mute-audio",
         "--hide-scrollbars", "--window-size=1280,900", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]
CHECK = "var done = arguments[0]; setTimeout(function () { done(window.__browsercheck && __browsercheck()); }, 200);"

def stop(message, rc=2):
    print(message, file=sys.stderr)
    sys.exit(rc)

def say(page, problem):
    problems[page][problem] = True

def told(entry):   # an error in Chromium's log (a script's, console.error, a failed resource, a refusal), and where
    url, line, text = re.fullmatch(r"(?:(\S+) (?:(\d+)(?::\d+)?|-) )?(.*)", entry["message"], re.S).groups()
    where = urllib.parse.unquote((url or "").removeprefix(root)) + (f":{int(line) + 1}" if line else "")
    text = " ".join(re.sub(r'^"(.*)"$', r"\1", text, flags=re.S).split())[:200]
    return f"{'script' if entry['source'] == 'javascript' else 'console'} error: {text} ({where})"

def view(width, height):   # emulated: a headless window is never narrower than 500 px
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)

def shoot(page, kind, width, height):
    """The page whole, in parts of at most PART px, in a viewport as high as the page, as an iframe showed it: the
    book's contents (100vh) whole (captureBeyondViewport keeps 100vh at 900 px). Fast PNGs: 30% larger, less CPU."""
    base = os.path.join(shots, f"{page[:-5]}-{kind}")
    for old in glob.glob(glob.escape(base) + "*.png"):
        re.fullmatch(r"(-[0-9]+)?\.png", old[len(base):]) and os.remove(old)
    n = -(-height // PART)
    part = -(-height // n)
    try:
        view(width, height)
        for i in range(n):
            clip = {"x": 0, "y": i * part, "width": width, "height": min(part, height - i * part), "scale": 1}
            png = driver.execute_cdp_cmd("Page.captureScreenshot", {"clip": clip, "optimizeForSpeed": True})
            pathlib.Path(base + (f"-{i + 1}" if n > 1 else "") + ".png").write_bytes(base64.b64decode(png["data"]))
    except WebDriverException:
        say(page, f"Chromium made no {kind} screenshot")

len(sys.argv) in (2, 3) or stop("usage: scripts/check/browsercheck.py DIR [SHOTS]")
top, shots = sys.argv[1].removesuffix("/"), (sys.argv[2:] or [""])[0]
os.path.isdir(top) or stop(f"browsercheck: {top}: no such folder")
os.access(JS, os.R_OK) or stop(f"browsercheck: {JS}: missing")
shutil.which(CHROMIUM) or stop(f"browsercheck: no {CHROMIUM} (make deps installs it)")
os.access(DRIVER, os.X_OK) or stop(f"browsercheck: no {DRIVER} (make deps installs chromium-driver)")
importlib.util.find_spec("selenium") or stop("browsercheck: no Selenium (make deps installs python3-selenium)")
from selenium import webdriver   # Debian's, hence /usr/bin/python3 and not the first python3 on the PATH
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
pages = sorted(p for p in os.listdir(top) if p.endswith(".html"))
pages or stop(f"browsercheck: {top}: no pages (*.html)", 1)
shots and os.makedirs(shots, exist_ok=True)
root = pathlib.Path(top).absolute().as_uri() + "/"
problems = {p: {} for p in pages}   # each page's, in order, each once
desktop = {}                        # what browsercheck.js found in each page at 1280 px, for the links
# Chromium's profile and temporary files in a folder of ours, removed at the end, and Chromium stopped, on a signal too.
os.environ["TMPDIR"] = scratch = tempfile.mkdtemp(prefix="browsercheck.")
atexit.register(shutil.rmtree, scratch, True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
options = webdriver.ChromeOptions()
options.binary_location = shutil.which(CHROMIUM)
for flag in FLAGS:
    options.add_argument(flag)
options.timeouts = {"pageLoad": TIMEOUT * 1000, "script": TIMEOUT * 1000}
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})   # for driver.get_log("browser")
driver = None
atexit.register(lambda: driver and driver.quit())

# Each page at each width, a moment after its load event (for late errors); one that does not load loses its Chromium.
todo = [p for p in pages if re.fullmatch(r"[A-Za-z0-9._-]+", p) or
        say(p, "a page name with characters other than letters, digits and ._- (links to it need escaping)")]
for width, kind in ((1280, "desktop"), (390, "phone")):
    for p in list(todo):
        try:
            if not driver:   # browsercheck.js goes into every page, before the page's own scripts
                driver = webdriver.Chrome(service=Service(DRIVER), options=options)
                driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": open(JS).read()})
            view(width, 900)
            driver.get(pathlib.Path(top, p).absolute().as_uri())
            r = driver.execute_async_script(CHECK) or {
                "problems": ["the page did not finish loading, or a script stopped it before its check ran"]}
            for s in r["problems"] + [told(e) for e in driver.get_log("browser") if e["level"] == "SEVERE"]:
                say(p, s)
            desktop.setdefault(p, r)   # the first is at 1280 px
            shots and shoot(p, kind, width, max(r.get("height", 900), 200))
        except WebDriverException as e:
            say(p, f"did not load: Chromium did not finish in {TIMEOUT} s (a script that never ends?)"
                if isinstance(e, TimeoutException) else f"did not load: Chromium failed: {' '.join(str(e.msg).split())}")
            todo.remove(p)
            driver and driver.quit()
            driver = None

# Links, within a page too: the file is in DIR, and a page that was checked has the id linked.
for p, r in desktop.items():
    for target, frag in r.get("links", []):
        if not os.path.exists(os.path.join(top, target)):
            say(p, f"broken link: {target}{'#' + frag if frag else ''}: {target} is not a file of the book "
                   f"({top}/{target} does not exist)")
        elif frag and target in desktop and frag not in desktop[target].get("ids", {}):
            say(p, f'broken anchor: link to {target}#{frag}, but {target} has no id "{frag}"')
print("".join(f"{p}: {s}\n" for p in pages for s in problems[p]), end="", flush=True)
n = sum(map(len, problems.values()))
n and stop(f"browsercheck: {n} problem(s) in {len(pages)} page(s) of {top}", 1)
print(f"browsercheck: {len(pages)} page(s) of {top} pass" + (f"; screenshots in {shots}" if shots else ""))
