"""Reports people look at: self-contained HTML pages with tables and plotly plots.

    html.Page            headings, tables, figures; render() -> one HTML document
    pages.*_page(...)    the page of each command's --html FILE
"""
from drasim.report import html, pages

__all__ = ["html", "pages"]
