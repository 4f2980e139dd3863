"""The game page and a picture in a real browser (issue 17): headless Chromium opens them from a
web server on 127.0.0.1, with no console message and no failed request, and its screenshots look
like a card table (right size, many colours, mostly the table's green, cards on it).

Skipped only where no Chromium is installed; .ci/run installs Debian's package.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rebis_pbm import app as referee
from rebis_pbm.present import site

ROOT = Path(__file__).resolve().parent.parent
BROWSER = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome",
                                                "chrome"))), None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium browser installed (Debian: "
                                "apt-get install chromium; .ci/run installs it)")

TABLE_GREEN = (0x1d, 0x5a, 0x3c)   # rebis_pbm.present.svg.TABLE
CARD_FACE = (0xfb, 0xf8, 0xef)     # rebis_pbm.present.svg.CARD_FACE
PAGE_PAPER = (0xf6, 0xf4, 0xee)    # the page's background


class Server:
    """A web server for one folder on 127.0.0.1, keeping every request's path and status."""

    def __init__(self, folder: Path):
        self.requests: list[tuple[str, int]] = []
        log = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_request(self, code="-", size="-"):
                log.append((self.path, int(code)))

            def log_message(self, *args):
                pass

        handler = functools.partial(Handler, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def failed(self) -> list[tuple[str, int]]:
        """Requests answered with an error (304: the browser had it already)."""
        return [(p, c) for p, c in self.requests if c >= 400 and p != "/favicon.ico"]


def browse(url: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    """Chromium, headless, on ``url``; its log (console messages included) on standard error."""
    return subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--disable-extensions", f"--user-data-dir={profile}", "--enable-logging=stderr",
         "--v=0", *args, url], capture_output=True, text=True, timeout=120)


def console(done: subprocess.CompletedProcess) -> list[str]:
    """The page's console messages (Chromium logs them as ``INFO:CONSOLE``); a page without a
    script has none unless something went wrong."""
    return [line for line in done.stderr.splitlines() if ":CONSOLE" in line]


def screenshot(url: str, tmp_path: Path, size: tuple[int, int], server: Server):
    from PIL import Image

    shot = tmp_path / "shot.png"
    shot.unlink(missing_ok=True)
    done = browse(url, tmp_path / "profile", f"--screenshot={shot}",
                  f"--window-size={size[0]},{size[1]}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert console(done) == [] and server.failed() == []
    image = Image.open(shot)
    assert image.format == "PNG" and image.size == size
    return image.convert("RGB")


def share(image, colour) -> float:
    """The fraction of the pixels of exactly ``colour``."""
    counts = {c: n for n, c in image.getcolors(image.width * image.height)}
    return counts.get(colour, 0) / (image.width * image.height)


@pytest.fixture(scope="module")
def example_site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    site.write_site(out, referee.public_game(ROOT / "examples" / "game.yaml"))
    return out


def test_the_game_page_opens_without_errors_and_shows_the_table(example_site, tmp_path):
    with Server(example_site) as server, ThreadPoolExecutor(1) as pool:
        # the page's DOM, read by a second browser while the first takes the screenshot
        dom = pool.submit(browse, f"{server.url}/index.html", tmp_path / "dom", "--dump-dom")
        image = screenshot(f"{server.url}/index.html", tmp_path, (1000, 1400), server)
        dom = dom.result()
        assert dom.returncode == 0 and console(dom) == [] and server.failed() == []
        assert "<h1>Rebis game example</h1>" in dom.stdout
        assert dom.stdout.count('<img class="table"') == 39
        assert {"/index.html", "/table.svg"} <= {p for p, _ in server.requests}
    assert len(image.getcolors(1 << 24)) > 50
    assert share(image, PAGE_PAPER) > 0.1       # the page ...
    assert share(image, TABLE_GREEN) > 0.1      # ... with the table drawn on it
    assert share(image, CARD_FACE) > 0.005      # ... and cards on the table


def test_a_picture_opens_on_its_own_as_a_card_table(example_site, tmp_path):
    with Server(example_site) as server:
        image = screenshot(f"{server.url}/turn-012.svg", tmp_path, (960, 900), server)
        assert ("/turn-012.svg", 200) in server.requests
    assert len(image.getcolors(1 << 24)) > 50
    assert share(image, TABLE_GREEN) > 0.2
    assert share(image, CARD_FACE) > 0.01


def test_the_browser_check_catches_a_broken_page(tmp_path):
    """The test of the test: a console message and a missing picture are both seen."""
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "index.html").write_text('<!DOCTYPE html><html><body><script>console.error("bad")'
                                       '</script><img src="missing.svg"></body></html>')
    with Server(folder) as server:
        done = browse(f"{server.url}/index.html", tmp_path / "profile", "--dump-dom")
        assert done.returncode == 0
        assert any('"bad"' in line for line in console(done))
        assert server.failed() == [("/missing.svg", 404)]
