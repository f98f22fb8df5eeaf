"""Capture (docs/guide/capture.md): proposals learned from session transcripts, pure parts and their shell."""
