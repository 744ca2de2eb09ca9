"""What the hostile-input tests share (test_hostile_suite.py, test_hostile_trace.py): a JSON value nested past any
recursion limit, the labels no table can show, the one-line error a refused input must end in, and the elements a
page makes."""

from html.parser import HTMLParser

DEEP = "[" * 100_000 + "]" * 100_000  # past any recursion limit: json.loads raises RecursionError on it

# Labels that are no one line of plain text of at most 200 characters (user_input.text_problem), each with the words
# its refusal must hold: a line break split a list's row, ESC set the terminal's title and cleared it, U+202E turned
# the text after it around
HOSTILE_LABELS = [
    ("two\nlines", ["--label 'two\\nlines'", "control character U+000A", "a label is one line"]),
    ("\x1b]0;title\x07\x1b[2J", ["--label '\\x1b]0;title\\x07\\x1b[2J'", "control character U+001B"]),
    ("\u202eevil", ["--label '\\u202eevil'", "control character U+202E"]),
    ("x" * 5000, ["5,000 characters long, at most 200"]),
]


def _one_line_error(code: int, err: str, *words: str) -> None:
    """Exit status 2 and one line on stderr, no traceback, holding each of ``words``."""
    assert code == 2, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, err


class Elements(HTMLParser):
    """The elements and attributes a page makes, as a browser's parser would read them."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list]] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.found.append((tag, attrs))
