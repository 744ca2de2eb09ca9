"""Syntax highlighting of user and generated code, shared by the report and the widget.

Pygments escapes the code it tokenizes, so its output is safe to place in HTML
as is: a kernel or graph whose source contains ``<script>`` shows it as text.
"""

from __future__ import annotations

from functools import lru_cache

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers.c_cpp import CppLexer
from pygments.lexers.python import PythonLexer
from pygments.lexers.special import TextLexer

# Triton kernels are Python source; Inductor's CPU kernels are C++; an extern
# "kernel" is a call into a library, which we show as Python-like text.
_LEXERS: dict[str, type[Lexer]] = {"triton": PythonLexer, "python": PythonLexer, "cpp": CppLexer, "extern": PythonLexer}

# The report embeds one stylesheet for this class; the widget uses inline styles
# because an ipywidgets HTML value cannot rely on a page stylesheet.
CSS_CLASS = "cp-highlight"
LIGHT_STYLE = "default"
DARK_STYLE = "monokai"


@lru_cache(maxsize=32)
def _formatter(inline_styles: bool, linenos: bool, hl_lines: tuple[int, ...]) -> HtmlFormatter:
    return HtmlFormatter(
        cssclass=CSS_CLASS,
        noclasses=inline_styles,
        style=LIGHT_STYLE,
        linenos="inline" if linenos else False,
        hl_lines=list(hl_lines),
        wrapcode=True,
    )


def lexer_for(language: str) -> Lexer:
    return _LEXERS.get(language, TextLexer)()


def highlight_code(
    code: str,
    language: str,
    *,
    inline_styles: bool = False,
    linenos: bool = False,
    hl_lines: tuple[int, ...] = (),
) -> str:
    """``code`` as a highlighted, escaped ``<div class="cp-highlight"><pre>…`` block; ``hl_lines`` are 1-based."""
    return highlight(code, lexer_for(language), _formatter(inline_styles, linenos, tuple(sorted(set(hl_lines)))))


def stylesheet() -> str:
    """CSS for class-based highlights: a light style, and a dark one when the reader prefers dark."""
    light = HtmlFormatter(style=LIGHT_STYLE).get_style_defs(f".{CSS_CLASS}")
    dark = HtmlFormatter(style=DARK_STYLE).get_style_defs(f".{CSS_CLASS}")
    return f"{light}\n@media (prefers-color-scheme: dark) {{\n{dark}\n}}\n"
