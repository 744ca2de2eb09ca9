"""``CellLocator``: where in the cell a traced location is.

Contract: given a (filename, line[, code]) that a trace names (a Dynamo node's stack, a graph
break's traceback, a printed graph's ``# File:`` comment), return the 1-based cell line it is, or
``None`` when it is not in the profiled code.  Nothing here reads trace events.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from dataclasses import dataclass

from ...profile_run import CELL_FILENAME_PREFIX

# the comment a printed FX graph puts above each node: ``# File: path:line in fn, code: text``
GRAPH_FILE_COMMENT = re.compile(r"# File: (.+?):(\d+) in [^,\n]*, code: ([^\n]*)")


@dataclass
class CellLocator:
    """Maps (filename, line) pairs to 1-based cell lines."""

    filename: str
    lines: list[str]
    line_offset: int = 0  # added to code line numbers to get cell lines

    def cell_line(self, filename: str, line: int, code: str | None = None) -> int | None:
        # A cache hit carries the locations of the compile that filled the cache: another cell
        # with the same code, this file before lines above the function moved, or the same file
        # in another checkout. Where the frame names its code line, that line's text decides.
        code = code.strip() if code else ""
        if filename == self.filename:
            line += self.line_offset
            if not code or self.code_line(line) == code:
                return line if self._in_source(line) else None
            return self._nearest_line_with(code, line) or (line if self._in_source(line) else None)
        if code and filename.startswith(CELL_FILENAME_PREFIX):
            return self._nearest_line_with(code, line)
        if code and _same_file_name(filename, self.filename):
            return self._nearest_line_with(code, line + self.line_offset)
        return None

    def _in_source(self, line: int) -> bool:
        """A profiled function's file holds other code too (its callers): only its own lines count."""
        return not self.lines or 1 <= line <= len(self.lines)

    def _nearest_line_with(self, code: str, line: int) -> int | None:
        candidates = [i + 1 for i, text in enumerate(self.lines) if text.strip() == code]
        return min(candidates, key=lambda n: abs(n - line)) if candidates else None

    def code_line(self, cell_line: int | None) -> str:
        if cell_line is None or not 1 <= cell_line <= len(self.lines):
            return ""
        return self.lines[cell_line - 1].strip()

    def first_line_reading(self, name: str) -> int | None:
        """The first cell line that names ``name`` as a variable (not as an attribute, a magic, a comment or inside a
        string: ``EVIL = "<img src=x …>"`` had placed a recompile on ``x`` there), by Python's tokens; where the
        cell does not tokenize (IPython syntax), by a word search outside comments."""
        source = "\n".join("" if text.lstrip().startswith("%") else text for text in self.lines) + "\n"
        try:
            previous = None
            for token in tokenize.generate_tokens(io.StringIO(source).readline):
                if token.type == tokenize.NAME and token.string == name and previous != ".":
                    return token.start[0]
                if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                    previous = token.string
            return None
        except (tokenize.TokenError, SyntaxError):
            pass
        word = re.compile(rf"(?<![\w.]){re.escape(name)}\b")
        for i, text in enumerate(self.lines):
            code = text.split("#", 1)[0]
            if not text.lstrip().startswith("%") and word.search(code):
                return i + 1
        return None

    def innermost_cell_line(self, stack: list[tuple]) -> int | None:
        """The cell line a stack passes through last (the call in the cell that led to it)."""
        for filename, line, *code in reversed(stack):
            cell_line = self.cell_line(filename, line, code[0] if code else None)
            if cell_line is not None:
                return cell_line
        return None

    def cell_lines_in(self, graph_code: str) -> list[int]:
        """Cell lines named by a printed FX graph's ``# File: path:line in fn, code: ...`` comments."""
        found = {self.cell_line(f, int(n), code) for f, n, code in GRAPH_FILE_COMMENT.findall(graph_code)}
        return sorted(x for x in found if x is not None)


def _same_file_name(a: str, b: str) -> bool:
    return os.path.basename(a) == os.path.basename(b) and not b.startswith("<")
