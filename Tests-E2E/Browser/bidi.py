"""A small WebDriver BiDi client for the browser suite: Debian's firefox-esr headless, driven
over its own --remote-debugging-port (Debian ships no geckodriver), with the few calls of
Playwright's sync API that the suite uses, so one test body runs in Chromium (Playwright) and
Firefox (this). Protocol: https://w3c.github.io/webdriver-bidi/ (session, browser,
browsingContext, script, log, network modules).

Values cross as JSON text (the page stringifies its answer, the argument is parsed in the page),
so no BiDi remote-value (de)serialiser is needed: the suite only passes and reads JSON data.
"""
import base64
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse

from websockets.sync.client import connect

# Preferences for a test profile: media plays without a gesture, nothing phones home or updates.
PREFERENCES = {
    "media.autoplay.default": 0,
    "media.autoplay.blocking_policy": 0,
    "media.eme.enabled": True,
    "media.gmp-manager.updateEnabled": False,
    "app.update.disabledForTesting": True,
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
}


class BiDiError(RuntimeError):
    pass


class Connection:
    """One WebSocket to the browser: commands answered by id, events to subscribers. Events are
    handled on the reader thread; a handler must not wait for a command's answer there (it may
    send with wait=False)."""

    def __init__(self, url):
        self.socket = connect(url, max_size=None, open_timeout=30)
        self.ids = itertools.count(1)
        self.waiting = {}
        self.lock = threading.Lock()
        self.handlers = []   # (method, callback(params))
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        try:
            for text in self.socket:
                message = json.loads(text)
                if "id" in message:
                    with self.lock:
                        slot = self.waiting.pop(message["id"], None)
                    if slot:
                        slot["answer"] = message
                        slot["done"].set()
                elif message.get("type") == "event":
                    for method, callback in list(self.handlers):
                        if method == message["method"]:
                            callback(message["params"])
        except Exception:   # the socket closed: every waiting command fails below
            pass
        with self.lock:
            for slot in self.waiting.values():
                slot["done"].set()

    def send(self, method, params=None, wait=True, timeout=120):
        command_id = next(self.ids)
        slot = {"done": threading.Event(), "answer": None}
        if wait:
            with self.lock:
                self.waiting[command_id] = slot
        self.socket.send(json.dumps({"id": command_id, "method": method, "params": params or {}}))
        if not wait:
            return None
        if not slot["done"].wait(timeout) or slot["answer"] is None:
            raise BiDiError(f"{method}: no answer")
        answer = slot["answer"]
        if answer.get("type") == "error" or "error" in answer:
            raise BiDiError(f"{method}: {answer.get('error')}: {answer.get('message')}")
        return answer.get("result", {})

    def on(self, method, callback):
        self.handlers.append((method, callback))

    def close(self):
        self.socket.close()


class Firefox:
    """firefox-esr --headless with a fresh profile, and a BiDi session on it."""

    def __init__(self, executable="/usr/bin/firefox-esr"):
        self.profile = tempfile.mkdtemp(prefix="mediadrm-firefox-")
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for name, value in PREFERENCES.items():
                f.write(f"user_pref({json.dumps(name)}, {json.dumps(value)});\n")
        self.process = subprocess.Popen([executable, "--headless", "--no-remote", "--profile", self.profile,
                                         "--remote-debugging-port", "0"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line and self.process.poll() is not None:
                raise RuntimeError(f"firefox-esr exited ({self.process.returncode}) before WebDriver BiDi listened")
            found = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
            url = found and found.group(1)
        if url is None:
            raise RuntimeError("firefox-esr did not report its WebDriver BiDi address within 60 s")
        # Drain stderr so the browser never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.process.stderr], daemon=True).start()
        self.connection = Connection(url.rstrip("/") + "/session")
        self.connection.send("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}})
        self.connection.send("session.subscribe", {"events": ["log.entryAdded", "network.beforeRequestSent"]})
        self.contexts = {}   # browsing context id -> Page
        self.connection.on("log.entryAdded", self.route_event("console"))
        self.connection.on("network.beforeRequestSent", self.route_event("request"))

    def route_event(self, kind):
        def deliver(params):
            page = self.contexts.get(params.get("context") or params.get("source", {}).get("context"))
            if page:
                page.deliver(kind, params)
        return deliver

    def new_context(self):
        return Context(self)

    def close(self):
        try:
            self.connection.send("session.end", timeout=10)
        except Exception:
            pass
        self.connection.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


class Message:
    def __init__(self, text):
        self.text = text


class Request:
    def __init__(self, url):
        self.url = url


class Context:
    """A BiDi user context: cookies and storage of its own, like a Playwright browser context."""

    def __init__(self, firefox):
        self.firefox = firefox
        self.send = firefox.connection.send
        self.id = self.send("browser.createUserContext")["userContext"]
        self.request_listeners = []
        self.pages = []

    def on(self, kind, callback):
        if kind != "request":
            raise NotImplementedError(kind)
        self.request_listeners.append(callback)

    def add_init_script(self, source):
        self.send("script.addPreloadScript", {"functionDeclaration": f"() => {{ {source} }}", "userContexts": [self.id]})

    def new_page(self):
        page = Page(self)
        self.pages.append(page)
        return page

    def close(self):
        for page in self.pages:
            page.forget()
        self.send("browser.removeUserContext", {"userContext": self.id})


class Route:
    def __init__(self, connection, request_id):
        self.connection, self.request_id = connection, request_id

    def continue_(self):
        self.connection.send("network.continueRequest", {"request": self.request_id}, wait=False)


class Page:
    """A tab: the suite's calls of Playwright's Page."""

    def __init__(self, context):
        self.context = context
        self.send = context.send
        self.id = self.send("browsingContext.create", {"type": "tab", "userContext": context.id})["context"]
        context.firefox.contexts[self.id] = self
        self.console_listeners = []
        self.routes = {}   # intercept id -> handler
        self.closed = False

    def deliver(self, kind, params):
        if kind == "console":
            for listener in self.console_listeners:
                listener(Message(params.get("text") or ""))
            return
        request = params["request"]
        for listener in self.context.request_listeners:
            listener(Request(request["url"]))
        if params.get("isBlocked"):
            handler = next((self.routes[i] for i in params.get("intercepts", []) if i in self.routes), None)
            route = Route(self.context.firefox.connection, request["request"])
            # A CORS preflight is the browser's own: only the request itself goes to the test.
            if handler is None or request.get("method") == "OPTIONS":
                route.continue_()
            else:
                handler(route)

    def on(self, kind, callback):
        if kind != "console":
            raise NotImplementedError(kind)
        self.console_listeners.append(callback)

    def goto(self, url):
        self.send("browsingContext.navigate", {"context": self.id, "url": url, "wait": "complete"})

    def route(self, pattern, handler):
        """`pattern`: "**/PATH" (every origin), as the suite writes Playwright's globs."""
        if not pattern.startswith("**/"):
            raise NotImplementedError(pattern)
        intercept = self.send("network.addIntercept", {"phases": ["beforeRequestSent"], "contexts": [self.id],
                                                       "urlPatterns": [{"type": "pattern", "pathname": pattern[2:]}]})["intercept"]
        self.routes[intercept] = handler

    def evaluate(self, expression, arg=None):
        """As Playwright's: `expression` is a function (called with `arg`) or an expression;
        its value, awaited, comes back as JSON data."""
        declaration = ("async function (argument) { const arg = argument === undefined ? undefined : JSON.parse(argument);"
                       f" const value = ({expression});"
                       " const out = typeof value === 'function' ? await value(arg) : await value;"
                       " return JSON.stringify(out); }")
        result = self.send("script.callFunction", {
            "functionDeclaration": declaration, "awaitPromise": True, "target": {"context": self.id},
            "arguments": [{"type": "string", "value": json.dumps(arg)}] if arg is not None else [{"type": "undefined"}]})
        if result.get("type") == "exception":
            details = result.get("exceptionDetails", {})
            raise BiDiError(f"page error: {details.get('text')}")
        value = result["result"]
        return json.loads(value["value"]) if value.get("type") == "string" else None

    def wait_for_function(self, expression, timeout=60000):
        deadline = time.monotonic() + timeout / 1000
        while time.monotonic() < deadline:
            if self.evaluate(f"(() => {{ const v = ({expression}); return typeof v === 'function' ? v() : v; }})()"):
                return
            time.sleep(0.1)
        raise AssertionError(f"timed out waiting for {expression}")

    def inner_text(self, selector):
        return self.evaluate("s => document.querySelector(s).innerText", selector)

    def input_value(self, selector):
        return self.evaluate("s => document.querySelector(s).value", selector)

    def fill(self, selector, value):
        self.evaluate("a => { const e = document.querySelector(a.s); e.value = a.v; e.dispatchEvent(new Event('input', {bubbles: true})); }",
                      {"s": selector, "v": value})

    def click(self, selector):
        self.evaluate("s => document.querySelector(s).click()", selector)

    def set_viewport_size(self, size):
        """As Playwright's: `size` is {"width", "height"} in CSS pixels."""
        self.send("browsingContext.setViewport", {"context": self.id, "viewport": size})

    def screenshot(self, path):
        """The viewport as a PNG file at `path`."""
        data = self.send("browsingContext.captureScreenshot", {"context": self.id})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def press(self, key):
        """One key pressed and released, as a user types it (`key`: a character, or "ArrowLeft"…)."""
        value = {"ArrowLeft": "\uE012", "ArrowUp": "\uE013", "ArrowRight": "\uE014", "ArrowDown": "\uE015", "Space": " "}.get(key, key)
        self.send("input.performActions", {"context": self.id, "actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]}]})

    def close(self):
        if not self.closed:
            self.closed = True
            self.send("browsingContext.close", {"context": self.id, "promptUnload": False})
        self.forget()

    def forget(self):
        self.context.firefox.contexts.pop(self.id, None)
