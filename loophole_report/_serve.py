"""Serving a built viewer on 127.0.0.1 only (``harness view --serve``)."""

from __future__ import annotations

import functools
from pathlib import Path


def serve(site: Path, port: int) -> None:
    """Serve the site on 127.0.0.1 until interrupted."""
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(site))
    with ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(
            f"serving {site} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)",
            flush=True,
        )
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
