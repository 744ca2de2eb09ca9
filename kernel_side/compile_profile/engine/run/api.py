"""A profile's two entry points: ``profile(fn, *args)`` for a function (``compile_profile.profile``) and
``profile_cell`` for a notebook cell (the magic), each made a ``Target`` (``cell.target``) and run through the
stage table (``stages.run_session``) in a job's lock-step (``distributed.job``).

``profile_cell`` commits the cell as one plain run leaves it: the namespace holds the kept values of the eager
run ``ProfileResult.eager_result`` names; where the first eager run raised, what the cell had assigned before the
error.  What the options may be, and what each refusal says, is ``session.options``'.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

from ...profile_run import ProfileRun
from ..cell.function import CellFunction, cell_to_function
from ..cell.input_feed import InputFeed
from ..cell.locator import CellLocator
from ..cell.target import Target
from ..common.device import run_device_type
from ..common.errors import OptionError
from ..compiler.backend import register
from ..distributed import job as distributed
from ..session.options import ProfileOptions
from .stages import ProfileResult, new_session, run_session


def profile(fn: Callable[..., Any], *args: Any, inputs: Any = None, **options: Any) -> ProfileRun:
    """Profile ``fn(*args)`` eagerly and under ``torch.compile``; or, with ``inputs``, ``fn`` over a sequence of
    inputs (a list or iterable of argument tuples, or a callable returning one; an item that is no tuple is
    the one argument of a function taking one): each input run in order, the recompiles each caused, and each
    input signature timed apart (``engine.timing.input_sequence``).

    Options are ``ProfileOptions``' fields (``mode`` for ``modes``): backend, modes, dynamic, fullgraph,
    options, sweep, warmup, repeat, budget, label, check_correctness, quick (``--quick``), progress.  What the
    magic refuses is refused here with the same message (``OptionError``).
    """
    feed: InputFeed | None = None
    if inputs is not None:
        if args:
            raise OptionError(
                "profile() takes fn's arguments either positionally (one input) or as inputs= (a sequence of "
                "argument tuples), not both"
            )
    if "mode" in options:
        options["modes"] = options.pop("mode")
    if options.get("keep") is not None:
        raise TypeError(
            "keep= applies to notebook cells (%%compile_profile --keep NAMES); a function's results are what it returns"
        )
    unknown = [name for name in options if name not in ProfileOptions.__dataclass_fields__]
    if unknown:  # Hugging Face models take keywords: profile(m, input_ids=ids) read as an unknown option
        options_list = ", ".join(["mode", *(f for f in ProfileOptions.__dataclass_fields__ if f != "modes")])
        raise TypeError(
            f"profile() got {', '.join(map(repr, unknown))}, which is no profile option: profile(fn, *args, "
            f"**options) passes its positional arguments to fn and takes keywords as its own options "
            f"({options_list}). To call fn with keyword arguments, profile a function that does: "
            f"profile(lambda: fn({unknown[0]}=...))"
        )
    opts = ProfileOptions(**options)
    if inputs is not None:
        feed = InputFeed.for_function(fn, inputs, limit=opts.max_inputs)
    code = getattr(fn, "__code__", None)
    try:
        source_lines, first = inspect.getsourcelines(fn)
        source = "".join(source_lines)
    except (OSError, TypeError):
        source, first = "", 1
    locator = CellLocator(
        filename=code.co_filename if code else "",
        lines=source.splitlines(),
        line_offset=-(first - 1),
    )
    if feed is not None:
        now = feed.args
        target = Target(
            eager_call=lambda: fn(*now()),
            function=fn,
            call_compiled=lambda compiled: compiled(*now()),
            locator=locator,
            source=source,
            inputs=feed.items[0],
            globals=getattr(fn, "__globals__", {}),
            arguments=lambda: list(now()),
            call_with_arguments=lambda arguments: fn(*arguments),
            feed=feed,
        )
    else:
        target = Target(
            eager_call=lambda: fn(*args),
            function=fn,
            call_compiled=lambda compiled: compiled(*args),
            locator=locator,
            source=source,
            inputs=args,
            globals=getattr(fn, "__globals__", {}),
            arguments=lambda: list(args),
            call_with_arguments=lambda arguments: fn(*arguments),
        )
    result = profile_target(target, opts)
    if result.stdout:
        sys.stdout.write(result.stdout)
    return result.run


def profile_cell(
    body: str,
    user_ns: dict[str, Any],
    opts: ProfileOptions,
    *,
    source: str | None = None,
    line_offset: int = 0,
) -> tuple[ProfileResult, CellFunction]:
    """Profile a notebook cell and commit it: the namespace ends as after one plain run of the cell.

    That is the kept values of the eager run ``ProfileResult.eager_result`` names (its temporaries
    unbound), or, when the first eager run raised, what the cell had assigned before the error, as a
    failing plain cell leaves it.  The
    ``CellFunction`` comes back for what a frontend shows (its filename, whether it has a value).
    """
    feed = InputFeed.for_cell(opts.inputs, user_ns, limit=opts.max_inputs) if opts.inputs else None
    if feed is not None:  # the cell reads the first input by its name from the start, as a loop's first pass
        feed.bind(user_ns)
    cell = cell_to_function(body, user_ns, source=source, line_offset=line_offset, keep=opts.keep)
    locator = CellLocator(filename=cell.filename, lines=cell.source.splitlines())

    def before_each() -> None:
        cell.restore_namespace()
        if feed is not None:
            feed.bind(user_ns)

    target = Target(
        eager_call=cell,
        function=cell.fn,
        call_compiled=cell.call_with,
        before_each=before_each,
        locator=locator,
        source=cell.source,
        outputs=cell.outputs,
        namespace=user_ns,
        globals=user_ns,
        arguments=cell.arguments,
        call_with_arguments=lambda arguments: cell.call_with(lambda *_: cell.fn(*arguments)),
        cell=cell,
        feed=feed,
    )
    try:
        result = profile_target(target, opts)
    except BaseException:
        cell.restore_locals()
        raise
    finally:
        if feed is not None:  # the name holds the input the kept run read: the first
            feed.select(0)
            feed.bind(user_ns)
    cell.restore_locals(after=result.kept_run)
    if result.has_eager_result:
        cell.commit(result.eager_result)
    elif result.eager_error is not None:
        partial = cell.values_at_failure(result.eager_error)
        if partial is not None:
            cell.commit(partial)
    return result, cell


def profile_target(target: Target, opts: ProfileOptions) -> ProfileResult:
    register()
    with distributed.job() as rank:
        session = new_session(target, opts, opts.variant_specs())
        session.run.distributed = rank
        return run_session(session)


__all__ = [
    "OptionError",
    "ProfileOptions",
    "ProfileResult",
    "Target",
    "profile",
    "profile_cell",
    "profile_target",
    "run_device_type",
]
