/**
 * The progress line's words and clock, apart from the widget (progress.ts) so jest tests them: the
 * line as the kernel's `text/plain` words it, and the seconds it shows at a moment.
 */

export const PROGRESS_MIME_TYPE = 'application/vnd.compile-profile.progress+json';
export const TICK_MS = 500;

/** What the magic's `_ProgressLine` sends. */
export interface IProgressData {
  started_at: number; // epoch ms, the kernel's clock
  elapsed_s?: number; // seconds since started_at when the line was sent
  message: string;
  stage: number | null;
  stages: number | null;
}

/**
 * The seconds the line shows at `nowMs`, given it arrived at `receivedMs` (both the browser's clock):
 * the kernel's `elapsed_s` plus the time since it arrived; a line without `elapsed_s` counts from
 * `started_at`.  Never negative.
 */
export function elapsedSeconds(data: IProgressData, receivedMs: number, nowMs: number): number {
  const base =
    typeof data.elapsed_s === 'number' && Number.isFinite(data.elapsed_s)
      ? data.elapsed_s * 1000 + (nowMs - receivedMs)
      : nowMs - data.started_at;
  return Math.max(0, base) / 1000;
}

/** The line as the kernel's `text/plain` words it: `compile_profile [  3.5 s] stage 3 of 7: warming up`. */
export function progressText(data: IProgressData, elapsedS: number): string {
  // The one number ext/src formats: a UI clock, ticking in the browser between the kernel's messages (the line is
  // redrawn every TICK_MS while no message comes), so no digest could word it; it reads as the kernel's
  // text/plain line does (magic.py _ProgressLine: f"{elapsed:5.1f} s").
  const clock = elapsedS.toFixed(1).padStart(5);
  const stage =
    typeof data.stage === 'number' && typeof data.stages === 'number'
      ? `stage ${data.stage} of ${data.stages}: `
      : '';
  return `compile_profile [${clock} s] ${stage}${data.message}`;
}
