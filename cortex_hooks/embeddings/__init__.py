"""Semantic recall (docs/guide/embeddings.md): the embedding backends, vectors and the hybrid relevance.

Nothing here imports onnxruntime, tokenizers or numpy at import time: the local model's stack
is loaded by `local` only when a text is really embedded with it.
"""
