"""A local stand-in for Voyage AI's embeddings endpoint (docs/guide/embeddings.md), on 127.0.0.1.

Vectors are a bag of "concepts": each word counts toward the concept it belongs to (CONCEPTS,
so that differently worded texts about one thing are near) or toward a hash bucket of its own.
The server records every request (headers and JSON body), answers its results in reverse order
(the client must sort them by `index`), and fails with HTTP 500 while `failing` is set.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIMENSIONS = 32
CONCEPTS = {
    word: concept
    for concept, words in {
        0: "pnpm npm yarn package packages manager dependencies install installs",
        1: "port ports listen listens server localhost",
        2: "deploy deploys deployment release region staging production",
        3: "test tests pytest suite flaky",
    }.items()
    for word in words.split()
}


def vector(text: str) -> list[float]:
    values = [0.0] * DIMENSIONS
    for word in re.findall(r"\w+", text.casefold()):
        concept = CONCEPTS.get(word)
        if concept is None:
            concept = 4 + int(hashlib.sha256(word.encode()).hexdigest(), 16) % (DIMENSIONS - 4)
        values[concept] += 1.0
    return values


class MockVoyage:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.failing = False
        self.url = ""


@contextmanager
def serving() -> Iterator[MockVoyage]:
    state = MockVoyage()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            if state.failing or self.path != "/v1/embeddings":
                self.send_response(500)
                self.end_headers()
                return
            data = [
                {"object": "embedding", "embedding": vector(text), "index": index}
                for index, text in enumerate(body["input"])
            ]
            answer = json.dumps({"object": "list", "data": data[::-1], "model": body["model"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
