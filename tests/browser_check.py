"""Open built book pages in headless Chromium with the network unreachable and check them.

Usage: python tests/browser_check.py BUILD_HTML_DIR [PAGE ...]

PAGE is a path below the HTML folder without ``.html`` (default: the derivation, bound and
theory pages, which must hold typeset math; any other page must typeset the math it has). Each
page is loaded from ``file://`` in a fresh Chromium whose every network
request goes to a dead proxy (127.0.0.1:9), and the check fails unless, once MathJax has
finished:

- the page has typeset math (``mjx-container`` elements) and no formula left as raw TeX
  (a ``span.math``/``div.math`` without a ``mjx-container`` inside, or ``\\(``, ``\\[``,
  ``$$`` in the visible text outside code);
- every ``<img>`` has loaded (``complete`` and ``naturalWidth > 0``);
- no request went to another host (only ``file:``, ``data:``, ``blob:``, ``about:`` URLs)
  and no local file failed to load.

Chromium is driven through the DevTools protocol over ``--remote-debugging-pipe`` (file
descriptors 3 and 4, messages separated by a NUL byte), so the check needs only the
standard library and Debian's ``chromium`` package.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_PAGES = ("perceptron_pa/derivation", "perceptron_pa/bounds", "regularized/theory")
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
  const mathNodes = Array.from(document.querySelectorAll('span.math, div.math'));
  const untypeset = mathNodes.filter(n => !n.querySelector('mjx-container'))
                             .map(n => n.textContent.slice(0, 80));
  const clone = document.body.cloneNode(true);
  clone.querySelectorAll('pre, code, script, style, mjx-container, textarea')
       .forEach(n => n.remove());
  const text = clone.textContent;
  const raw = ['$$', '\\(', '\\['].filter(s => text.includes(s));
  const imgs = Array.from(document.images).map(i => ({
      src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0}));
  return JSON.stringify({
      mathjax: !!(window.MathJax && MathJax.version), version: window.MathJax && MathJax.version,
      containers: document.querySelectorAll('mjx-container').length,
      mathNodes: mathNodes.length, untypeset: untypeset, raw: raw, images: imgs,
      title: document.title});
})()
"""


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


def check_page(chromium, html_file, require_math=True):
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
            browser.send("Page.navigate", {"url": html_file.as_uri()}, session=session)
            browser.wait_event("Page.loadEventFired", timeout=120)
            result = browser.send("Runtime.evaluate",
                                  {"expression": INSPECT, "awaitPromise": True,
                                   "returnByValue": True}, session=session, timeout=120)
            if "exceptionDetails" in result:
                return [f"the inspection script failed: {result['exceptionDetails']}"]
            found = json.loads(result["result"]["value"])
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


def main(argv):
    if not argv:
        raise SystemExit(__doc__)
    root = Path(argv[0]).resolve()
    pages = argv[1:] or DEFAULT_PAGES
    chromium = find_chromium()
    failures = {}
    for page in pages:
        html_file = root / f"{page}.html"
        if not html_file.exists():
            failures[page] = [f"{html_file} does not exist (build the book first)"]
            continue
        problems = check_page(chromium, html_file, require_math=page in DEFAULT_PAGES)
        if problems:
            failures[page] = problems
    for page, problems in failures.items():
        for problem in problems:
            print(f"FAIL {page}: {problem}")
    if failures:
        return 1
    print(f"browser check: {len(pages)} pages render offline")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
