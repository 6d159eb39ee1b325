"""Go's time.ParseDuration, for the durations users write in drasim's own fields and annotations
(`30m`, `1h30m`, `1.5h`, `90s`): a sign, then one or more decimal numbers each with a unit
(ns, us, µs, ms, s, m, h); "0" alone is zero. k8s/Go: src/time/format.go ParseDuration."""
from __future__ import annotations

import re

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_go_duration(text: str) -> float:
    """Seconds; raises ValueError with Go's words (`time: invalid duration "x"`)."""
    if not isinstance(text, str):
        raise ValueError(f"time: invalid duration {text!r}")
    s = text.strip()
    sign = -1.0 if s.startswith("-") else 1.0
    body = s[1:] if s[:1] in "+-" else s
    if body == "0":
        return 0.0
    if not body:
        raise ValueError(f'time: invalid duration "{text}"')
    total, pos = 0.0, 0
    for m in _PART.finditer(body):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos != len(body):
        if re.fullmatch(r"[\d.]+", body):
            raise ValueError(f'time: missing unit in duration "{text}"')
        raise ValueError(f'time: invalid duration "{text}"')
    return sign * total
