/**
 * Laying out the digest's comparison of two runs (digest/compare.py, served at
 * compile-profile/api/compare): which cell class a delta takes, and how a kernel count reads.
 * Nothing here computes a figure: the server matched the kernels and worked out every change.
 */

import { IDelta, IKernelCount } from './types';

/**
 * The class of a delta's change cell, seen from B (the "after" run): better when B's figure is
 * the better one, worse when A's is, none when neither or the figure has no direction.
 */
export function deltaClass(better: IDelta['better']): string {
  return better === 'b' ? 'cp-mod-better' : better === 'a' ? 'cp-mod-worse' : '';
}

/** `triton_poi_fused_add ×3`; a single kernel reads as its name alone, as the text view writes it. */
export function kernelCountText(k: IKernelCount): string {
  return k.count > 1 ? `${k.name} ×${k.count}` : k.name;
}
