"""The Voyage AI backend (docs/guide/embeddings.md): `voyage-3.5-lite` over HTTP with the standard library.

One JSON POST to {base}/v1/embeddings (VOYAGE_BASE_URL overrides the base) with the key of
VOYAGE_API_KEY; at most 128 texts a request; the results carry their input's `index`. Any
failure (network, HTTP status, a malformed answer) is one VoyageError: callers fall back to
keyword recall or leave the vector missing for `embed` to fill later.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request

from cortex_hooks.embeddings.model import VoyageError
from cortex_hooks.embeddings.vector_math import VOYAGE, normalized, pack

MODEL_ID = VOYAGE
DEFAULT_BASE = "https://api.voyageai.com"
BATCH = 128
# Seconds a request may take: a recall or a write waits at most TIMEOUT before it goes on without
# the vector (keyword recall; the item stays queued); `embed`, which is there to wait, PATIENT.
TIMEOUT = 3.0
PATIENT = 30.0


class VoyageClient:
    model_id = MODEL_ID

    def __init__(self, api_key: str, base: str | None = None, timeout: float = TIMEOUT) -> None:
        self._key = api_key
        self._url = (base or os.environ.get("VOYAGE_BASE_URL") or DEFAULT_BASE).rstrip("/") + "/v1/embeddings"
        self.timeout = timeout

    def embed(self, texts: list[str], *, query: bool = False) -> list[bytes]:
        """Each text's vector as a float32 BLOB, normalised."""
        blobs: list[bytes] = []
        for start in range(0, len(texts), BATCH):
            blobs.extend(self._request(texts[start : start + BATCH], "query" if query else "document"))
        return blobs

    def _request(self, texts: list[str], input_type: str) -> list[bytes]:
        body = json.dumps({"input": texts, "model": MODEL_ID, "input_type": input_type}).encode()
        request = urllib.request.Request(
            self._url,
            data=body,
            method="POST",
            headers={"Authorization": f"Bearer {self._key}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                answer = json.loads(response.read())
            items = sorted(answer["data"], key=lambda item: int(item["index"]))
            vectors = [[float(value) for value in item["embedding"]] for item in items]
        except (OSError, ValueError, KeyError, TypeError) as error:  # URLError and HTTPError are OSErrors
            raise VoyageError(f"Voyage AI embeddings failed: {error}") from None
        if len(vectors) != len(texts) or len({len(vector) for vector in vectors}) > 1:
            raise VoyageError("Voyage AI embeddings failed: not one vector per text")
        return [pack(normalized(vector)) for vector in vectors]
