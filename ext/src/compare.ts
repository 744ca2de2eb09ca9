/** Two runs side by side: what changed in times, speedup, graphs, breaks and kernels. */

import { IKernel, IProfileRun, IVariant } from './types';

export interface IVariantDelta {
  name: string;
  beforeMs: number | null;
  afterMs: number | null;
  deltaMs: number | null;
  /** after / before; below 1 is faster. */
  ratio: number | null;
}

export interface IKernelCount {
  name: string;
  count: number;
}

export interface IRunComparison {
  variants: IVariantDelta[];
  speedup: { before: number | null; after: number | null; delta: number | null };
  counts: { name: string; before: number; after: number; delta: number }[];
  /** Kernel names (counter stripped) with how many more or fewer the second run has. */
  kernelsAdded: IKernelCount[];
  kernelsRemoved: IKernelCount[];
  kernelsKept: number;
}

function median(v: IVariant | undefined): number | null {
  return v?.timing?.median_ms ?? null;
}

/**
 * Kernel names carry a trailing counter (triton_poi_fused_add_0) that shifts when an unrelated
 * kernel appears, so kernels are matched on their name without it, as a multiset.
 */
export function kernelKey(kernel: Pick<IKernel, 'name'>): string {
  return kernel.name.replace(/_\d+$/, '');
}

function multiset(kernels: IKernel[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const k of kernels) {
    counts.set(kernelKey(k), (counts.get(kernelKey(k)) ?? 0) + 1);
  }
  return counts;
}

export function compareRuns(before: IProfileRun, after: IProfileRun): IRunComparison {
  const names = [...before.variants.map(v => v.name)];
  for (const v of after.variants) {
    if (!names.includes(v.name)) {
      names.push(v.name);
    }
  }
  const variants = names.map(name => {
    const b = median(before.variants.find(v => v.name === name));
    const a = median(after.variants.find(v => v.name === name));
    return {
      name,
      beforeMs: b,
      afterMs: a,
      deltaMs: a !== null && b !== null ? a - b : null,
      ratio: a !== null && b !== null && b > 0 ? a / b : null
    };
  });
  const sb = before.speedup?.value ?? null;
  const sa = after.speedup?.value ?? null;
  const count = (name: string, f: (r: IProfileRun) => number) => {
    const b = f(before);
    const a = f(after);
    return { name, before: b, after: a, delta: a - b };
  };
  const mb = multiset(before.kernels);
  const ma = multiset(after.kernels);
  const kernelsAdded: IKernelCount[] = [];
  const kernelsRemoved: IKernelCount[] = [];
  let kernelsKept = 0;
  for (const key of [...new Set([...mb.keys(), ...ma.keys()])].sort()) {
    const nb = mb.get(key) ?? 0;
    const na = ma.get(key) ?? 0;
    kernelsKept += Math.min(nb, na);
    if (na > nb) {
      kernelsAdded.push({ name: key, count: na - nb });
    } else if (nb > na) {
      kernelsRemoved.push({ name: key, count: nb - na });
    }
  }
  return {
    variants,
    speedup: { before: sb, after: sa, delta: sa !== null && sb !== null ? sa - sb : null },
    counts: [
      count('graphs', r => r.graphs.filter(g => g.kind === 'dynamo').length),
      count('graph breaks', r => r.graph_breaks.length),
      count('recompiles', r => r.recompiles.length),
      count('kernels', r => r.kernels.length)
    ],
    kernelsAdded,
    kernelsRemoved,
    kernelsKept
  };
}
