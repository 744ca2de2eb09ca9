"""Turn structured-trace events of one compiled variant into ``ProfileRun`` parts.

  events.py      ``build_variant_trace`` and ``HANDLERS``: one small handler per trace event kind
  breaks.py      the handlers of graph breaks, recompiles and guards
  state.py       what the handlers share: the ``VariantTrace`` they build and the ``TraceState`` they add to
  kernels.py     the kernels of each compile's output modules: ids, ATen ops, cell lines
  graph_text.py  printed FX graphs read as text: op counts, nodes with their op and frame, inputs
  ddp.py         DDPOptimizer's pieces: their parameters' names and bytes
  torch_kinds.py the event kinds torch itself writes, read or not

The events themselves, and the parsed ``chromium_event`` span, are ``trace.capture``'s; which cell line a traced
(file, line, code) is, ``cell.locator``'s.
"""

from .events import HANDLERS, build_variant_trace
from .graph_text import op_counts_from_code
from .state import VariantTrace

__all__ = ["HANDLERS", "VariantTrace", "build_variant_trace", "op_counts_from_code"]
