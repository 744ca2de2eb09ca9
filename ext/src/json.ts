/**
 * Reading JSON whose shape no generated type holds: a plotly figure's layout and traces (plotly's own format,
 * charttheme.ts) and what a notebook's saved output holds (the card: breakdown.ts).  The digest's and the run's
 * JSON from this release's server are typed by ext/src/generated/ and need no check.  Pure; no JupyterLab.
 */

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
