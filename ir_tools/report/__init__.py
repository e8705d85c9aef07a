"""Self-contained HTML reports of ``compare`` and ``check``: the graph, coloured by what was found."""

from .html import check_html, compare_html

__all__ = ["check_html", "compare_html"]
