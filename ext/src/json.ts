/**
 * Reading JSON the server sent: the few checks every parser of a digest field uses (guards, job,
 * breakdown, measured, chart theme), so each says what it accepts once.  Pure; no JupyterLab.
 */

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string, else ''. */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A finite number, else 0. */
export function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** A finite number, else null. */
export function asNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
