/**
 * Number and time formatting; mirrors kernel_side/compile_profile/digest/format.py so the
 * panel and the Python views word a figure the same way.  Formatting only: every figure comes
 * from the digest (types.ts says which field).
 */

/**
 * `x` to three significant digits as a mantissa "d.dd" and its exponent, rounded as Python rounds:
 * an exact tie goes to the even digit (312.5 is "3.12e2"), where JavaScript's toExponential rounds it
 * up (313).  Below 1e-20 or so a double's exact expansion runs past 100 digits and is no tie.
 */
function threeDigits(x: number): [string, number] {
  const [mantissa, exp] = x.toExponential(2).split('e');
  const [exact, exactExp] = x.toExponential(99).split('e');
  const digits = exact.replace('-', '').replace('.', '');
  if (digits[3] === '5' && /^0*$/.test(digits.slice(4)) && Number(digits[2]) % 2 === 0) {
    return [exact.slice(0, exact.indexOf('.') + 3), Number(exactExp)];
  }
  return [mantissa, Number(exp)];
}

/** Python's `f"{x:.3g}"`: three significant digits, trailing zeros dropped, ties to even. */
export function threeSig(x: number): string {
  if (x === 0) {
    return '0';
  }
  // Like .3g, decide on the exponent after rounding to three digits (999.5 becomes 1e+03).
  const [mantissa, exponent] = threeDigits(x);
  if (exponent < -4 || exponent >= 3) {
    const m = mantissa.replace(/\.?0+$/, '');
    return `${m}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(Number(`${mantissa}e${exponent}`));
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) {
    return '—';
  }
  if (ms >= 1000) {
    return `${threeSig(ms / 1000)} s`;
  }
  if (ms >= 1) {
    return `${threeSig(ms)} ms`;
  }
  if (ms >= 1e-3) {
    return `${threeSig(ms * 1e3)} µs`;
  }
  return `${threeSig(ms * 1e6)} ns`;
}

export function formatS(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) {
    return '—';
  }
  return formatMs(seconds * 1000);
}

export function formatSpeedup(x: number | null | undefined): string {
  if (x === null || x === undefined) {
    return '—';
  }
  return x < 10 ? `${x.toFixed(2)}×` : `${x.toFixed(1)}×`;
}

/**
 * A rate with its unit, three significant digits and no exponent: "2810 GB/s", "81.2 TFLOP/s",
 * "0.512 GB/s" (a thousand or more is rounded to a whole number); "—" when not measured.
 */
export function formatRate(x: number | null | undefined, unit: string): string {
  if (x === null || x === undefined || !Number.isFinite(x)) {
    return '—';
  }
  return `${Math.abs(x) >= 1000 ? Math.round(x) : threeSig(x)} ${unit}`;
}

/** A share of a whole as Python's `f"{x:.0%}"` words it ("84%"); "—" when not measured. */
export function formatShare(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) {
    return '—';
  }
  return `${Math.round(share * 100)}%`;
}

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) {
    return 'not measured';
  }
  let size = n;
  for (const unit of ['B', 'KiB', 'MiB', 'GiB']) {
    if (size < 1024 || unit === 'GiB') {
      return unit === 'B' ? `${size.toFixed(0)} ${unit}` : `${size.toFixed(1)} ${unit}`;
    }
    size /= 1024;
  }
  return `${size.toFixed(1)} GiB`;
}

/** "12 s ago", "5 min ago", "3 h ago", "2 d ago"; a future time (clock skew) reads "just now". */
export function formatAge(createdAt: string, now: Date = new Date()): string {
  const then = Date.parse(createdAt);
  if (Number.isNaN(then)) {
    return '';
  }
  const seconds = Math.floor((now.getTime() - then) / 1000);
  if (seconds < 5) {
    return 'just now';
  }
  if (seconds < 60) {
    return `${seconds} s ago`;
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    return `${hours} h ago`;
  }
  return `${Math.floor(hours / 24)} d ago`;
}

/** Whether the speedup has an interval: JSON has no NaN, so one the bootstrap could not give (too few samples) is null. */
export function hasInterval(speedup: {
  low: number | null;
  high: number | null;
}): speedup is { low: number; high: number } {
  return speedup.low !== null && speedup.high !== null;
}

/** Speedup badge tone: a gain whose interval is above 1, a loss below 1, else inconclusive. */
export function speedupTone(
  speedup: { value: number; low: number | null; high: number | null } | null | undefined
): 'faster' | 'slower' | 'even' | 'none' {
  if (!speedup) {
    return 'none';
  }
  if (!hasInterval(speedup)) {
    return 'even'; // nothing measured either way (and null < 1 in JavaScript)
  }
  if (speedup.low > 1) {
    return 'faster';
  }
  if (speedup.high < 1) {
    return 'slower';
  }
  return 'even';
}
