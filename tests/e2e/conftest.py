"""Fixtures of the end-to-end tests that load pages in a browser: headless Chromium through Playwright."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="module")
def browser():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail("headless Chromium is needed: install Debian's chromium package (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=exe,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh page that records console errors, page errors and any request leaving file://."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.problems = []
    pg.on(
        "console",
        lambda m: pg.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    pg.on("pageerror", lambda e: pg.problems.append(f"page error: {e}"))
    pg.on(
        "request",
        lambda r: (
            None if r.url.startswith(("file:", "data:")) else pg.problems.append(f"fetch {r.url}")
        ),
    )
    yield pg
    context.close()
