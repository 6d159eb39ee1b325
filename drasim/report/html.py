"""One self-contained HTML page: headings, tables and plots, no network needed to view it.

Plots are plotly figures (plotly.py writes the figure JSON; plotly.js, about 4.8 MB, is
embedded once per page) — chosen over Vega-Lite/altair because plotly.py embeds its JS with no
further package, draws heat maps and grouped bars directly, and renders SVG that a test can
find. Everything a user wrote (names, messages) is HTML-escaped.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em; color: #1b1b1b; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.error { color: #b00020; font-weight: 600; } .warning { color: #a15c00; } .info { color: #555; }
.note { color: #555; font-size: 0.9em; }
"""


@dataclass
class Page:
    title: str
    parts: list[str] = field(default_factory=list)
    _plotly_included: bool = False

    def heading(self, text: str) -> None:
        self.parts.append(f"<h2>{html.escape(text)}</h2>")

    def note(self, text: str) -> None:
        self.parts.append(f'<p class="note">{html.escape(text)}</p>')

    def table(self, columns: list[str], rows: list[list], classes: list[str | None] | None = None) -> None:
        """A table; numbers are right-aligned; `classes` gives each row a CSS class (severity)."""
        head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
        body = []
        for i, row in enumerate(rows):
            css = f' class="{classes[i]}"' if classes and classes[i] else ""
            cells = "".join(
                f'<td class="num">{v:g}</td>' if isinstance(v, (int, float)) and not isinstance(v, bool)
                else f"<td>{html.escape(str(v)).replace(chr(10), '<br>')}</td>" for v in row)
            body.append(f"<tr{css}>{cells}</tr>")
        self.parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")

    def figure(self, fig) -> None:
        """A plotly figure; plotly.js goes into the page with the first one."""
        self.parts.append(fig.to_html(full_html=False, include_plotlyjs=not self._plotly_included,
                                      config={"displaylogo": False, "responsive": True}))
        self._plotly_included = True

    def render(self) -> str:
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(self.title)}</title><style>{_STYLE}</style></head><body>"
                f"<h1>{html.escape(self.title)}</h1>{''.join(self.parts)}</body></html>\n")


def write(page: Page, path: str) -> None:
    from drasim.errors import InputError

    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(page.render())
    except OSError as e:
        raise InputError(f"--html {path}: cannot write: {e.strerror or e}") from None
