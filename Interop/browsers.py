"""Headless browsers for the SwiftRTC interop peer (browser_peer.py): Chromium through
chromedriver's W3C HTTP API (standard library only) and Firefox ESR through Marionette
(the `marionette_driver` package). Both run browser_peer.html and offer the same calls:

  browser = make("firefox")      # or "chromium"; exits 2 naming what to install if missing
  browser.start()                # browser up, driver session open
  browser.open(url)              # loads the page, waits for window.peerReady (or `ready=`)
  browser.run(script, *args)     # runs a synchronous script in the page, returns its value
  browser.call(method, *args)    # awaits window.peer.<method>(...args) in the page
  browser.screenshot(path)       # writes a PNG of the page
  browser.close()                # always: ends the session, kills the process group, removes the profile

Every browser runs in a process group of its own. close() kills that group by its id, and a
small watchdog shell kills it within a second should the Python process itself be SIGKILLed.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from interop_common import die_missing, free_port  # noqa: E402

STARTUP_TIMEOUT_S = 60.0
SCRIPT_TIMEOUT_S = 45.0

NAMES = ("chromium", "firefox")


def log(msg: str) -> None:
    print(f"browser_peer: {msg}", file=sys.stderr, flush=True)


def _tail(path: str) -> str:
    """The last 1500 characters of a log file ("" if it cannot be read)."""
    try:
        with open(path, errors="replace") as f:
            return f.read()[-1500:]
    except OSError:
        return ""


def start_watchdog(name: str, group: int, folder: str) -> subprocess.Popen:
    """A shell that kills process group `group` and removes `folder` (the temporary profile)
    once this process is gone, even by SIGKILL."""
    return subprocess.Popen(
        ["/bin/sh", "-c",
         'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -KILL -"$2" 2>/dev/null; sleep 1; rm -rf "$3"',
         name, str(os.getpid()), str(group), folder],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def kill_group(proc: Optional[subprocess.Popen], grace_s: float = 5.0) -> None:
    """SIGTERM to the group of `proc` (its leader), then SIGKILL to whatever of it is left."""
    if proc is None:
        return
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(grace_s)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the rest of the group (browser child processes)
    except ProcessLookupError:
        pass
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        pass


# Awaits window.peer.<method>(...args) and hands back {ok: value} or {error: message}. The
# message is the error's name and message, then its stack: Chromium's stack starts with the
# message, Firefox's is the frames only.
_CALL_SCRIPT = (
    "const done = arguments[arguments.length - 1];"
    "Promise.resolve().then(() => window.peer[arguments[0]](...arguments[1]))"
    ".then((v) => done({ok: v}), (e) => {"
    "  const message = String(e), stack = String(e && e.stack || '');"
    "  done({error: stack.startsWith(message) ? stack : message + (stack ? '\\n' + stack : '')});"
    "});"
)


def program(given: Optional[str], names: list[str], what: str, install: str) -> str:
    """`given`, else the first of `names` on PATH; exits naming what to install when none is."""
    found = given or next((path for path in map(shutil.which, names) if path), None)
    if not found:
        die_missing(what, install)
    return found


# What open() waits for by default: the WHIP driver page (browser_peer.html) is ready.
PEER_READY = "window.peerReady === true"


class Browser:
    """The common interface. Always call close(), also when start() failed."""

    name = "browser"

    def start(self) -> None:
        raise NotImplementedError

    def open(self, url: str, ready: str = PEER_READY) -> None:
        """Loads `url` and waits until the JavaScript expression `ready` is true there."""
        raise NotImplementedError

    def run(self, script: str, *args: Any) -> Any:
        raise NotImplementedError

    def call(self, method: str, *args: Any) -> Any:
        raise NotImplementedError

    def screenshot(self, path: str) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def version(self) -> Optional[str]:
        return None

    def wait_page_ready(self, url: str, ready: str) -> None:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while not self.run(f"return ({ready});"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"driver page did not load from {url}")
            time.sleep(0.1)


# --- Chromium ---------------------------------------------------------------------------------

CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--autoplay-policy=no-user-gesture-required",
    # Host candidates as real addresses, not mDNS .local names.
    "--disable-features=WebRtcHideLocalIpsWithMdns",
    # Keep the browser quiet: no traffic but the page's own, on loopback.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-dev-shm-usage",
    "--mute-audio",
    # Room for a page of tiles in screenshots (headless default: 800x600).
    "--window-size=1280,960",
]


class Chromium(Browser):
    """chromedriver + headless Chromium running the driver page. Always call close()."""

    name = "chromium"

    def __init__(self, binary: Optional[str] = None) -> None:
        self.binary = program(binary, ["chromium", "chromium-browser"], "Chromium", "apt-get install -y chromium")
        self.chromedriver = program(None, ["chromedriver"], "chromedriver", "apt-get install -y chromium-driver")
        self.tmp = tempfile.mkdtemp(prefix="swiftrtc-chromium-")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.session: Optional[str] = None
        self.proc: Optional[subprocess.Popen] = None
        self.watchdog: Optional[subprocess.Popen] = None
        self.lock = threading.Lock()
        self.driver_log = os.path.join(self.tmp, "chromedriver.log")
        self.driver_output = os.path.join(self.tmp, "chromedriver.out")

    def start(self) -> None:
        # Own process group: close() ends chromedriver and the Chromium it started, by group id.
        # Its own words on stdout/stderr (such as "port not available") go to a file named in
        # any error below.
        with open(self.driver_output, "wb") as out:
            self.proc = subprocess.Popen(
                [self.chromedriver, f"--port={self.port}", "--allowed-ips=127.0.0.1",
                 f"--log-path={self.driver_log}"],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        # If this script is killed outright (SIGKILL), nothing here runs: a watchdog shell
        # then kills the chromedriver/Chromium group once this process is gone.
        self.watchdog = start_watchdog("chromium-peer-watchdog", self.proc.pid, self.tmp)
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            try:
                if self._http("GET", "/status", timeout=2).get("ready"):
                    break
            except RuntimeError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromedriver exited with {self.proc.returncode} (log {self.driver_log}): "
                                   f"{self._output_tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError("chromedriver did not become ready in time")
            time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": self.binary,
                "args": CHROMIUM_FLAGS + [f"--user-data-dir={os.path.join(self.tmp, 'profile')}"],
            },
        }}}
        created = self._http("POST", "/session", caps, timeout=STARTUP_TIMEOUT_S)
        self.session = created["sessionId"]
        self.browser_version = created.get("capabilities", {}).get("browserVersion")
        self._http("POST", f"/session/{self.session}/timeouts", {"script": int(SCRIPT_TIMEOUT_S * 1000)})

    def version(self) -> Optional[str]:
        return getattr(self, "browser_version", None)

    def _output_tail(self) -> str:
        return _tail(self.driver_output)

    def _http(self, method: str, path: str, body: Any = None, timeout: float = SCRIPT_TIMEOUT_S + 10) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                payload = json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as e:
            try:
                value = json.loads(e.read() or b"{}").get("value", {})
            except ValueError:
                value = {}
            message = str(value.get("message", "")).split("\n")[0]
            raise RuntimeError(f"chromedriver {method} {path}: HTTP {e.code} {value.get('error')}: {message}") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise RuntimeError(f"chromedriver {method} {path}: {e}") from None
        return payload.get("value") if isinstance(payload, dict) else None

    def open(self, url: str, ready: str = PEER_READY) -> None:
        with self.lock:
            self._http("POST", f"/session/{self.session}/url", {"url": url}, timeout=STARTUP_TIMEOUT_S)
        self.wait_page_ready(url, ready)

    def run(self, script: str, *args: Any) -> Any:
        """execute_script: the script's return value."""
        with self.lock:
            return self._http("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})

    def call(self, method: str, *args: Any) -> Any:
        """Awaits window.peer.<method>(...args) in the page; raises RuntimeError on rejection."""
        with self.lock:
            result = self._http("POST", f"/session/{self.session}/execute/async",
                                {"script": _CALL_SCRIPT, "args": [method, list(args)]})
        if result is None or "error" in result:
            raise RuntimeError(f"page {method}: {result and result.get('error')}")
        return result.get("ok")

    def screenshot(self, path: str) -> None:
        with self.lock:
            data = self._http("GET", f"/session/{self.session}/screenshot")
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self) -> None:
        if self.session:
            try:
                with self.lock:
                    self._http("DELETE", f"/session/{self.session}", timeout=15)
            except Exception as e:
                log(f"closing the browser session: {e}")
            self.session = None
        kill_group(self.proc)
        self.proc = None
        if self.watchdog is not None:
            self.watchdog.kill()
            self.watchdog.wait()
            self.watchdog = None
        shutil.rmtree(self.tmp, ignore_errors=True)


# --- Firefox ----------------------------------------------------------------------------------

# user.js of the temporary profile. Marionette also applies its own recommended preferences
# (remote.prefs.recommended); these are the ones the peer depends on, written down.
FIREFOX_PREFS: dict[str, Any] = {
    # Fake camera (a test pattern) and microphone (a tone). No device prompt comes: the page's
    # origin is granted camera and microphone before it loads (Firefox.grant_media).
    # media.navigator.permission.disabled is not set: it only skips the prompt, and without a
    # granted permission Firefox gathers on the default route's address only, not on loopback.
    "media.navigator.streams.fake": True,
    # Host candidates on loopback, as real addresses (not mDNS .local names).
    "media.peerconnection.ice.loopback": True,
    "media.peerconnection.ice.obfuscate_host_addresses": False,
    "media.peerconnection.ice.default_address_only": False,
    # Audio "devices" that need no sound card or sound server: with no output device (no
    # PulseAudio, no ALSA card, as on CI machines) Firefox's AudioContext stays "suspended"
    # and the page's AnalyserNode reads silence. cubeb's mock context runs the audio graph on
    # its own clock instead. (force_null_context does not help: the context stays suspended.)
    "media.cubeb.force_mock_context": True,
    # Media plays without a user gesture.
    "media.autoplay.default": 0,
    "media.autoplay.blocking_policy": 0,
    # No first-run pages, default-browser check, telemetry, studies, updates or other traffic.
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.page": 0,
    "browser.startup.homepage": "about:blank",
    "browser.startup.homepage_override.mstone": "ignore",
    "startup.homepage_welcome_url": "about:blank",
    "startup.homepage_welcome_url.additional": "",
    "browser.aboutwelcome.enabled": False,
    "browser.newtabpage.enabled": False,
    "browser.tabs.warnOnClose": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.policy.firstRunURL": "",
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.unified": False,
    "toolkit.telemetry.archive.enabled": False,
    "toolkit.telemetry.server": "",
    "app.update.auto": False,
    "app.update.enabled": False,
    "app.update.checkInstallTime": False,
    "app.update.disabledForTesting": True,
    "app.normandy.enabled": False,
    "app.normandy.api_url": "",
    "app.shield.optoutstudies.enabled": False,
    "extensions.update.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "extensions.blocklist.enabled": False,
    "services.settings.server": "data:,#remote-settings-disabled",
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "browser.safebrowsing.blockedURIs.enabled": False,
    "browser.safebrowsing.provider.mozilla.updateURL": "",
    "browser.search.update": False,
    "browser.topsites.contile.enabled": False,
    "browser.newtabpage.activity-stream.feeds.system.topstories": False,
    "browser.newtabpage.activity-stream.feeds.snippets": False,
    "browser.ping-centre.telemetry": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.dns.disablePrefetch": True,
    "network.prefetch-next": False,
    "network.predictor.enabled": False,
    "network.http.speculative-parallel-limit": 0,
    "network.trr.mode": 5,
    "network.proxy.type": 0,
    "media.gmp-manager.updateEnabled": False,
    "media.gmp-manager.url": "",
    "geo.provider.network.url": "",
    "security.OCSP.enabled": 0,
    "privacy.sanitize.sanitizeOnShutdown": False,
    "toolkit.startup.max_resumed_crashes": -1,
    "browser.sessionstore.resume_from_crash": False,
    "browser.crashReports.unsubmittedCheck.enabled": False,
}


def _user_js(prefs: dict[str, Any]) -> str:
    return "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in prefs.items())


class Firefox(Browser):
    """Headless Firefox ESR driven over Marionette (marionette_driver). Always call close()."""

    name = "firefox"

    def __init__(self, binary: Optional[str] = None, without_prefs: tuple[str, ...] = ()) -> None:
        self.binary = program(binary, ["firefox-esr", "firefox"], "Firefox ESR", "apt-get install -y firefox-esr")
        self.without_prefs = without_prefs
        try:
            from marionette_driver import marionette  # noqa: F401
        except ImportError:
            die_missing(
                "marionette_driver (Python)",
                "./Scripts/bootstrap.sh --tests (it goes in .venv/), then run this with .venv/bin/python",
            )
        self.tmp = tempfile.mkdtemp(prefix="swiftrtc-firefox-")
        self.profile = os.path.join(self.tmp, "profile")
        self.port = free_port()
        self.proc: Optional[subprocess.Popen] = None
        self.watchdog: Optional[subprocess.Popen] = None
        self.client: Any = None
        self.lock = threading.Lock()
        self.browser_log = os.path.join(self.tmp, "firefox.log")

    def start(self) -> None:
        from marionette_driver.marionette import Marionette

        os.makedirs(self.profile)
        prefs = {name: value for name, value in FIREFOX_PREFS.items() if name not in self.without_prefs}
        prefs["marionette.port"] = self.port
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            f.write(_user_js(prefs))
        env = dict(os.environ)
        env.update({
            "MOZ_CRASHREPORTER_DISABLE": "1",
            "MOZ_CRASHREPORTER_SHUTDOWN": "1",
            # Caches and such go to the temporary folder, not the user's home.
            "HOME": self.tmp,
            "XDG_CACHE_HOME": os.path.join(self.tmp, "cache"),
            "XDG_CONFIG_HOME": os.path.join(self.tmp, "config"),
        })
        with open(self.browser_log, "wb") as out:
            # Own process group: close() ends Firefox and its content processes by group id.
            self.proc = subprocess.Popen(
                [self.binary, "-headless", "-marionette", "-no-remote", "-profile", self.profile,
                 # Needed for the chrome context (granting the page camera and microphone).
                 "-remote-allow-system-access"],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                start_new_session=True,
            )
        self.watchdog = start_watchdog("firefox-peer-watchdog", self.proc.pid, self.tmp)
        self.client = Marionette(host="127.0.0.1", port=self.port,
                                 socket_timeout=SCRIPT_TIMEOUT_S + 15, startup_timeout=int(STARTUP_TIMEOUT_S))
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"firefox exited with {self.proc.returncode} (log {self.browser_log}): "
                                   f"{self._log_tail()}")
            try:
                self.client.start_session(timeout=2)
                break
            except Exception as e:  # not listening yet
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Marionette did not answer on 127.0.0.1:{self.port} in time: {e}") from None
                time.sleep(0.2)
        self.client.timeout.script = SCRIPT_TIMEOUT_S
        self.client.timeout.page_load = STARTUP_TIMEOUT_S

    def _log_tail(self) -> str:
        return _tail(self.browser_log)

    def version(self) -> Optional[str]:
        return (self.client.session or {}).get("browserVersion") if self.client else None

    def grant_media(self, url: str) -> None:
        """Grants camera and microphone to the page's origin. Without a granted getUserMedia
        permission Firefox gathers only the default route's address (no loopback candidates)."""
        parts = urllib.parse.urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        with self.lock:
            self.client.set_context(self.client.CONTEXT_CHROME)
            try:
                self.client.execute_script(
                    "const principal = Services.scriptSecurityManager.createContentPrincipalFromOrigin(arguments[0]);"
                    "for (const type of ['camera', 'microphone']) {"
                    "  Services.perms.addFromPrincipal(principal, type, Services.perms.ALLOW_ACTION);"
                    "}"
                    "return ['camera', 'microphone'].map("
                    "  (t) => Services.perms.testExactPermissionFromPrincipal(principal, t));",
                    script_args=(origin,))
            finally:
                self.client.set_context(self.client.CONTEXT_CONTENT)

    def open(self, url: str, ready: str = PEER_READY) -> None:
        self.grant_media(url)
        with self.lock:
            self.client.navigate(url)
        self.wait_page_ready(url, ready)

    def run(self, script: str, *args: Any) -> Any:
        """A synchronous script in the page's own global (not Marionette's sandbox, which sees
        the page's window only through an Xray, without the page's own properties)."""
        from marionette_driver import errors

        with self.lock:
            try:
                return self.client.execute_script(script, script_args=args, sandbox=None)
            except errors.MarionetteException as e:
                raise RuntimeError(f"marionette: {str(e).splitlines()[0]}") from None

    def call(self, method: str, *args: Any) -> Any:
        """Awaits window.peer.<method>(...args) in the page; raises RuntimeError on rejection."""
        from marionette_driver import errors

        with self.lock:
            try:
                result = self.client.execute_async_script(_CALL_SCRIPT, script_args=(method, list(args)), sandbox=None)
            except errors.MarionetteException as e:
                raise RuntimeError(f"page {method}: marionette: {str(e).splitlines()[0]}") from None
        if result is None or "error" in result:
            raise RuntimeError(f"page {method}: {result and result.get('error')}")
        return result.get("ok")

    def screenshot(self, path: str) -> None:
        with self.lock:
            data = self.client.screenshot(format="binary")
        with open(path, "wb") as f:
            f.write(data)

    def close(self) -> None:
        if self.client is not None:
            try:
                with self.lock:
                    if self.client.session is not None:
                        self.client.delete_session()
            except Exception as e:
                log(f"closing the browser session: {e}")
            try:
                if self.client.client is not None:
                    self.client.client.close()
            except Exception:
                pass
            self.client.cleanup_ran = True  # nothing for marionette_driver's __del__ to do
            self.client = None
        kill_group(self.proc)
        self.proc = None
        if self.watchdog is not None:
            self.watchdog.kill()
            self.watchdog.wait()
            self.watchdog = None
        shutil.rmtree(self.tmp, ignore_errors=True)


class PageUser:
    """A page of ours in one browser, driven as a person would (its form fields and buttons),
    and the events it recorded in `window.<app>.events` so far (each printed as an EVENT line
    when first seen)."""

    def __init__(self, browser: Browser, app: str) -> None:
        self.browser = browser
        self.app = app
        self.seen = 0
        self.events: list[dict] = []

    def js(self, script: str, *args: Any) -> Any:
        return self.browser.run(script, *args)

    def fill(self, element: str, value: str) -> None:
        self.js("const e = document.getElementById(arguments[0]); e.value = arguments[1];"
                "e.dispatchEvent(new Event('input', {bubbles: true}));", element, value)

    def click(self, element: str) -> None:
        ok = self.js("const e = document.getElementById(arguments[0]);"
                     "if (!e || e.disabled || e.closest('[hidden]')) return false; e.click(); return true;", element)
        if not ok:
            raise RuntimeError(f"the button #{element} is not there to click")

    def poll(self) -> list[dict]:
        """New page events since the last poll (also printed as EVENT lines)."""
        new = self.js(f"return window.{self.app}.events.slice(arguments[0]);", self.seen) or []
        self.seen += len(new)
        for event in new:
            print("EVENT " + json.dumps(event, sort_keys=True), flush=True)
        self.events += new
        return new

    def wait_for(self, what: str, predicate, timeout: float, stop: threading.Event, failure=None) -> dict:
        """The first event `predicate` takes, polling for `timeout` seconds; an event `failure`
        takes ends the wait with its error."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not stop.is_set():
            self.poll()
            for event in self.events:
                if predicate(event):
                    return event
                if failure and failure(event):
                    raise RuntimeError(f"the page said: {event.get('message')}")
            time.sleep(0.2)
        raise RuntimeError(f"no {what} within {timeout:.0f} s")

    def visible(self, element: str) -> bool:
        return bool(self.js("const e = document.getElementById(arguments[0]); return !!e && !e.closest('[hidden]');", element))

    def snapshot(self) -> dict:
        return self.js(f"return JSON.parse(JSON.stringify(window.{self.app}.snapshot()));")


def make(name: str, binary: Optional[str] = None, firefox_without_prefs: tuple[str, ...] = ()) -> Browser:
    """The browser called `name`; exits with EXIT_MISSING_DEPENDENCY when it is not installed.
    Firefox's profile leaves out the FIREFOX_PREFS named in `firefox_without_prefs`."""
    if name == "chromium":
        return Chromium(binary)
    if name == "firefox":
        return Firefox(binary, firefox_without_prefs)
    raise ValueError(f"unknown browser {name!r} (known: {', '.join(NAMES)})")
