/**
 * Laying out the digest's comparison of two runs (digest/compare.py, served at
 * compile-profile/api/compare): which cell class a delta takes, and how a kernel count reads.
 * Nothing here computes a figure: the server matched the kernels and worked out every change.
 */

import { IComparison, IDelta, IKernelCount } from './types';

/** One thing the two runs ran with; `differs` null where the digest did not say (no `context`). */
export interface IContextRow {
  label: string;
  a: string;
  b: string;
  differs: boolean | null;
}

/** What the two runs ran on, where the digest sends no `context` (a server older than digest 22). */
const COMPARE_REFS: [string, 'device' | 'torch_version'][] = [
  ['device', 'device'],
  ['torch', 'torch_version']
];

/**
 * What the two runs ran with, as the digest lists them (digest/compare.py `context`): the rows where they differ
 * first (threads, options, the cell, torch, device), then those where they agree; shown above the compared
 * figures.  A comparison without them shows device and torch, as before.
 */
export function contextRows(c: Pick<IComparison, 'a' | 'b' | 'context'>): IContextRow[] {
  if (Array.isArray(c.context)) {
    return c.context;
  }
  return COMPARE_REFS.map(([label, field]) => ({ label, a: c.a[field], b: c.b[field], differs: null }));
}

/**
 * The class of a delta's change cell, seen from B (the "after" run): better when B's figure is
 * the better one, worse when A's is, neutral when the digest found the change within noise (inside one
 * run's interval), none when neither or the figure has no direction.
 */
export function deltaClass(d: Pick<IDelta, 'better' | 'within_noise'>): string {
  if (d.within_noise) {
    return 'cp-mod-noise';
  }
  return d.better === 'b' ? 'cp-mod-better' : d.better === 'a' ? 'cp-mod-worse' : '';
}

/**
 * The arrow beside a change the digest calls one (B's or A's figure the better one): which way B's
 * figure moved, up or down.  None within noise, without a direction, or without a change.
 */
export function deltaArrow(d: Pick<IDelta, 'better' | 'within_noise' | 'change'>): string {
  if (d.within_noise || !d.better || d.change === null || d.change === 0) {
    return '';
  }
  return d.change > 0 ? '▲' : '▼';
}

/** `triton_poi_fused_add ×3`; a single kernel reads as its name alone, as the text view writes it. */
export function kernelCountText(k: IKernelCount): string {
  return k.count > 1 ? `${k.name} ×${k.count}` : k.name;
}
