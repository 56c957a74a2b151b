"""jaxsci's generator: specs/ + templates/ -> generated/ (the ``jaxsci`` package)."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
