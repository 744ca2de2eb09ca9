"""The engine's notes in words: one entry per ``NoteKind`` in ``NOTE_WORDS``, the only place each is worded.

The engine records a note as a kind and its values (``profile_run.Note``); every view shows the sentence
``note_text`` makes of it (``run_notes`` for a run's list, the digest's ``notes``).  A note of a kind this
release does not know (a run written by a newer one) reads as its kind and values rather than failing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..profile_run import Bisection, ConfigSetting, ErrorInfo, Note, NoteKind, ProfileRun, Variant
from .format import CELL, format_bytes, format_s, line_text, lines_text


def _str(note: Note, key: str) -> str:
    value = note.values.get(key, "")
    return value if isinstance(value, str) else str(value)


def _int(note: Note, key: str) -> int:
    value = note.values.get(key, 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _float(note: Note, key: str) -> float:
    value = note.values.get(key, 0.0)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _strs(note: Note, key: str) -> list[str]:
    value = note.values.get(key, [])
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _already_compiled(n: Note) -> str:
    return (
        f"the cell calls {', '.join(_strs(n, 'names'))}, already wrapped by torch.compile: the eager variant runs "
        "compiled code, so the speedup compares compiled with compiled; profile the uncompiled module or function "
        "(an OptimizedModule's _orig_mod) to see what compiling buys"
    )


def _recompile_limit(n: Note) -> str:
    return (
        f"{n.variant}: compile {_str(n, 'compile_id')} hit torch._dynamo.config.{_str(n, 'limit')}: Dynamo runs "
        "this frame eagerly from now on (only a call that an earlier compile's guards accept runs compiled)"
        + ("; the timed samples after it ran eager code" if n.values.get("during_timing") else "")
    )


def _state_not_compared(n: Note) -> str:
    return (
        f"the {_int(n, 'tensors')} tensor(s) the cell changes in place ({format_bytes(_int(n, 'bytes'))}) were "
        "not compared between eager and compiled runs, only what it returns: comparing copies that size "
        "is more memory than a check should take"
    )


def _state_put_back(n: Note) -> str:
    parts = [f"{_int(n, 'tensors')} tensor(s)"]
    if _int(n, "grads"):
        parts.append(f"the .grad of {_int(n, 'grads')}")
    if _int(n, "containers"):
        parts.append(f"{_int(n, 'containers')} list(s), dict(s), object(s) or name(s)")
    where = "on the device" if _str(n, "kept_in") == "device" else "in host memory"
    text = (
        f"what the cell changes in place ({', '.join(parts)}) was put back as its first run left it, as after one "
        f"plain run; the namespace holds that run's values (a {format_bytes(_int(n, 'bytes'))} copy, kept {where} "
        "during the profile)"
    )
    missed = _strs(n, "not_restored") if "not_restored" in n.values else []
    if missed:
        text += (
            f"; later runs also changed {', '.join(missed)}, which its first run did not change, so the copy did not "
            "hold them and they stay as the last run left them"
        )
    return text


def _state_advanced(n: Note) -> str:
    runs = _int(n, "runs")
    head = (
        f"what the cell changes in place (weights, optimizer state, buffers) holds {runs:,} of its runs, not one "
        "as after a plain run"
    )
    reason = _str(n, "reason")
    if reason == "disabled":
        return f"{head} (--no-restore)"
    if reason == "other_rank":
        return f"{head}: another rank could not copy its own, so no rank put its state back"
    fix = "; re-run the cells that make the model and optimizer before going on"
    if reason == "restore_failed":
        return f"{head}: putting back the copy of what its first run changed failed ({_str(n, 'error')}){fix}"
    if reason == "failed":
        return f"{head}: --restore's {format_bytes(_int(n, 'bytes'))} copy of it failed ({_str(n, 'error')}){fix}"
    where = []
    if "device_free" in n.values:
        device = {"cuda": "GPU", "": "device"}.get(_str(n, "device"), _str(n, "device"))
        where.append(f"{format_bytes(_int(n, 'device_free'))} free on the {device}")
    if "host_free" in n.values:
        where.append(f"{format_bytes(_int(n, 'host_free'))} of host memory free")
    free = f" ({' and '.join(where)})" if where else ""
    return (
        f"{head}: a copy of what its first run changed needs {format_bytes(_int(n, 'bytes'))}, more than half of "
        f"the memory free to keep it in{free}; --restore copies it anyway{fix}"
    )


# Notes the card says among its warnings (``summary.warnings``), and so not again among the notes.
WARNING_NOTES: frozenset[str] = frozenset({"state_advanced"})


def warning_notes(run: ProfileRun) -> list[str]:
    """The notes that are warnings: the in-place state left advanced by the runs, other than by --no-restore."""
    return [note_text(n) for n in run.notes if n.kind in WARNING_NOTES and n.values.get("reason") != "disabled"]


_FEATURES = {
    "provenance": (
        "no Inductor provenance tracking, so kernels are placed on cell lines by the frames of their graph's "
        "nodes, and a kernel fused from several lines may show all of its graph's lines (torch 2.10 and later "
        "map each kernel to its own nodes)"
    ),
    "caller_lines": (
        "no reliable caller lines, so graphs Dynamo starts inside a library after a graph break there, and "
        "breaks inside them, show no cell line (torch 2.8 and later place them)"
    ),
}


def _torch_lacks(n: Note) -> str:
    missing = [_FEATURES.get(f, f) for f in _strs(n, "features")]
    return f"torch {_str(n, 'torch')} has " + "; and ".join(missing)


def _no_cuda_graph(n: Note) -> str:
    skips = _strs(n, "skips")
    return f"{n.variant}: no kernel ran inside a CUDA graph: Inductor did not use CUDA graphs for this variant" + (
        f" ({'; '.join(skips)})" if skips else ""
    )


def _reference_failed(n: Note) -> str:
    """Why no reference run could be made, from what each attempt met."""
    float64, mixed, float32 = _str(n, "float64"), _str(n, "mixed"), _str(n, "float32")
    if not float64:
        unavailable = _str(n, "unavailable")
        return f"no float64 reference: {unavailable}" + (
            f"; the code failed on float32 copies ({float32})" if float32 else ""
        )
    text = f"no float64 reference: the code failed on float64 copies ({float64})"
    if mixed and mixed != float64:
        text += f", and with the ops that failed there run in float32 ({mixed})"
    if float32:
        text += f", and on float32 copies ({float32})"
    return text


def _other_rank_failed(n: Note) -> str:
    ranks = ", ".join(_strs(n, "ranks"))
    scope = _str(n, "scope")
    if scope == "variant_not_timed":
        return "compiled here but failed on another rank; not timed"
    if scope == "variant":
        return (
            "this variant failed on another rank (its run has the error); it is not timed on any rank, so that no "
            "rank waits in a collective for it"
        )
    what = "the first eager call" if scope == "eager" else "this stage"
    return (
        f"{what} failed on rank {ranks}; every rank stops there, so that none waits in a collective for it (that "
        "rank's run has the error)"
    )


NOTE_WORDS: dict[NoteKind, Callable[[Note], str]] = {
    "text": lambda n: _str(n, "text"),
    "already_compiled": _already_compiled,
    "random_draws_differ": lambda n: (
        "the cell's random draws differ between runs that start from the same generator state (how many it draws "
        "depends on state its runs change): the values it leaves come from its last run, its printed output from "
        "its first; the random generators are left as after its first run"
    ),
    "optimizer_changed_by_compile": lambda n: (
        "compiling changed the optimizer, as torch.compile does in any notebook (Dynamo moves its step counters "
        "to the device, and may set capturable=True): eager calls ran with the optimizer as the eager run left "
        "it, compiled calls as Dynamo made it, and it is left as after an eager run"
    ),
    "nothing_compiled": lambda n: (
        "nothing was compiled: the cell ran no torch operations that Dynamo could capture, so compiled and eager "
        "run the same code"
    ),
    "recompiled_during_timing": lambda n: (
        f"{n.variant}: Dynamo compiled again during the timed runs ({_int(n, 'graphs')} graph(s)); those samples "
        "include compile time"
    ),
    "recompile_limit": _recompile_limit,
    "warmup_kept_compiling": lambda n: (
        f"{n.variant}: its warm-up calls kept compiling (recompiles), so it had {_int(n, 'extra_calls')} more "
        f"before timing, until {_int(n, 'settled_calls')} calls in a row compiled nothing"
    ),
    "dispatcher_left_on": lambda n: (
        "the bisection's failed compiles left torch's Python dispatcher switched on for this thread (a PyTorch bug, "
        "seen with torch 2.11's AOTAutograd under inference_mode): eager calls in this kernel may now fail with "
        "'Hit PythonDispatcher dispatch key but PythonDispatcherTLS was not set'; restart the kernel before going on"
    ),
    "state_restored": lambda n: (
        f"the cell changes {_int(n, 'tensors')} tensor(s) in place (e.g. an optimizer step); they were restored "
        "before each correctness run"
    ),
    "state_not_compared": _state_not_compared,
    "state_put_back": _state_put_back,
    "state_advanced": _state_advanced,
    "torch_lacks": _torch_lacks,
    "no_post_grad_on_cache_hit": lambda n: (
        f"torch {_str(n, 'torch')} does not log the post-grad graph it loads from Inductor's cache, so cache hits "
        "show no post-grad graph; torch 2.8 and later do"
    ),
    "not_saved": lambda n: f"not saved to the run store: {_str(n, 'why')}",
    "no_cuda_graph": _no_cuda_graph,
    "no_graph_region": lambda n: "the profiler saw no compiled-graph region, so no kernel could be timed",
    "nothing_to_compare": lambda n: "no tensors or numbers to compare",
    "random_ops": lambda n: (
        f"the cell draws random numbers ({', '.join(sorted(_strs(n, 'ops')))}), which compiled code generates "
        "with its own RNG; set torch._inductor.config.fallback_random = True to compare them"
    ),
    "reference_distributed": lambda n: (
        "no float64 reference: a step of a distributed job (its collectives would run on float64 copies of the "
        "model on every rank)"
    ),
    "reference_changed_state": lambda n: (
        "no float64 reference: the float64 run changed the notebook's own tensors (the code reaches them through "
        "an object that was not copied)"
    ),
    "reference_failed": _reference_failed,
    "output_differs": lambda n: f"differs (eager {_str(n, 'eager')}, compiled {_str(n, 'compiled')})",
    "output_shape": lambda n: f"compiled gave {_str(n, 'compiled')}, eager {_str(n, 'eager')}",
    "output_not_equal": lambda n: "not equal",
    "output_non_finite": lambda n: "non-finite values (NaN/inf) where eager has finite ones, or the reverse",
    "output_beyond_spread": lambda n: (
        f"RMSE against eager {_float(n, 'rmse'):.3g}, more than {_float(n, 'multiplier'):g}x the "
        f"{_float(n, 'spread'):.3g} between two eager runs"
    ),
    "output_beyond_tolerance": lambda n: (
        f"beyond {_str(n, 'dtype')} tolerance (rtol {_float(n, 'rtol'):g}, atol {_float(n, 'atol'):g})"
    ),
    "output_beyond_reference": lambda n: (
        f"RMSE against the reference {_float(n, 'rmse'):.3g}, more than {_float(n, 'multiplier'):g}x eager's "
        f"{_float(n, 'eager_rmse'):.3g}"
    ),
    "eager_changed_value": lambda n: (
        "a second eager run did not give it"
        if _str(n, "then") == "nothing"
        else f"eager gave {_str(n, 'first')}, then {_str(n, 'then')}"
    ),
    "eager_changed_values": lambda n: (
        f"eager gave other values on a second run ({_int(n, 'differ')} of {_int(n, 'of')} differ)"
    ),
    "eager_moved": lambda n: (
        f"eager moved by {_float(n, 'rmse'):.3g} RMSE from one run to the next, {_float(n, 'ratio'):.2g}x its RMS"
    ),
    "other_rank_failed": lambda n: _other_rank_failed(n),
    "interrupted": lambda n: "interrupted by the user",
    "reference_quick": lambda n: "no float64 reference (--quick): compared with eager only",
    "reference_quick_needed": lambda n: (
        f"--quick runs the reference only where outputs leave eager's dtype tolerance, as "
        f"{', '.join(_strs(n, 'outputs'))} did"
    ),
    "reference_random": lambda n: (
        f"compiled code draws eager's random numbers ({', '.join(sorted(_strs(n, 'ops')))}: "
        "torch._inductor.config.fallback_random is on), so compared with eager only: a float64 run draws others"
    ),
    "quick_profile": lambda n: (
        "a --quick profile: no kernel profiler pass (no per-kernel or per-line times, no breakdown), no "
        "float64 reference where outputs are within eager's dtype tolerance; profile without --quick for them"
    ),
}


def note_text(note: Note) -> str:
    """The note in words; a kind from a newer release reads as its kind and values."""
    words = NOTE_WORDS.get(note.kind)
    if words is None:
        values = ", ".join(f"{k}={v}" for k, v in note.values.items())
        return f"{note.variant + ': ' if note.variant else ''}{note.kind}" + (f" ({values})" if values else "")
    return words(note)


def run_notes(run: ProfileRun) -> list[str]:
    """The run's notes in words, in the order the engine recorded them; not those the warnings say
    (``warning_notes``)."""
    return [note_text(n) for n in run.notes if not (n.kind in WARNING_NOTES and n.values.get("reason") != "disabled")]


def memory_unmeasured_text(run: ProfileRun) -> str:
    """Why a run has no peak memory, once for all its variants: it is measured on CUDA devices only, and a run
    read from a TORCH_TRACE log measured nothing."""
    if run.untimed:
        return "not in a TORCH_TRACE (nothing was measured)"
    return "not measured on CPU (peak memory is read from the CUDA allocator)" if run.device.type != "cuda" else ""


def error_message(e: ErrorInfo) -> str:
    """What went wrong, as every view says it: the exception's own message, or the fact the profile stated
    (``ErrorInfo.why``: another rank failed, an interrupt)."""
    return note_text(e.why) if e.why is not None else e.message


def variant_error(v: Variant) -> str | None:
    """Why a variant has no figures, as every view says it: its exception in one line, or the stated fact."""
    return note_text(v.error_note) if v.error_note is not None else v.error


# Where a compile failed (``ErrorInfo.compile_stage``, engine/failure/compile_failure.py), as a user reads it.
COMPILE_STAGE_WORDS: dict[str, str] = {
    "dynamo": "while Dynamo traced the code",
    "aot_autograd": "in AOTAutograd (tracing the ATen graphs, forward and backward)",
    "inductor_lowering": "in Inductor's lowering (the graph's ATen ops into Inductor's IR)",
    "codegen": "in Inductor's code generation",
    "kernel_compile": "compiling Inductor's kernels (C++ or Triton)",
}


# Settings that choose caching, logging, threads or debug output and change no compiled code: not a possible cause
# of a failed compile or a wrong result (the bisection itself, and most tests, turn Inductor's caches off)
CODE_NEUTRAL_SETTINGS = frozenset(
    {
        "torch.compiler.config.force_disable_caches",
        "torch.compiler.config.cache_key_tag",
        "torch.compiler.config.verbose",
        "torch.compiler.config.log_file_name",
        "torch._inductor.config.fx_graph_cache",
        "torch._inductor.config.fx_graph_remote_cache",
        "torch._inductor.config.autotune_local_cache",
        "torch._inductor.config.autotune_remote_cache",
        "torch._inductor.config.bundled_autotune_remote_cache",
        "torch._inductor.config.compile_threads",
        "torch._inductor.config.worker_start_method",
        "torch._inductor.config.verbose_progress",
        "torch._dynamo.config.verbose",
        "torch._dynamo.config.log_file_name",
        "torch._dynamo.config.log_compilation_metrics",
        "torch._functorch.config.enable_autograd_cache",
        "torch._functorch.config.enable_remote_autograd_cache",
    }
)
CODE_NEUTRAL_PREFIXES = ("torch._inductor.config.trace.",)  # debug output (and the profile's provenance tracking)
# The values PyTorch's CompilerBisector sets to make compiled code behave as eager does (its ConfigChange subsystems,
# torch/_inductor/compiler_bisector.py): a setting at one of them is a remedy, not a suspect
EAGER_LIKE_VALUES = {
    "torch._inductor.config.fallback_random": "True",
    "torch._inductor.config.emulate_precision_casts": "True",
    "torch._inductor.config.layout_optimization": "False",
    "torch._inductor.config.comprehensive_padding": "False",
}
SETTINGS_SHOWN = 4


def suspect_settings(settings: Sequence[ConfigSetting] | None) -> list[ConfigSetting]:
    """The settings not at their defaults that may change what is compiled: all but ``CODE_NEUTRAL_SETTINGS`` and
    those at an ``EAGER_LIKE_VALUES`` value."""
    return [
        s
        for s in settings or []
        if s.name not in CODE_NEUTRAL_SETTINGS
        and not s.name.startswith(CODE_NEUTRAL_PREFIXES)
        and EAGER_LIKE_VALUES.get(s.name) != s.value
    ]


def settings_text(suspects: Sequence[ConfigSetting]) -> str:
    """``torch._inductor.config.cpp.cxx = (None, '/x') (default (None, 'g++'))``, at most ``SETTINGS_SHOWN``."""
    shown = "; ".join(f"{s.name} = {s.value} (default {s.default})" for s in suspects[:SETTINGS_SHOWN])
    more = len(suspects) - SETTINGS_SHOWN
    return shown + (f"; and {more} more" if more > 0 else "")


def settings_clause(settings: Sequence[ConfigSetting] | None) -> str:
    """``; not at its default: … , which may be the cause``: what a failure's words add where a setting that may
    change the compiled code is not at its default; "" where none is."""
    suspects = suspect_settings(settings)
    if not suspects:
        return ""
    many = len(suspects) > 1
    return f"; not at {'their defaults' if many else 'its default'}: {settings_text(suspects)}, which may be the cause"


def setup_text(settings: Sequence[ConfigSetting] | None, device: str = "cpu") -> str:
    """What to fix where no kernel compiles: the settings not at their defaults that may cause it, else the toolchain
    Inductor compiles with on ``device``."""
    suspects = suspect_settings(settings)
    if suspects:
        many = len(suspects) > 1
        return (
            f"{settings_text(suspects)}, not at {'their defaults' if many else 'its default'}: set "
            f"{'them' if many else 'it'} back, or make what {'they name' if many else 'it names'} work"
        )
    if device == "cuda":
        return "Triton and the CUDA toolkit it compiles with (ptxas) do not work here: install or repair them"
    return (
        "the C++ compiler Inductor calls (torch._inductor.config.cpp.cxx at its default, or $CXX) and the headers it "
        "compiles with do not work here: install or repair them"
    )


def compile_failure_text(
    e: ErrorInfo,
    code_line: str = "",
    of: str = CELL,
    settings: Sequence[ConfigSetting] | None = None,
    device: str = "cpu",
) -> str:
    """A compile error as the card says it: the stage, the cell line (``code_line`` its code), or the lines of the
    graph it was compiling, and the library frame the failing operation came from, the exception's own message,
    and what the aot_eager try, the toolchain and the ``settings`` not at their defaults say of whose it is; ""
    for an error that is no compile failure the engine read."""
    if e.stage != "compile" or not (e.compile_stage or e.aot_eager or e.frame_file):
        return ""
    where = COMPILE_STAGE_WORDS.get(e.compile_stage, "")
    text = f"compile failed{f' ({e.variant})' if e.variant else ''}" + (f" {where}" if where else "")
    if e.graph_lines:
        code = f" ({code_line})" if code_line and len(e.graph_lines) == 1 else ""
        text += f", for the graph of {lines_text(e.graph_lines, of)}{code}"
    elif e.line is not None:
        text += f" at {line_text(e.line, of)}" + (f" ({code_line})" if code_line else "")
    if e.frame_file:
        frame = e.frame_file.replace("\\", "/")
        for marker in ("site-packages/", "dist-packages/"):
            frame = frame.rsplit(marker, 1)[-1]
        text += f", inside {frame}:{e.frame_line}" + (f" ({e.frame_code})" if e.frame_code else "")
    text += f": {error_message(e)}"
    if e.toolchain == "broken":  # no kernel compiles: neither the code nor a lowering is to blame
        tried = f" (a one-op kernel failed too: {e.toolchain_error})" if e.toolchain_error else ""
        text += (
            f"; no kernel compiles here{tried}, so this is the setup, not your code nor Inductor's handling of it: "
            + setup_text(settings, device)
        )
        if e.aot_eager == "runs":
            text += "; torch.compile(..., backend='aot_eager') runs the code meanwhile"
        return text
    if e.aot_eager == "runs":
        text += (
            "; the same code compiles and runs under backend='aot_eager' (Dynamo and AOTAutograd without "
            "Inductor), so the failure is Inductor's, not your code's: torch.compile(..., backend='aot_eager') "
            "runs it meanwhile"
        )
        if settings is None:  # a run that did not record its settings
            text += ", and unless a setting of yours caused it, it is worth a PyTorch issue"
        elif suspect_settings(settings):  # never a PyTorch issue while a setting may be the cause
            defaults = "the defaults" if len(suspect_settings(settings)) > 1 else "the default"
            text += settings_clause(settings) + f": try the code with {defaults} first"
        else:
            text += (
                ", and with every Inductor, Dynamo and functorch setting that changes compiled code at its default, "
                "it is worth a PyTorch issue"
            )
    elif e.aot_eager == "fails":
        text += (
            f"; it fails under backend='aot_eager' too ({e.aot_eager_error}): the code at that line, Dynamo or "
            "AOTAutograd, not Inductor"
        ) + settings_clause(settings)
    return text


# CompilerBisector's subsystems (torch/_inductor/compiler_bisector.py), as a user reads them
BISECT_SUBSYSTEM_WORDS: dict[str, str] = {
    "lowerings": "Inductor's lowering of ATen ops",
    "post_grad_passes": "Inductor's post-grad graph passes",
    "pre_grad_passes": "Inductor's pre-grad graph passes",
    "joint_graph_passes": "Inductor's joint-graph passes",
    "cudagraphs": "CUDA graphs",
    "decomposition": "AOTAutograd's decompositions",
    "pre_grad_graph": "the pre-grad graph",
}


def bisect_offer(run: ProfileRun) -> str:
    """What re-running the cell with ``--bisect`` would find, where it would find something: a compile failure an
    Inductor variant's backend may own (not one where no kernel compiles: the setup), or compiled results that
    differ from eager; "" where the run was bisected already, is a job's or a trace's, or has neither (the card's
    and the detail's Bisect button)."""
    if run.bisection is not None or run.distributed is not None or run.imported_trace is not None:
        return ""
    inductor = {v.name for v in run.compiled_variants if v.backend == "inductor"}
    if any(e.backend_may_own and e.variant in inductor and e.toolchain != "broken" for e in run.errors):
        return (
            "Run the cell again with --bisect: PyTorch's CompilerBisector finds the backend and the Inductor "
            "subsystem, pass or lowering where its compile starts failing"
        )
    compared = run.speedup_variant  # the variant the correctness check ran
    c = run.correctness
    if c is not None and c.ok is False and not c.not_replayed and compared is not None and compared.name in inductor:
        return (
            "Run the cell again with --bisect: PyTorch's CompilerBisector finds the backend and the Inductor "
            "subsystem, pass or lowering where its results start to differ from eager, by this card's rule"
        )
    return ""


def bisection_text(b: Bisection, settings: Sequence[ConfigSetting] | None = None, device: str = "cpu") -> str:
    """What ``--bisect`` found, as every view says it: where a failed compile starts failing, or where results
    start to differ from eager by the card's correctness rule, with the ``settings`` not at their defaults that
    may be the cause; or that no kernel compiles here, and what to fix."""
    took = f"{b.runs} run{'' if b.runs == 1 else 's'}, {format_s(b.seconds)}"
    if b.outcome == "setup":
        tried = f" ({took})" if b.runs else ""
        return (
            f"not bisected{tried}: no kernel compiles here, so no backend, pass or lowering is to blame (the bisector "
            f"would only find the first lowering that makes one), only the setup: {setup_text(settings, device)}"
        )
    return _bisection_found_text(b, took) + (settings_clause(settings) if b.outcome in ("found", "backend") else "")


def _bisection_found_text(b: Bisection, took: str) -> str:
    fails, failing, runs = (
        ("differs", "differing", "matches eager") if b.kind == "mismatch" else ("fails", "failing", "runs")
    )
    if b.outcome == "found":
        if b.switch:
            return f"bisected ({took}): it {fails} in {b.backend} with its default for {b.switch.split(' = ')[0]}; it {runs} with {b.switch}"
        what = BISECT_SUBSYSTEM_WORDS.get(b.subsystem, b.subsystem)
        # the bisector counts applications from 0 (``bisect_number``: how many went before the one that breaks it)
        at = f", at application #{b.bisect_number + 1}" if b.bisect_number is not None else ""
        info = f" ({b.debug_info.strip()})" if b.debug_info.strip() else ""
        return f"bisected ({took}): it starts {failing} in the {b.backend} backend, in {what}{at}{info}; with that one left out it {runs}"
    if b.outcome == "backend":
        if b.backend == "eager":  # no compiler ran: what Dynamo captured already does it
            return f"bisected ({took}): it {fails} under the eager backend already: Dynamo's capture of the code, not a compiler backend"
        return f"bisected ({took}): it {fails} in the {b.backend} backend, in no single subsystem the bisector can turn off"
    if b.outcome == "not_reproduced":
        if b.kind == "mismatch":
            return f"bisected ({took}): every backend matched eager, so the difference did not come back under the bisector"
        return f"bisected ({took}): every backend ran, so the failure did not come back under the bisector"
    if b.outcome == "timed_out":
        return f"bisection stopped after {format_s(b.seconds)} ({b.runs} runs) without an answer"
    return f"bisection failed: {b.error}"
