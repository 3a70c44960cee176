"""Numbers people type (command arguments) or buttons carry: ASCII digits only."""

from __future__ import annotations

import re


def ascii_number(text: str, digits: int = 9) -> int | None:
    """``text`` as a number when it is 1 to ``digits`` ASCII digits, else ``None``.

    Not ``str.isdigit``: it takes "²", which ``int`` then refuses, and "٣", which ``int`` reads as 3.
    """
    return int(text) if re.fullmatch(f"[0-9]{{1,{digits}}}", text) else None
