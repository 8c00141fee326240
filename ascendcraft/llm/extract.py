"""Find the kernel in a model's reply: a fenced ```dsl block, any fenced block, or bare text."""
from __future__ import annotations

import re
import textwrap

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w.+-]*)")
_KERNEL = re.compile(r"^[ \t]*kernel[ \t]+\w+[ \t]*\(", re.M)
_DSL_TAGS = ("dsl", "tile", "ascendcraft")


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language tag, body) of each fenced block; an unclosed last block (a cut-off reply) runs to the end."""
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, tag = m.group(1), m.group(2).lower()
        body, i = [], i + 1
        while i < len(lines):
            s = lines[i].strip()
            if s.startswith(fence[0] * len(fence)) and not s.strip(fence[0]):
                break
            body.append(lines[i])
            i += 1
        out.append((tag, "\n".join(body)))
        i += 1
    return out


def extract_dsl(reply: str) -> str | None:
    """The kernel text in ``reply``, or None when it holds none.

    Among fenced blocks holding a ``kernel NAME(`` line, a ``dsl``-tagged one wins, and the
    last one wins among equals (models often show a draft before the final kernel). Without
    any fence, the text from the first ``kernel`` line on is taken as the kernel.
    """
    blocks = [(tag, body) for tag, body in fenced_blocks(reply) if _KERNEL.search(body)]
    if blocks:
        tagged = [body for tag, body in blocks if tag in _DSL_TAGS]
        body = (tagged or [body for _, body in blocks])[-1]
    elif "```" in reply or "~~~" in reply:
        return None  # fenced code, but no kernel in it
    else:
        m = _KERNEL.search(reply)
        if m is None:
            return None
        start = reply.rfind("\n", 0, m.start()) + 1
        body = reply[start:]
    body = textwrap.dedent(body).strip("\n")
    return body + "\n" if body.strip() else None
