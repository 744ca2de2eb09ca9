/**
 * The kernel table's sorting and paging, its time cell, its roofline cells (achieved GB/s and TFLOP/s
 * with their share of the peak, figures engine/kernels/roofline.py measured), and which highlighter each kernel
 * language uses.  Every cell's words are the digest's (RunDigest.kernel_cells): a kernel whose variant's
 * profiler pass the digest withholds (summary "kernel_times": digest/kernel_times.py) shows its share of the
 * pass's time ("46% of pass") and no rates; this module sorts by the figures and shows the words.  Kernels of one
 * name (Inductor numbers them per graph: cpp_fused_gt_max_0 in a compile and in its recompile) are told apart by what
 * differs between them (kernelOrigins): their variant, their compile, their graph.
 */

import { IGraph, IKernel, IKernelCells, IRunSummary, KernelLanguage } from './types';

export type KernelSortKey =
  'name' | 'language' | 'device_time_ms' | 'achieved_gbps' | 'achieved_tflops' | 'aten_ops' | 'lines';

/** Columns whose first click sorts the largest first. */
const NUMERIC_KEYS: readonly KernelSortKey[] = ['device_time_ms', 'achieved_gbps', 'achieved_tflops'];
export type SortDirection = 'asc' | 'desc';

export interface IKernelSort {
  key: KernelSortKey;
  direction: SortDirection;
}

function finite(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The rows a sort key compares; unmeasured times sort after measured ones in either direction. */
function sortValue(kernel: IKernel, key: KernelSortKey): string | number | null {
  switch (key) {
    case 'name':
      return kernel.name;
    case 'language':
      return kernel.language;
    case 'device_time_ms':
    case 'achieved_gbps':
    case 'achieved_tflops':
      return finite(kernel[key]);
    case 'aten_ops':
      return (kernel.aten_ops ?? []).join(', ');
    case 'lines':
      return kernel.lines && kernel.lines.length ? Math.min(...kernel.lines) : null;
  }
}

export function sortKernels(kernels: IKernel[], sort: IKernelSort): IKernel[] {
  const sign = sort.direction === 'asc' ? 1 : -1;
  return [...kernels].sort((a, b) => {
    const va = sortValue(a, sort.key);
    const vb = sortValue(b, sort.key);
    if (va === null && vb === null) {
      return a.name.localeCompare(b.name);
    }
    if (va === null) {
      return 1;
    }
    if (vb === null) {
      return -1;
    }
    const order =
      typeof va === 'number' && typeof vb === 'number'
        ? va - vb
        : String(va).localeCompare(String(vb), undefined, { numeric: true });
    return order !== 0 ? sign * order : a.name.localeCompare(b.name);
  });
}

/** Clicking a column sorts by it; clicking it again flips the direction. Times and rates start descending. */
export function nextSort(current: IKernelSort, key: KernelSortKey): IKernelSort {
  if (current.key === key) {
    return { key, direction: current.direction === 'asc' ? 'desc' : 'asc' };
  }
  return { key, direction: NUMERIC_KEYS.includes(key) ? 'desc' : 'asc' };
}

/**
 * The variants whose profiler pass the digest withholds, with why (summary "kernel_times"; none before digest 11).
 * From the REST API, which this release's server derives: the generated types hold, nothing is checked.
 */
export function withheldPasses(summary: Partial<IRunSummary> | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const [variant, j] of Object.entries(summary?.kernel_times ?? {})) {
    if (!j.trusted) {
      out.set(variant, j.text);
    }
  }
  return out;
}

/** What a kernel's roofline cell shows: the achieved rate and its share of the peak, "—" for either unknown. */
export interface IRateCell {
  rate: string;
  share: string;
}

/** The cells of a kernel the digest sent none for: every figure "—". */
const UNWORDED: IKernelCells = {
  time: '—',
  bandwidth: '—',
  bandwidth_share: '—',
  compute: '—',
  compute_share: '—'
};

/**
 * Each kernel's cells as the digest words them (RunDigest.kernel_cells: one per kernel, in the run's order; its
 * time "1.17 ms", or "46% of pass" where its pass is withheld; its rates "612 GB/s", "2.5 TFLOP/s" and their shares
 * of the peaks, "—" where not measured or withheld), by kernel, so that a sorted or filtered table finds its row's.
 */
export function kernelCells(
  kernels: readonly IKernel[],
  cells: readonly IKernelCells[] | undefined
): Map<IKernel, IKernelCells> {
  return new Map(kernels.map((k, i) => [k, cells?.[i] ?? UNWORDED]));
}

/** A kernel's achieved bandwidth or compute and its share of the measured peak, as the digest words them. */
export function rateCell(cells: IKernelCells | undefined, what: 'bandwidth' | 'compute'): IRateCell {
  const c = cells ?? UNWORDED;
  return what === 'bandwidth'
    ? { rate: c.bandwidth, share: c.bandwidth_share }
    : { rate: c.compute, share: c.compute_share };
}

export interface IPage<T> {
  items: T[];
  page: number;
  pageCount: number;
  total: number;
}

/** One page of rows; a page past the end is clamped to the last one. */
export function pageOf<T>(rows: T[], page: number, pageSize: number): IPage<T> {
  const pageCount = Math.max(1, Math.ceil(rows.length / pageSize));
  const clamped = Math.min(Math.max(0, page), pageCount - 1);
  return {
    items: rows.slice(clamped * pageSize, (clamped + 1) * pageSize),
    page: clamped,
    pageCount,
    total: rows.length
  };
}

/** Case-insensitive match on kernel name or any ATen op. */
export function filterKernels(kernels: IKernel[], query: string): IKernel[] {
  const q = query.trim().toLowerCase();
  if (!q) {
    return kernels;
  }
  return kernels.filter(
    k => k.name.toLowerCase().includes(q) || (k.aten_ops ?? []).some(op => op.toLowerCase().includes(q))
  );
}

/** The CodeMirror language name that highlights a kernel's source. */
export function highlightLanguage(language: KernelLanguage): string {
  return language === 'cpp' ? 'C++' : 'Python';
}

export function languageLabel(language: KernelLanguage): string {
  return { triton: 'Triton', cpp: 'C++', extern: 'extern' }[language] ?? language;
}

/** What a graph kind is called beside a kernel's name, where it alone tells two kernels of one name apart. */
const GRAPH_KIND_WORD: Record<string, string> = {
  dynamo: 'Dynamo',
  aot_forward: 'forward',
  aot_backward: 'backward',
  aot_inference: 'inference',
  post_grad: 'post-grad'
};

/** What tells a kernel from the others of its name: a few words beside the name, and the whole on hover. */
export interface IKernelOrigin {
  label: string; // "compile 16/1", "max-autotune", "backward · #2"
  title: string; // "inductor/max-autotune · compile 16/1"
}

/** The '/'-separated segments all of `names` begin with, at most all but the last of the shortest. */
function commonSegments(names: readonly string[]): number {
  const split = names.map(n => n.split('/'));
  const most = Math.min(...split.map(s => s.length)) - 1;
  let n = 0;
  while (n < most && split.every(s => s[n] === split[0][n])) {
    n += 1;
  }
  return n;
}

/**
 * What tells each kernel from the others of its name, for those whose name repeats in the run: of its variant, its
 * compile ("compile 16/1", its graph's Dynamo compile id, as the Graphs tab names it) and its graph's kind
 * ("backward"), those that differ within the name, joined by " · "; a number ("#2", in the run's order) after those
 * where they still read alike.  Beside the name a variant reads without the segments the name's variants share
 * ("max-autotune" beside "default", not "inductor/max-autotune"): with both sidebars open at 1600 px the name column
 * is about 155 px, and the whole variant names left five letters of "extern_kernels.mm"; the title has them whole.
 * A kernel whose name is its own has none.  The table showed two rows "cpp_fused_gt_max_0" alike (a compile and its
 * recompile).
 */
export function kernelOrigins(
  kernels: readonly IKernel[],
  graphs: readonly IGraph[]
): Map<IKernel, IKernelOrigin> {
  const graphOf = new Map(graphs.map(g => [g.id, g]));
  const byName = new Map<string, IKernel[]>();
  for (const k of kernels) {
    byName.set(k.name, [...(byName.get(k.name) ?? []), k]);
  }
  const out = new Map<IKernel, IKernelOrigin>();
  for (const same of byName.values()) {
    if (same.length < 2) {
      continue;
    }
    const shared = commonSegments(same.map(k => k.variant ?? ''));
    // each part: its whole words, and the shorter ones beside the name
    const parts: ((k: IKernel) => [string, string])[] = [
      k => [k.variant ?? '', (k.variant ?? '').split('/').slice(shared).join('/')],
      k => {
        const id = graphOf.get(k.graph_id)?.compile_id;
        return id ? [`compile ${id}`, `compile ${id}`] : ['', ''];
      },
      k => {
        const kind = graphOf.get(k.graph_id)?.kind;
        const word = kind ? (GRAPH_KIND_WORD[kind] ?? kind) : '';
        return [word, word];
      }
    ];
    const telling = parts.filter(part => new Set(same.map(k => part(k)[0])).size > 1);
    const words = (k: IKernel, which: 0 | 1) =>
      telling
        .map(part => part(k)[which])
        .filter(Boolean)
        .join(' · ');
    const titles = same.map(k => words(k, 0));
    const counts = new Map<string, number>();
    titles.forEach(t => counts.set(t, (counts.get(t) ?? 0) + 1));
    const seen = new Map<string, number>();
    same.forEach((k, i) => {
      let [title, label] = [titles[i], words(k, 1)];
      if ((counts.get(title) ?? 0) > 1) {
        const n = (seen.get(title) ?? 0) + 1;
        seen.set(title, n);
        [title, label] = [title ? `${title} · #${n}` : `#${n}`, label ? `${label} · #${n}` : `#${n}`];
      }
      out.set(k, { label, title });
    });
  }
  return out;
}
