"""One self-contained HTML file for a distributed job: ``Job.to_html()``, ``compile-profile job ID --html`` and
the server's job report.

It lays out ``digest.job.JobDigest`` as a table of ranks (eager and compiled medians, each rank's
correctness sentence; a column no rank has a value in is left out); a divergent rank's row has the class
``cp-divergent`` and its reasons in its last cell; a rank's error (``cp-error``) and notes (``cp-note``) follow its
row across the table, each saying its rank; the notes on the columns (peak
memory, DDP's bucket order, ``cp-table-note``) follow the table, then the divergences, missing ranks included.  It
holds no script and fetches nothing, and every value from a run (ids, hosts, reasons quoting the
user's code, counts and ranks too) goes through ``html.escape``.  ``job_html`` is the fragment alone, for a notebook's output.
"""

from __future__ import annotations

from html import escape

from ..digest.format import one_line
from ..digest.job import JobDigest, JobRow

_CSS = """
:root { color-scheme: light dark; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1560px;
       padding: 16px; }
h1 { font-size: 1.3em; margin: 0; }
h2 { font-size: 1.1em; }
.meta { opacity: .7; }
"""

# Inline in the fragment, so it reads the same in a notebook, where the page's <style> is absent.
_TABLE = 'style="border-collapse:collapse;margin:4px 0 8px 0;font-size:90%"'
_CELL = "text-align:left;padding:2px 10px 2px 0;border-bottom:1px solid rgba(127,127,127,.25);vertical-align:top"
_DIVERGENT = "background:rgba(230,120,0,.16)"

COLUMNS = [
    "rank",
    "run",
    "host",
    "status",
    "eager",
    "compiled",
    "speedup",
    "interval",
    "compile",
    "graphs",
    "DDP buckets",
    "breaks",
    "recompiles",
    "cache hit/miss",
    "peak memory",
    "collectives",
    "correctness",
    "cell runs",
    "diverges",
]


def _value(value: object) -> str:
    return escape(str(value))


def _cells(row: JobRow) -> list[str]:
    reasons = "".join(f"<li>{escape(r)}</li>" for r in row.reasons)
    return [
        _value(row.rank),
        f"<code>{escape(row.run_id)}</code>",
        escape(row.host or "—"),
        escape(row.status),
        escape(row.eager_text),
        escape(row.compiled_text),
        escape(row.speedup_text),
        escape(row.interval_text or "—"),
        escape(row.compile_text),
        _value(row.graphs),
        _value(row.ddp_buckets),
        _value(row.breaks),
        _value(row.recompiles),
        _value(f"{row.cache_hits}/{row.cache_misses}"),
        escape(row.peak_memory_text),
        escape(row.collective_text),
        escape(row.correctness_text),
        _value(row.cell_runs),
        f'<ul style="margin:0;padding-left:1.2em;min-width:16em">{reasons}</ul>' if reasons else "",
    ]


_EMPTY = ("", "—")


def shown_columns(rows: list[JobRow]) -> list[int]:
    """The columns a job's table shows: those with a value on some rank (a job read from TORCH_TRACE logs has no
    timings, memory or correctness: seven columns of "—" pushed "diverges" past a 1600-pixel window)."""
    cells = [_cells(row) for row in rows]
    return [i for i in range(len(COLUMNS)) if i == 0 or not cells or any(c[i] not in _EMPTY for c in cells)]


def _row(row: JobRow, shown: list[int]) -> str:
    cells = _cells(row)
    cls = ' class="cp-divergent"' if row.divergent else ""
    style = f' style="{_DIVERGENT}"' if row.divergent else ""
    below = [("cp-error", "error", row.error_text)] if row.error_text else []
    below += [("cp-note", "note", note) for note in row.notes]
    # under the rank's row, across the whole table, saying whose it is: no column of its own without a header
    extra = "".join(
        f'<tr class="{c}"{style}><td style="{_CELL}" colspan="{len(shown)}">'
        f"rank {_value(row.rank)} {what}: {escape(text)}</td></tr>"
        for c, what, text in below
    )
    return f"<tr{cls}{style}>" + "".join(f'<td style="{_CELL}">{cells[i]}</td>' for i in shown) + "</tr>" + extra


def job_html(digest: JobDigest) -> str:
    """The job as an HTML fragment: headline, compile spread, a row per rank, the divergences."""
    shown = shown_columns(digest.rows)
    head = "".join(f'<th style="{_CELL}">{escape(COLUMNS[i])}</th>' for i in shown)
    body = "".join(_row(row, shown) for row in digest.rows)
    missing = "".join(
        f'<tr class="cp-divergent cp-missing" style="{_DIVERGENT}"><td style="{_CELL}">{_value(r)}</td>'
        f'<td style="{_CELL}" colspan="{len(shown) - 1}">no run</td></tr>'
        for r in digest.missing_ranks
    )
    divergences = "".join(
        f'<li class="cp-divergence" data-rank="{_value(d.rank)}" data-what="{escape(d.what)}">'
        f"rank {_value(d.rank)}: {escape(d.text)}</li>"
        for d in digest.divergences
    )
    return (
        '<div class="compile-profile-job" style="line-height:1.4">'
        f'<div class="cp-headline" style="font-weight:600;font-size:110%">{escape(digest.headline)}</div>'
        f'<div class="cp-compile-spread" style="opacity:.7">{escape(digest.compile_spread.text)}</div>'
        f'<div style="overflow-x:auto"><table {_TABLE}><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}{missing}</tbody></table></div>"
        + "".join(
            f'<div class="cp-table-note" style="opacity:.7">{escape(note)}</div>'
            for note in (digest.peak_memory_note, digest.ddp_note)
            if note
        )
        + (
            f'<div style="font-weight:600;margin:8px 0 2px 0">Divergences</div><ul class="cp-divergences">'
            f"{divergences}</ul>"
            if divergences
            else ""
        )
        + "</div>"
    )


def render_job_report_html(digest: JobDigest) -> str:
    """The whole page: opens offline, holds no script."""
    title = f"compile-profile: job {one_line(digest.job_id, 80)}"
    meta = [f"{digest.world_size} ranks" if digest.world_size != 1 else "1 rank"]
    if digest.backend:
        meta.append(f"backend {digest.backend}")
    if digest.torchrun_id:
        meta.append(f"torchrun {digest.torchrun_id}")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        f'<header><h1>{escape(title)}</h1><div class="meta">{escape(" · ".join(meta))}</div></header>'
        f"<main>{job_html(digest)}</main></body></html>\n"
    )
