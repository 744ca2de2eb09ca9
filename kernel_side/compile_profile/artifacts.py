"""A run's compile artifacts by reference: which texts a run holds, how the run store packs them, and where a view
reads one.

Contract: a ``CompileRecord``'s ``Artifact``s (and its provenance) name texts by SHA-256; the texts live in
``ProfileRun.artifact_texts`` while a run is in memory or in a run file, and in the run store's ``artifacts`` table
once stored (``RunStore.put``: each text once, zlib-compressed, shared by every run that holds it).  A view that
shows a text reads it through an ``ArtifactSource`` (a function from a hash to the text, or None): the run's own
texts (``of_run``) or the store's (``RunStore.artifact``), so the same view works on a live run, a run file and a
stored run.  Only the standard library is used.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .profile_run import ProfileRun

ArtifactSource = Callable[[str], "str | None"]

# zlib's fastest level: 3.9x smaller on the fixtures' graphs and output code at a fifth of level 6's time
COMPRESSION = 1


def referenced(run: ProfileRun) -> set[str]:
    """The hashes of every artifact the run's compiles name (their texts, and the graphs their provenance reads)."""
    shas = {a.sha256 for c in run.compiles for a in c.artifacts}
    shas.update(s for c in run.compiles for p in c.provenance for s in (p.pre_grad, p.post_grad, p.output_code))
    shas.discard("")
    return shas


def text_sha256(text: str) -> str:
    """The hash an artifact's text is named by (``engine.trace.model.compiles``): SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def pack(texts: dict[str, str], shas: Iterable[str]) -> list[tuple[str, int, bytes]]:
    """(hash, size, compressed text) of each of ``shas`` whose text ``texts`` holds, for the store's artifacts table.
    A text that is not its hash's is left out: the table keeps one text per hash for every run, and a store merged
    from someone else (or a run file) had planted text under the hash of an artifact the user's own run held."""
    out = []
    for sha in sorted(shas):
        text = texts.get(sha)
        if text is None or text_sha256(text) != sha:
            continue
        data = text.encode("utf-8", "surrogatepass")
        out.append((sha, len(data), zlib.compress(data, COMPRESSION)))
    return out


# The most of a stored text read back: twice the longest text a trace keeps (``TraceLimits.artifact_bytes``, 32 MiB).
# A 1.5 MB store holding a text compressed from 1.5 GB had taken ``import`` to 3.1 GB.
UNPACKED_MAX = 64 << 20
CUT_NOTE = "\n… (cut here: the stored text is longer than {} MiB)\n"


def unpack(body: bytes) -> str:
    inflate = zlib.decompressobj()
    try:
        data = inflate.decompress(body, UNPACKED_MAX)
    except zlib.error as exc:  # a store edited or damaged outside compile-profile: said as the text, not a traceback
        return f"(this artifact's stored text cannot be read: zlib: {exc})"
    text = data.decode("utf-8", "replace")
    return text + CUT_NOTE.format(UNPACKED_MAX >> 20) if inflate.unconsumed_tail else text


def of_run(run: ProfileRun) -> ArtifactSource:
    """The run's own texts (a live run's, a run file's)."""
    return run.artifact_texts.get


def first_of(*sources: ArtifactSource | None) -> ArtifactSource:
    """The first of ``sources`` that has a text for the hash."""

    def read(sha: str) -> str | None:
        for source in sources:
            text = source(sha) if source is not None else None
            if text is not None:
                return text
        return None

    return read
