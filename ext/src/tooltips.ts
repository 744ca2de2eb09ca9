/**
 * What each table column and chart of a run's detail means, in one place: the hover text of every
 * header (`title`) and chart title.  Short: a sentence says what the figure is, not what this run's
 * value is (the digest words those).
 */

/** The Overview's variants table. */
export const VARIANT_TIPS: Readonly<Record<string, string>> = {
  variant: 'eager, or one torch.compile configuration (backend/mode)',
  median: 'median time of one call of the cell over the timed samples',
  'p10–p90': 'the 10th to 90th percentile of the timed samples: how much one call varies',
  n: 'how many timed samples the median is taken over',
  compile: 'seconds the first call spent compiling (Dynamo, AOTAutograd, Inductor)',
  'peak memory': 'peak device memory allocated during one call'
};

/** The Kernels table, keyed as kernels.ts sorts it. */
export const KERNEL_TIPS: Readonly<Record<string, string>> = {
  name: "the kernel's name as Inductor generated it (click a row for its source)",
  language: 'Triton, C++ or an extern call (a library kernel such as cuBLAS)',
  device_time_ms:
    "device time per call of the cell, summed over the kernel's launches, from the profiler pass",
  achieved_gbps: "bytes moved per second, and that rate's share of the device's measured copy bandwidth",
  achieved_tflops:
    "floating-point operations per second (matmul, convolution, attention), and the share of the device's peak",
  aten_ops: 'the ATen operators Inductor fused into this kernel',
  lines: 'the cell lines whose operations this kernel runs'
};

/** The breakdown table, keyed as the digest keys its parts (digest/breakdown.py). */
export const BREAKDOWN_TIPS: Readonly<Record<string, string>> = {
  variant: 'eager, or one torch.compile configuration',
  library: 'time in library kernels (cuBLAS, cuDNN, oneDNN) the call launched',
  generated: 'time in kernels Inductor generated (Triton or C++)',
  aten: "time in ATen's own kernels (operators run as eager runs them)",
  copies: 'time in memory copies and fills',
  collectives: 'time in collective communication (all-reduce and the like)',
  outside: 'the rest of the call: Python, guards, kernel launches and waiting',
  call: 'the median time of one call, the parts summed'
};

/** The Lines table. */
export const LINE_TIPS: Readonly<Record<string, string>> = {
  line: 'the cell line (1 is the %%compile_profile line); click a row to show it in the notebook',
  code: "the line's code, and a mark where Dynamo broke the graph",
  variant: "the time of this line's kernels per call, in this variant"
};

/** The Compile tab's table, by the row's heading (a variant's and a phase's rows take the fallback). */
export const COMPILE_TIPS: Readonly<Record<string, string>> = {
  cache: "whether the compile found its work in torch.compile's caches (FX graph, AOTAutograd, kernels)",
  caches: 'hits and misses per cache',
  compile: 'seconds the first call of this variant spent compiling',
  timeline: "how much of the first call compiling took, from Dynamo's timed spans",
  compileId:
    "Dynamo's compile id (frame/compile): one frame's graph, compiled at the first call or again on a recompile",
  when: 'at the first call, or again later on a recompile (a guard failed)',
  largest: "the compile's longest phases inside it (Dynamo's span names)",
  cacheLookups: 'what the FX graph and AOTAutograd caches answered for this compile'
};

/** The Overview's table of a profile over a sequence of inputs, a row per input signature. */
export const INPUT_TIPS: Readonly<Record<string, string>> = {
  signature:
    "what Dynamo guards on that the input itself shows: each tensor's shape, dtype and device, each number's value",
  inputs: 'which inputs of the sequence have this signature (1 is the first)',
  eager: "the eager median per call on this signature's inputs",
  compiled: "the compiled median per call on this signature's inputs",
  speedup: 'eager median over compiled median on this signature, with its 95% interval',
  recompiles: "the recompiles this signature's inputs caused",
  compiling: 'the seconds those recompiles spent compiling'
};

/** max-autotune's choices (measured.ts AUTOTUNE_COLUMNS). */
export const AUTOTUNE_TIPS: Readonly<Record<string, string>> = {
  op: 'the operation max-autotune tuned',
  shape: 'its input shapes',
  picked: 'the implementation autotuning chose',
  best_ms: "the chosen implementation's benchmarked time",
  best_triton: 'the fastest Triton template tried',
  best_triton_ms: "that template's benchmarked time",
  choices: 'how many implementations were benchmarked',
  tune: 'seconds spent autotuning this operation'
};

/** Each chart of the detail, by its figure's name (render/charts.py). */
export const CHART_TIPS: Readonly<Record<string, string>> = {
  variants: 'median time per call of each variant; its error bar spans the 10th to 90th percentile',
  samples: 'every timed sample of each variant: its spread, outliers and drift',
  compile_timeline:
    "each compile (a compile id) on a row, its phases nested as they ran, from Dynamo's timed spans",
  breakdown: "one call's time split into kernels by kind and the time outside kernels",
  kernels: 'the kernels that took the most device time per call',
  lines: 'time per call spent in the kernels of each cell line',
  roofline: "each kernel's achieved rate as a share of the closer device peak (bandwidth or compute)"
};

/** The tip for `key` in `tips`, or '' (no title) where none is written. */
export function tip(tips: Readonly<Record<string, string>>, key: string): string {
  return Object.prototype.hasOwnProperty.call(tips, key) ? tips[key] : '';
}
