"""Open every page of the built book in headless Chromium, offline, at 1280 px, and check it.

Usage: python tests/browser_check.py BUILD_HTML_DIR [--screenshots DIR] [PAGE ...]

PAGE is a path below the HTML folder without ``.html``; with none, every page of the build is
checked (each HTML file but Sphinx's genindex, search and module index), and every page that
``_toc.yml`` names must have been built. Each page is loaded from ``file://`` in a fresh
Chromium whose window is 1280 x 900 px (a laptop) and whose every network request goes to a
dead proxy (127.0.0.1:9), and the check fails unless, once MathJax has finished:

- the pages of ``MATH_PAGES`` have typeset math (``mjx-container`` elements), and no page has a
  formula left as raw TeX (a ``span.math``/``div.math`` without a ``mjx-container`` inside,
  or ``\\(``, ``\\[``, ``$$`` in the visible text outside code);
- the visible text (outside code, with every dropdown opened) has no MyST or TeX printed as
  typed: no ``$...$``, no ``\\command``, no ``{role}`` such as ``{eq}`` or ``{prf:ref}``
  (what a code cell's ``Markdown(...)`` output showed while it was parsed as CommonMark);
- no line of a code cell or of an output is cut at the right edge of its box (measured with
  the box's own font), and no table, image or formula is wider than the text column;
- every ``<img>`` has loaded (``complete`` and ``naturalWidth > 0``);
- no request went to another host (only ``file:``, ``data:``, ``blob:``, ``about:`` URLs)
  and no local file failed to load.

With ``--screenshots DIR`` a PNG of each page's first screen is written there, to be looked at.

Chromium is driven through the DevTools protocol over ``--remote-debugging-pipe`` (file
descriptors 3 and 4, messages separated by a NUL byte), so the check needs only the
standard library and Debian's ``chromium`` package.
"""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# pages that must hold typeset math (any other page must typeset the math it has)
MATH_PAGES = ("perceptron_pa/derivation", "perceptron_pa/bounds", "regularized/theory")
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:", "chrome:", "devtools:", "chrome-extension:")

CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-extensions",
                  "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
                  # every request that would leave the machine goes to a closed port
                  "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                  "--remote-debugging-pipe"]

# Run in the page once MathJax has typeset it: what the check asserts on.
INSPECT = r"""
(async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  if (!document.body) {  // a redirect (Sphinx's index.html): nothing to read
    return JSON.stringify({mathjax: false, containers: 0, mathNodes: 0, untypeset: [], raw: [],
                           literal: [], cut: [], wide: [], column: 0, images: [],
                           title: document.title, redirect: true});
  }
  const mathNodes = Array.from(document.querySelectorAll('span.math, div.math'));
  const untypeset = mathNodes.filter(n => !n.querySelector('mjx-container'))
                             .map(n => n.textContent.slice(0, 80));
  // the text a reader reads: without code, scripts, typeset math and the hidden parts
  // (collapsed dropdowns are opened first, so their text is checked too)
  document.querySelectorAll('details').forEach(d => d.open = true);
  const clone = document.body.cloneNode(true);
  clone.querySelectorAll('pre, code, script, style, mjx-container, textarea, .visually-hidden, '
                         + 'mjx-assistive-mml, .MathJax_Preview, svg')
       .forEach(n => n.remove());
  const text = clone.textContent;
  const raw = ['$$', '\\(', '\\['].filter(s => text.includes(s));
  // MyST or TeX that was printed as typed instead of being parsed (issue 27)
  const literal = [];
  const patterns = [
    [/\$[^\s$][^$\n]{0,200}?\$/g, 'raw $...$'],
    [/\\[a-zA-Z]{2,}\b/g, 'raw \\command'],
    [/\{(?:[a-z]+:)?[a-z][a-z-]*\}`/g, 'raw {role}`...`'],
    [/\{(?:eq|doc|ref|numref|cite|prf:ref|glue:text|glue:md|py:class|py:func|term)\}/g,
     'raw {role}'],
  ];
  for (const [re, what] of patterns) {
    for (const m of text.matchAll(re)) {
      const at = m.index;
      literal.push(what + ': ' + JSON.stringify(
          text.slice(Math.max(0, at - 40), at + m[0].length + 40).replace(/\s+/g, ' ')));
    }
  }
  // the text column: the article of the Sphinx book theme, else the body
  const column = document.querySelector('article.bd-article') || document.querySelector('main')
                 || document.body;
  const colRect = column.getBoundingClientRect();
  const colStyle = getComputedStyle(column);
  const colRight = colRect.right - parseFloat(colStyle.paddingRight || 0) + 1;
  const colWidth = colRect.width - parseFloat(colStyle.paddingLeft || 0)
                   - parseFloat(colStyle.paddingRight || 0);
  // code and output lines cut at the right edge of their box (a horizontal scroll)
  const canvas = document.createElement('canvas').getContext('2d');
  const cut = [];
  for (const pre of document.querySelectorAll('pre')) {
    if (pre.closest('details:not([open])') || pre.offsetParent === null) continue;
    const style = getComputedStyle(pre);
    if (!['pre', 'nowrap'].includes(style.whiteSpace)) continue;  // it wraps: nothing is cut
    canvas.font = style.font;
    const room = pre.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const output = !!pre.closest('.cell_output, .output');
    for (const line of pre.innerText.split('\n')) {
      const width = canvas.measureText(line.replace(/\t/g, '        ')).width;
      if (width > room + 1) {
        cut.push((output ? 'output ' : 'code ') + line.length + ' chars: '
                 + JSON.stringify(line.slice(0, 60) + '...'));
      }
    }
  }
  // tables (and figures) wider than the text column
  const wide = [];
  for (const el of document.querySelectorAll('table, img')) {
    if (el.offsetParent === null || el.closest('.bd-sidebar-primary, .bd-sidebar-secondary, '
                                               + 'header, footer, nav')) continue;
    const r = el.getBoundingClientRect();
    const width = el.tagName === 'TABLE' ? Math.max(r.width, el.scrollWidth) : r.width;
    if (r.left + width > colRight + 1 || width > colWidth + 1) {
      const label = el.tagName === 'TABLE'
          ? (el.innerText || '').trim().slice(0, 50).replace(/\s+/g, ' ')
          : el.getAttribute('src');
      wide.push(el.tagName.toLowerCase() + ' ' + Math.round(width) + ' px in a '
                + Math.round(colWidth) + '-px column: ' + JSON.stringify(label));
    }
  }
  // formulas that run past the column (a long inline formula does not wrap; a display one
  // is cut behind a scroll)
  // (olearn.css scales a display formula down to the column: one scaled below 80 % of its
  // size is as unreadable as a cut one)
  for (const m of document.querySelectorAll('article mjx-container')) {
    if (m.getClientRects().length === 0 || m.closest('details:not([open])')) continue;
    const svg = m.querySelector('svg');
    const r = (svg || m).getBoundingClientRect();  // the drawn formula
    const text = JSON.stringify((m.textContent || '').slice(0, 40));
    if (r.right > colRight + 1) {
      wide.push('formula ' + Math.round(r.width) + ' px ending at ' + Math.round(r.right)
                + ' px (column ends at ' + Math.round(colRight) + '): ' + text);
    } else if (svg) {
      svg.style.maxWidth = 'none';  // the formula's own width, unscaled
      const natural = svg.getBoundingClientRect().width;
      svg.style.maxWidth = '';
      if (natural > 0 && r.width < 0.8 * natural) {
        wide.push('formula scaled to ' + Math.round(100 * r.width / natural)
                  + ' % to fit the column: ' + text);
      }
    }
  }
  const imgs = Array.from(document.images).map(i => ({
      src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0}));
  return JSON.stringify({
      mathjax: !!(window.MathJax && MathJax.version), version: window.MathJax && MathJax.version,
      containers: document.querySelectorAll('mjx-container').length,
      mathNodes: mathNodes.length, untypeset: untypeset, raw: raw, literal: literal,
      cut: cut, wide: wide, column: Math.round(colWidth), images: imgs,
      texErrors: Array.from(document.querySelectorAll('mjx-merror, [data-mjx-error]'))
                      .map(e => e.getAttribute('data-mjx-error') || e.textContent.slice(0, 60)),
      title: document.title});
})()
"""

WIDTH, HEIGHT = 1280, 900  # a laptop's window: the width the layout is checked at


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise SystemExit("browser_check: no chromium found (Debian: apt-get install -y chromium)")


def _as_fds_3_and_4(read_end, write_end):
    # in the child: Chromium reads commands on fd 3 and writes replies on fd 4 (close_fds is
    # off, since subprocess would close fds 3 and 4 after this hook)
    high_r, high_w = os.dup(read_end), os.dup(write_end)  # neither is 3 or 4 any more
    os.dup2(high_r, 3)
    os.dup2(high_w, 4)


class Pipe:
    """A DevTools protocol client over Chromium's --remote-debugging-pipe."""

    def __init__(self, chromium, profile):
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()
        self.proc = subprocess.Popen(
            [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
            close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=lambda: _as_fds_3_and_4(to_child_r, from_child_w))
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._r, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buf += chunk
        message, self._buf = self._buf.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, timeout=60):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._w, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, timeout=60):
        deadline = time.monotonic() + timeout
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            event = self._read_message(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._r)
        os.close(self._w)


def check_page(chromium, html_file, require_math=True, screenshot=None):
    """Problems found on one page (an empty list when it renders fully offline).

    With ``require_math`` the page must hold typeset math; without it, a page with no formula
    at all passes (a landing page, the scoreboard), but any formula it has must be typeset.
    """
    with tempfile.TemporaryDirectory(prefix="olearn-chromium-") as profile:
        browser = Pipe(chromium, profile)
        try:
            targets = browser.send("Target.getTargets")["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            session = browser.send("Target.attachToTarget",
                                   {"targetId": page["targetId"], "flatten": True})["sessionId"]
            for domain in ("Page", "Network", "Runtime"):
                browser.send(f"{domain}.enable", session=session)
            browser.send("Emulation.setDeviceMetricsOverride",
                         {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1,
                          "mobile": False}, session=session)
            browser.send("Page.navigate", {"url": html_file.as_uri()}, session=session)
            browser.wait_event("Page.loadEventFired", timeout=120)
            result = browser.send("Runtime.evaluate",
                                  {"expression": INSPECT, "awaitPromise": True,
                                   "returnByValue": True}, session=session, timeout=120)
            if "exceptionDetails" in result:
                return [f"the inspection script failed: {result['exceptionDetails']}"]
            found = json.loads(result["result"]["value"])
            if screenshot:
                shot = browser.send("Page.captureScreenshot", {"format": "png"},
                                    session=session, timeout=120)
                Path(screenshot).write_bytes(base64.b64decode(shot["data"]))
            events = list(browser.events)
        finally:
            browser.close()
    problems = []
    has_math = require_math or found["mathNodes"] > 0 or found["raw"]
    if has_math and not found["mathjax"]:
        problems.append("MathJax did not load")
    if has_math and found["containers"] == 0:
        problems.append("no typeset math (no mjx-container element)")
    if found["untypeset"]:
        problems.append(f"{len(found['untypeset'])} formulas left as raw TeX, "
                        f"e.g. {found['untypeset'][:3]}")
    if found["raw"]:
        problems.append(f"raw TeX delimiters in the visible text: {found['raw']}")
    if found.get("texErrors"):
        problems.append(f"{len(found['texErrors'])} formulas MathJax could not typeset: "
                        f"{found['texErrors'][:3]}")
    if found["literal"]:
        kinds = sorted({item.split(": ", 1)[0] for item in found["literal"]})
        problems.append(f"{len(found['literal'])} MyST/TeX literals printed as typed "
                        f"({', '.join(kinds)}), e.g. {found['literal'][:3]}")
    if found["cut"]:
        problems.append(f"{len(found['cut'])} code/output lines cut at the right edge at "
                        f"{WIDTH} px, e.g. {found['cut'][:3]}")
    if found["wide"]:
        problems.append(f"wider than the text column at {WIDTH} px: {found['wide'][:5]}")
    broken = [img["src"] for img in found["images"] if not img["ok"]]
    if broken:
        problems.append(f"images not loaded: {broken}")
    remote = sorted({e["params"]["request"]["url"] for e in events
                     if e.get("method") == "Network.requestWillBeSent"
                     and not e["params"]["request"]["url"].startswith(LOCAL_SCHEMES)})
    if remote:
        problems.append(f"requests to other hosts: {remote}")
    failed = [e["params"] for e in events if e.get("method") == "Network.loadingFailed"]
    if failed:
        problems.append(f"{len(failed)} resources failed to load: "
                        f"{[f.get('errorText') for f in failed][:5]}")
    print(f"{html_file}: MathJax {found.get('version')}, {found['containers']} typeset formulas "
          f"({found['mathNodes']} math nodes), {len(found['images'])} images, "
          f"{len(remote)} remote requests")
    return problems


NOT_PAGES = {"genindex", "search", "py-modindex"}


def is_redirect(html_file):
    """True for a page that only redirects (Jupyter Book's index.html to the root page)."""
    return 'http-equiv="refresh"' in html_file.read_text(errors="replace")[:2000].lower()


def book_pages(root):
    """Every page of a built book: each HTML file but Sphinx's index and search pages and
    redirects."""
    return sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.html")
                  if not any(part.startswith("_") for part in p.relative_to(root).parts)
                  and p.stem not in NOT_PAGES and not is_redirect(p))


def toc_files(root):
    """The pages the book's _toc.yml names, when the HTML folder is book/_build/html."""
    toc = root.parents[1] / "_toc.yml"
    if not toc.exists():
        return []
    text = toc.read_text()
    return re.findall(r"^\s*root:\s*(\S+)", text, re.M) + \
        re.findall(r"^\s*-?\s*file:\s*(\S+)", text, re.M)


def main(argv):
    """``browser_check.py HTML_DIR [--screenshots DIR] [PAGE ...]``; no PAGE: every page."""
    if not argv:
        raise SystemExit(__doc__)
    argv = list(argv)
    shots = None
    if "--screenshots" in argv:
        i = argv.index("--screenshots")
        shots = Path(argv[i + 1])
        shots.mkdir(parents=True, exist_ok=True)
        del argv[i:i + 2]
    root = Path(argv[0]).resolve()
    pages = argv[1:] or book_pages(root)
    chromium = find_chromium()
    failures = {}
    if not argv[1:]:
        missing = sorted(set(toc_files(root)) - set(pages))
        if missing:
            failures["_toc.yml"] = [f"pages of the table of contents not built: {missing}"]
    for page in pages:
        html_file = root / f"{page}.html"
        if not html_file.exists():
            failures[page] = [f"{html_file} does not exist (build the book first)"]
            continue
        shot = shots / (page.replace("/", "__") + ".png") if shots else None
        try:
            problems = check_page(chromium, html_file, require_math=page in MATH_PAGES,
                                  screenshot=shot)
        except (RuntimeError, TimeoutError) as error:  # one page's failure, not the check's
            problems = [f"the page could not be inspected: {error}"]
        if problems:
            failures[page] = problems
    for page, problems in failures.items():
        for problem in problems:
            print(f"FAIL {page}: {problem}")
    print(f"browser check: {len(pages)} pages at {WIDTH} px: {', '.join(pages)}")
    if failures:
        print(f"browser check: {len(failures)} of {len(pages)} pages fail")
        return 1
    print(f"browser check: all {len(pages)} pages render offline, as written, within the column")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
