"""``%%compile_profile`` / ``%compile_profile``: a thin IPython adapter over the engine.

It parses arguments, hands the cell to the engine (which profiles it and commits its
assignments to the namespace), shows progress, displays the resulting ``ProfileRun`` (its
MIME bundle), stores it, and binds it with ``-o``.  All measuring happens in
``compile_profile.engine``.  Its flags, their help and its usage line come from the engine's
option table (``engine/session/options.py``), and ``ProfileOptions`` refuses bad values for the magic
and the Python API alike; only what is text on the magic's line (quotes, ``KEY=VALUE``,
``a,b``, ``-o``'s name) is read here.

What goes to stderr while the profile runs, once the cell's first eager run is over (Dynamo's and
Inductor's log lines and warnings, the profiler's C++ lines such as "Profiler record function ... will
be ignored", the cell's own stderr as its compiled calls print it again), is kept out of the cell's
output and shown folded in the card, with its count (``_StderrLogs``); the first eager run's output,
stdout and stderr, shows as a plain run of the cell shows it.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display

from .engine.session.options import OptionError, ProfileOptions, all_flags, flags_taking_values, usage_line
from .profile_run import Note
from .render.mime import mime_bundle

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _key_value(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise UsageError(f"--options takes KEY=VALUE, got {text!r}")
    value: Any = raw
    lowered = raw.lower()
    if lowered in ("true", "false"):
        value = lowered == "true"
    else:
        for convert in (int, float):
            try:
                value = convert(raw)
                break
            except ValueError:
                pass
    return key.strip(), value


def _option_arguments(func):
    """The magic's arguments, from the engine's option table (argparse keeps the table's order)."""
    func = argument("statement", nargs="*", help="(line magic) the expression to profile")(func)
    for flag in reversed(all_flags()):
        func = argument(*flag.names, help=flag.help, **flag.argparse)(func)
    return magic_arguments()(func)


@magics_class
class CompileProfileMagics(Magics):
    @_option_arguments
    @line_cell_magic
    def compile_profile(self, line: str, cell: str | None = None):
        """Profile a cell (or one expression) eagerly and under torch.compile.

        %%compile_profile [options]        profile the cell body
        %compile_profile [options] EXPR    profile one expression
        """
        if cell is None:
            option_text, statement = split_line_magic(line)
            args = self._parse(option_text)
            body, source, line_offset = statement, statement, 0
            if not statement.strip():
                raise UsageError("%compile_profile needs an expression to profile, e.g. %compile_profile model(x)")
        else:
            args = self._parse(line)
            if args.statement:
                raise UsageError(
                    f"unexpected text after the options: {' '.join(args.statement)!r} "
                    "(%%compile_profile profiles the cell body; put code on the following lines)"
                )
            body, source, line_offset = cell, f"%%compile_profile {line}".rstrip() + "\n" + cell, 1
        return self._profile(args, body, source, line_offset, cell)

    def _parse(self, text: str):
        try:
            args = parse_argstring(self.compile_profile, text)
        except UsageError as exc:
            raise UsageError(f"{exc}\n\n{_usage()}") from None
        except (ValueError, SystemExit) as exc:  # shlex errors such as an unclosed quote
            raise UsageError(f"could not read the options ({exc})\n\n{_usage()}") from None
        if args.output is not None and not _IDENTIFIER.match(args.output):
            raise UsageError(f"-o needs a Python identifier, got {args.output!r}")
        engine_fields = ProfileOptions.__dataclass_fields__
        values = {flag.dest: getattr(args, flag.dest) for flag in all_flags() if flag.dest in engine_fields}
        values.update(
            modes=[_unquote(mode) for mode in args.modes] if args.modes else None,
            options=dict(_key_value(_unquote(o)) for o in (args.options or [])) or None,
            keep=_kept_names(args.keep),
            label=_unquote(args.label),
            backend=_unquote(args.backend),
            inputs=_unquote(args.inputs) if args.inputs else None,
        )
        try:
            args.profile_options = ProfileOptions(**values)
        except OptionError as exc:
            raise UsageError(f"{exc}\n\n{_usage()}") from None
        return args

    def _profile(self, args, body: str, source: str, line_offset: int, cell: str | None = None):
        from .engine.cell.function import CellSyntaxError, EmptyCell, UnknownKeptName, cell_filename
        from .engine.run.api import profile_cell

        shell = self.shell
        if shell is None:  # IPython gives the magics it registers their shell; only one made by hand has none
            raise UsageError("%compile_profile runs in an IPython shell")
        progress = _ProgressLine()
        logs = _StderrLogs()
        opts = args.profile_options
        opts.notebook = _notebook_path(shell.user_ns)
        opts.progress = logs.after_first_eager_run(progress)
        opts.quiet_display = lambda: _display_only(shell, progress)
        opts.source_cells = lambda filename: _cell_number(shell, filename)
        if cell is not None:  # a helper this cell defines is placed in it when a later profile breaks there
            _PROFILED_CELLS[cell_filename(source)] = _this_cells_number(shell)
        user_ns = shell.user_ns
        try:
            try:
                with logs.capturing():
                    result, cell_fn = profile_cell(body, user_ns, opts, source=source, line_offset=line_offset)
            except BaseException:
                logs.replay()  # nothing shows them folded: they go where they were written
                raise
        except CellSyntaxError as exc:
            report = _syntax_message(exc, source)
            raise CellFailed(report, summary=report.splitlines()[0]) from None
        except UnknownKeptName as exc:
            raise UsageError(f"--keep {exc}") from None
        except OptionError as exc:  # --inputs naming nothing iterable in the namespace
            raise UsageError(str(exc)) from None
        except EmptyCell as exc:
            raise UsageError(
                f"{exc}: write the code to profile below the %%compile_profile line\n\n{_usage()}"
            ) from None
        finally:
            progress.clear()
        run = result.run
        if result.stdout:
            sys.stdout.write(result.stdout)
        if args.output:
            user_ns[args.output] = run
        store_interrupted = args.store and not _store(run)
        if args.widget:
            logs.replay()
            display(run.show())
        else:
            shown, count = logs.folded()
            display(mime_bundle(run, logs=shown, log_count=count), raw=True)
        if result.interrupted is not None or store_interrupted:
            raise KeyboardInterrupt
        eager_error = next((e for e in run.errors if e.stage == "eager" and e.traceback), None)
        if eager_error is not None:
            # The cell itself failed: stop "Run All" as a normal failing cell would.
            raise CellFailed(_user_traceback(eager_error.traceback, cell_fn.filename))
        if cell_fn.returns_value and result.has_eager_result and not body.rstrip().endswith(";"):
            # IPython shows it as Out[n], as for a plain cell; it cannot see a ';' inside a cell magic's body
            return result.eager_result[0]
        return None


class CellFailed(Exception):
    """The profiled cell could not run; IPython shows the cell's own traceback, not the magic's."""

    def __init__(self, report: str, summary: str | None = None):
        lines = report.strip().splitlines()
        super().__init__(summary or (lines[-1] if lines else "the cell failed"))
        self.report = report

    def _render_traceback_(self) -> list[str]:
        return self.report.splitlines()


def _kept_names(values: list[str] | None) -> list[str] | None:
    """``--keep a,b --keep c`` -> ``[a, b, c]``; ``--keep ''`` keeps nothing (``ProfileOptions`` checks the names)."""
    if values is None:
        return None
    return [name.strip() for value in values for name in _unquote(value).split(",") if name.strip()]


def _unquote(text: str) -> str:
    # IPython's magic_arguments splits like a shell but keeps the quotes
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def split_line_magic(line: str) -> tuple[str, str]:
    """Split ``%compile_profile [options] EXPR`` into the options and the expression.

    ``--`` ends the options explicitly; otherwise they end at the first token
    that is neither an option nor an option's value.
    """
    if " -- " in f" {line} ":
        head, _, tail = f" {line} ".partition(" -- ")
        return head.strip(), tail.strip()
    takes_value = flags_taking_values()
    pos = 0
    expect_value = False
    for match in re.finditer(r"\s*(\"[^\"]*\"|'[^']*'|\S+)", line):
        token = match.group(1)
        if expect_value:
            expect_value = False
        elif token.startswith("-") and not token.startswith("-("):
            expect_value = token.split("=", 1)[0] in takes_value and "=" not in token
        else:
            return line[:pos].strip(), line[match.start(1) :].strip()
        pos = match.end()
    return line.strip(), ""


@contextlib.contextmanager
def _display_only(shell, progress: _ProgressLine):
    """Drop the display output of the cell's repeated runs; the progress line still updates."""
    publisher = shell.display_pub
    publish = publisher.publish
    own = publisher.__dict__.get("publish")  # someone else's instance-level override, kept

    def publish_progress_only(*args, **kwargs):
        if progress.publishing:
            publish(*args, **kwargs)

    publisher.publish = publish_progress_only
    try:
        yield
    finally:
        if own is None:
            del publisher.publish  # back to the class's method
        else:
            publisher.publish = own


PROGRESS_MIME_TYPE = "application/vnd.compile-profile.progress+json"
_STAGE_PREFIX = re.compile(r"stage (\d+) of (\d+): ")


def split_stage(message: str) -> tuple[int | None, int | None, str]:
    """``"stage 3 of 7: warming up"`` -> ``(3, 7, "warming up")``; a message without the count keeps it ``None``."""
    match = _STAGE_PREFIX.match(message)
    if match is None:
        return None, None, message
    return int(match.group(1)), int(match.group(2)), message[match.end() :]


class _ProgressLine:
    """One output line, updated in place, saying what the profiler is doing.

    It is sent as ``text/plain`` and as ``PROGRESS_MIME_TYPE``: JupyterLab's renderer (``ext/src/progress.ts``)
    keeps the clock moving between updates (a C++ compile sends none for seconds); other frontends show the
    text, whose clock moves at each update."""

    publishing = False  # True while it sends its own display message

    def __init__(self) -> None:
        self._handle = None
        self._last = 0.0
        self._last_message = ""
        self._started = time.perf_counter()
        self._started_at_ms = time.time() * 1000.0

    def __call__(self, message: str) -> None:
        now = time.perf_counter()
        stage, stages, text = split_stage(message)
        last_text = split_stage(self._last_message)[2]
        if message == self._last_message or (now - self._last < 0.25 and text.split(":")[0] == last_text.split(":")[0]):
            return  # a new stage shows at once; updates within a stage at most 4 times a second
        self._last, self._last_message = now, message
        elapsed = now - self._started
        bundle = {
            "text/plain": f"compile_profile [{elapsed:5.1f} s] {message}",
            # elapsed_s: the renderer counts on from it with the browser's clock, which may differ from the kernel's
            PROGRESS_MIME_TYPE: {
                "started_at": round(self._started_at_ms),
                "elapsed_s": round(elapsed, 3),
                "message": text,
                "stage": stage,
                "stages": stages,
            },
        }
        with self._own_message():
            if self._handle is None:
                self._handle = display(bundle, raw=True, display_id=True)
            else:
                self._handle.update(bundle, raw=True)

    def clear(self) -> None:
        if self._handle is not None:
            with self._own_message():
                self._handle.update({"text/plain": ""}, raw=True)
            self._handle = None

    @contextlib.contextmanager
    def _own_message(self):
        self.publishing = True
        try:
            yield
        finally:
            self.publishing = False


class _StderrLogs:
    """What the profile writes to stderr after the cell's first eager run, as lines, kept for the card.

    The kernel's stderr stream is the one place these arrive: Python writes to ``sys.stderr``, logging's
    handlers (torch's log handlers hold the stream they were made with), and ipykernel's echo of the
    process's file descriptor 2 (C++ lines) all call its ``write``.  So its ``write`` is replaced on the
    instance while the profile runs, and put back after; a stream that takes no attribute (a terminal's
    ``TextIOWrapper``) is replaced as ``sys.stderr`` instead, which catches Python's writes only.
    """

    MAX_LINES = 2000  # a runaway log keeps its count, not every line

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.dropped = 0
        self.active = False  # off during the first eager run: its stderr is the cell's own, shown as it is
        self._partial = ""

    def after_first_eager_run(self, progress):
        """The progress callback, which also starts the capture at the first stage after the first eager run."""

        def report(message: str) -> None:
            if not split_stage(message)[2].startswith("eager:"):
                self.active = True
            progress(message)

        return report

    def _take(self, text: str) -> None:
        text = self._partial + text
        *complete, self._partial = text.split("\n")
        for line in complete:
            if not line.strip():
                continue
            if len(self.lines) < self.MAX_LINES:
                self.lines.append(line.rstrip())
            else:
                self.dropped += 1

    @contextlib.contextmanager
    def capturing(self):
        stream = sys.stderr
        write = stream.write
        own = getattr(stream, "__dict__", {}).get("write")  # someone else's instance-level override, kept

        def captured(text: str) -> int:
            if self.active and isinstance(text, str):
                self._take(text)
                return len(text)
            return write(text)

        try:
            stream.write = captured
            patched = True
        except (AttributeError, TypeError):
            patched = False
        try:
            if patched:
                yield self
            else:
                with contextlib.redirect_stderr(_WriteOnly(captured, stream)):
                    yield self
        finally:
            if patched:
                if own is None:
                    del stream.write
                else:
                    stream.write = own
            self.active = False
            if self._partial.strip():
                self._take("\n")

    def folded(self) -> tuple[list[str], int]:
        """The lines as the card lists them, each once with how often it came (the timed runs repeat theirs:
        a logging handler made before the profile writes every run's line), and how many lines came."""
        counts: dict[str, int] = {}
        for line in self.lines:
            counts[line] = counts.get(line, 0) + 1
        shown = [line if n == 1 else f"{line}  (×{n})" for line, n in counts.items()]
        if self.dropped:
            shown.append(f"... and {self.dropped} more lines")
        return shown, len(self.lines) + self.dropped

    def replay(self) -> None:
        """Write the kept lines to stderr, where they were going: for a profile that shows no card."""
        if self.lines:
            sys.stderr.write("\n".join(self.lines) + "\n")
            self.lines = []


class _WriteOnly:
    """A stand-in for a stream whose ``write`` cannot be replaced: writes go to ``write``, the rest to it."""

    def __init__(self, write, stream) -> None:
        self.write = write
        self._stream = stream

    def flush(self) -> None:  # what redirect_stderr's target must have; __getattr__ would give the same
        self._stream.flush()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _store(run) -> bool:
    """Save the run; False when Ctrl-C stopped the save (the caller shows the run, then re-raises)."""
    from .store import RunStore, StoreError

    try:
        RunStore().put(run)
    except (StoreError, OSError) as exc:
        _not_saved(run, str(exc))
    except KeyboardInterrupt:
        # The put is one transaction, rolled back whole; the profile itself must still be shown.
        _not_saved(run, "interrupted while saving; nothing was written")
        return False
    return True


def _not_saved(run, why: str) -> None:
    run.notes.append(Note("not_saved", values={"why": why}))
    print(f"compile_profile: the run was not saved to the run store: {why}", file=sys.stderr)


# The filename of each cell profiled in this kernel -> its number (In[n]), the latest where a cell's text recurs
_PROFILED_CELLS: dict[str, int] = {}
_IN_N = re.compile(r"In\[(\d+)\]")


def _cell_number(shell: Any, filename: str) -> int | None:
    """The number of the notebook cell whose code ``filename`` holds: a cell profiled here, or one IPython compiled
    (``/tmp/ipykernel_…/2868138915.py`` in a kernel, ``<ipython-input-3-…>`` in a terminal), as IPython's own
    tracebacks name it (``Cell In[3]``); None for any other file."""
    if filename in _PROFILED_CELLS:
        return _PROFILED_CELLS[filename]
    format_code_name = getattr(getattr(shell, "compile", None), "format_code_name", None)
    named = format_code_name(filename) if callable(format_code_name) else None
    found = _IN_N.fullmatch(named[1]) if isinstance(named, tuple) and len(named) == 2 else None
    return int(found.group(1)) if found else None


def _this_cells_number(shell: Any) -> int:
    """The number of the cell running now: the highest IPython has cached code under (it caches a cell before it
    runs it; ``execution_count`` is that number in IPython 8 and the next one in IPython 9)."""
    numbers = getattr(getattr(shell, "compile", None), "_filename_map", None)
    if isinstance(numbers, dict) and numbers:
        return max(int(n) for n in numbers.values())
    return int(shell.execution_count)


def _notebook_path(user_ns: dict) -> str:
    return (
        os.environ.get("COMPILE_PROFILE_NOTEBOOK")
        or str(user_ns.get("__session__") or "")
        or os.environ.get("JPY_SESSION_NAME", "")
    )


def _syntax_message(exc: SyntaxError, source: str) -> str:
    lines = source.splitlines()
    lineno = exc.lineno or 0
    out = [f"compile_profile: cannot profile this cell: {exc.msg} (cell line {lineno})"]
    if 1 <= lineno <= len(lines):
        out.append(f"    {lines[lineno - 1]}")
        if exc.offset:
            out.append("    " + " " * (exc.offset - 1) + "^")
    return "\n".join(out)


def _user_traceback(text: str, filename: str) -> str:
    """Keep the traceback from the cell's frame on: the profiler's own frames are noise."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if filename in line:
            return "Traceback (most recent call last):\n" + "\n".join(lines[i:])
    return text


def _usage() -> str:
    return usage_line("%%compile_profile")


def load_ipython_extension(ipython) -> None:
    from .engine.compiler.backend import register

    register()
    ipython.register_magics(CompileProfileMagics)


def unload_ipython_extension(ipython) -> None:
    ipython.magics_manager.magics["line"].pop("compile_profile", None)
    ipython.magics_manager.magics["cell"].pop("compile_profile", None)
