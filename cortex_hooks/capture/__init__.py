"""Capture (SPEC §10): proposals learned from session transcripts, pure parts and their shell."""
