"""Headless Chromium (Debian's `chromium`) driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages ending in NUL on file descriptors 3 and 4), so no port,
no websocket library and no network are needed. Used by test_site.py and, as a command, to
measure a page:

    python3 tests/python/browser.py REPORT/index.html [--screenshot first-screen.png] [--width 1280 --height 900]

prints one JSON object: the page's scroll height in px, broken images, console errors, requests
that were not file:// URLs, the links, and where the element with id "verdicts" ends.
"""

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium():
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(Exception):
    pass


class Browser:
    """One headless Chromium process with one page; close() (or `with`) ends it."""

    def __init__(self, width=1280, height=900, timeout=60.0):
        exe = find_chromium()
        if exe is None:
            raise BrowserError("no chromium on PATH (scripts/install-deps installs Debian's)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="memrel-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire():  # in the child: its fd 3 reads our commands, its fd 4 writes the replies
            r, w = os.dup(to_child_r), os.dup(from_child_w)  # out of the way of 3 and 4 first
            os.dup2(r, 3)
            os.dup2(w, 4)

        args = [exe, "--headless", "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
                "--disable-gpu", "--disable-extensions", "--disable-background-networking", "--disable-sync",
                "--mute-audio", "--hide-scrollbars", f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}", "--host-resolver-rules=MAP * ~NOTFOUND"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to run its sandbox as root (CI containers)
        self.proc = subprocess.Popen(args + ["about:blank"], preexec_fn=wire, pass_fds=(3, 4),
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events = []
        self.width, self.height = width, height
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=True)

    # --- the pipe ----------------------------------------------------------------------------
    def _send(self, message):
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_child, data):]

    def _receive(self, deadline):
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("chromium did not answer in time")
            import select

            ready, _, _ = select.select([self._from_child], [], [], 0.5)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    err = self.proc.stderr.read().decode(errors="replace")[-400:] if self.proc.poll() is not None else ""
                    raise BrowserError(f"chromium closed the pipe {err}")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=False):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        self._send(message)
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method, deadline):
        for i, e in enumerate(self.events):
            if e["method"] == method:
                return self.events.pop(i)
        while True:
            reply = self._receive(deadline)
            if reply.get("method") == method:
                return reply
            if "method" in reply:
                self.events.append(reply)

    # --- a page --------------------------------------------------------------------------------
    def load(self, path):
        """Opens a file and waits for its load event (every image loaded or failed)."""
        self.events.clear()
        url = "file://" + os.path.abspath(path)
        result = self.call("Page.navigate", {"url": url}, session=True)
        if result.get("errorText"):
            raise BrowserError(f"{path}: {result['errorText']}")
        self.wait_for("Page.loadEventFired", time.monotonic() + self.timeout)
        return url

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"evaluate: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def screenshot(self, out_path):
        """The first screen (the viewport), as a PNG."""
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        with open(out_path, "wb") as f:
            f.write(base64.b64decode(data))
        return out_path

    def console_errors(self):
        """Console errors, uncaught exceptions and failed loads seen since the page was loaded."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif e["method"] == "Runtime.exceptionThrown":
                out.append("exception: " + p.get("exceptionDetails", {}).get("text", ""))
            elif e["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}".strip())
            elif e["method"] == "Network.loadingFailed":
                out.append(f"network: {p.get('errorText')}")
        return out

    def requests(self):
        return [e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"]

    def inspect(self, verdicts_id="verdict-table"):
        """What the page shows: its size, broken images, links, where #verdicts ends."""
        return self.evaluate("""(() => {
          const v = document.getElementById(%s);
          const r = v ? v.getBoundingClientRect() : null;
          return {
            scroll_height: document.documentElement.scrollHeight,
            viewport_height: window.innerHeight,
            images: document.images.length,
            broken_images: [...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
            links: [...document.querySelectorAll('a[href]')].map(a => a.href),
            ids: [...document.querySelectorAll('[id]')].map(e => e.id),
            verdicts_bottom: r ? r.bottom : null,
            verdicts_top: r ? r.top : null,
          };
        })()""" % json.dumps(verdicts_id))

    def close(self):
        if self.proc.poll() is None:
            try:
                self._send({"id": 0, "method": "Browser.close"})
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)
        self.proc.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main(argv):
    import argparse

    p = argparse.ArgumentParser(description="Load a page in headless Chromium and print what it shows (JSON).")
    p.add_argument("page")
    p.add_argument("--screenshot", help="write the first screen (viewport) as PNG here")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=900)
    args = p.parse_args(argv)
    with Browser(args.width, args.height) as b:
        b.load(args.page)
        info = b.inspect()
        info["console_errors"] = b.console_errors()
        info["non_file_requests"] = [u for u in b.requests() if not u.startswith(("file:", "data:", "about:"))]
        del info["links"], info["ids"]
        if args.screenshot:
            b.screenshot(args.screenshot)
    print(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
