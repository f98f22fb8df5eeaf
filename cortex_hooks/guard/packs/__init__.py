"""The packs shipped with the package: their data files (*.jsonl) and the code that reads them."""
