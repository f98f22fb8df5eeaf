"""`python tests/pack_sources`: write every pack's data file from its source."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pack_sources import build

folder = Path(__file__).resolve().parents[2] / "cortex_hooks" / "guard" / "packs"
for name, text in build().items():
    (folder / f"{name}.jsonl").write_text(text, encoding="utf-8")
