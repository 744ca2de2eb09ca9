/**
 * The kernel table's sorting and paging, its roofline cells (achieved GB/s and TFLOP/s with their
 * share of the peak, figures engine/roofline.py measured), and which highlighter each kernel
 * language uses.
 */

import { formatGbps, formatShare, formatTflops } from './format';
import { IKernel, KernelLanguage } from './types';

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

/** What a kernel's roofline cell shows: the achieved rate and its share of the peak, "—" for either unknown. */
export interface IRateCell {
  rate: string;
  share: string;
}

/** A kernel's achieved bandwidth or compute and its share of the measured peak, as Python's format_gbps, format_tflops and format_share word them. */
export function kernelRate(kernel: IKernel, what: 'bandwidth' | 'compute'): IRateCell {
  return what === 'bandwidth'
    ? { rate: formatGbps(finite(kernel.achieved_gbps)), share: formatShare(finite(kernel.bandwidth_share)) }
    : {
        rate: formatTflops(finite(kernel.achieved_tflops)),
        share: formatShare(finite(kernel.compute_share))
      };
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
