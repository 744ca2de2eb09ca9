/**
 * Number and time formatting; mirrors kernel_side/compile_profile/digest/format.py so the
 * panel and the Python views word a figure the same way, held to it by one table of inputs and
 * words (tests/format_golden.json, read by a pytest and a jest test).  Formatting only: every
 * figure comes from the digest (types.ts says which field).
 */

/**
 * `x` to `n` significant digits as a mantissa "d.dd" and its exponent, rounded as Python rounds: an
 * exact tie goes to the even digit (312.5 is "3.12e2" to three digits), where JavaScript's
 * toExponential rounds it up (313).  Below 1e-20 or so a double's exact expansion runs past 100
 * digits and is no tie.
 */
function sigDigits(x: number, n: number): [string, number] {
  const [mantissa, exp] = x.toExponential(n - 1).split('e');
  const [exact, exactExp] = x.toExponential(99).split('e');
  const digits = exact.replace('-', '').replace('.', '');
  if (digits[n] === '5' && /^0*$/.test(digits.slice(n + 1)) && Number(digits[n - 1]) % 2 === 0) {
    return [exact.slice(0, n === 1 ? exact.indexOf('.') : exact.indexOf('.') + n), Number(exactExp)];
  }
  return [mantissa, Number(exp)];
}

/** Python's `f"{x:.{n}g}"`: `n` significant digits, trailing zeros dropped, ties to even. */
function generalFormat(x: number, n: number): string {
  if (x === 0) {
    return '0';
  }
  // Like .Ng, decide on the exponent after rounding to N digits (999.5 becomes 1e+03 at three).
  const [mantissa, exponent] = sigDigits(x, n);
  if (exponent < -4 || exponent >= n) {
    const m = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa;
    return `${m}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(Number(`${mantissa}e${exponent}`));
}

/** Python's `f"{x:.3g}"`: three significant digits, trailing zeros dropped, ties to even. */
export function threeSig(x: number): string {
  return generalFormat(x, 3);
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

/**
 * Python's `f"{x:.{digits}f}"`: toFixed, except that an exact tie goes to the even digit as Python rounds
 * it, where toFixed rounds it up (1.125 is "1.12" in Python and "1.13" from toFixed; 1280 bytes "1.2 KiB"
 * and "1.3 KiB").  A double is a tie only when its exact expansion ends at that 5, which toFixed(100),
 * exact to 100 places, shows.
 */
function fixed(x: number, digits: number): string {
  const exact = x.toFixed(100);
  const cut = exact.indexOf('.') + 1 + digits;
  const rest = exact.slice(cut);
  if (rest[0] === '5' && /^0*$/.test(rest.slice(1))) {
    const truncated = exact.slice(0, digits === 0 ? cut - 1 : cut);
    if (Number(truncated.slice(-1)) % 2 === 0) {
      return truncated;
    }
  }
  return x.toFixed(digits);
}

export function formatSpeedup(x: number | null | undefined): string {
  if (x === null || x === undefined) {
    return '—';
  }
  return x < 10 ? `${fixed(x, 2)}×` : `${fixed(x, 1)}×`;
}

function measuredNumber(x: number | null | undefined): x is number {
  return x !== null && x !== undefined && Number.isFinite(x);
}

/** Python's `f"{x:.0f}"` for x >= 0: the nearest whole number, an exact tie to the even one. */
function wholeNumber(x: number): string {
  return x % 1 === 0.5 ? String(Math.floor(x) % 2 === 0 ? Math.floor(x) : Math.ceil(x)) : x.toFixed(0);
}

/** A bandwidth as Python's format_gbps words it: "2.81 TB/s" from 1000 GB/s up, else "612 GB/s". */
export function formatGbps(gbps: number | null | undefined): string {
  if (!measuredNumber(gbps)) {
    return '—';
  }
  return gbps >= 1000 ? `${threeSig(gbps / 1000)} TB/s` : `${threeSig(gbps)} GB/s`;
}

/** A compute rate as Python's format_tflops words it: "612 TFLOP/s", below 1 TFLOP/s in GFLOP/s. */
export function formatTflops(tflops: number | null | undefined): string {
  if (!measuredNumber(tflops)) {
    return '—';
  }
  return tflops >= 1 ? `${threeSig(tflops)} TFLOP/s` : `${threeSig(tflops * 1000)} GFLOP/s`;
}

/** A share of a ceiling as Python's format_share words it: "46%"; below 1 % one significant figure, "0.4%". */
export function formatShare(share: number | null | undefined): string {
  if (!measuredNumber(share)) {
    return '—';
  }
  const percent = share * 100;
  return percent >= 1 || percent === 0 ? `${wholeNumber(percent)}%` : `${generalFormat(percent, 1)}%`;
}

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) {
    return 'not measured';
  }
  let size = n;
  for (const unit of ['B', 'KiB', 'MiB', 'GiB']) {
    if (size < 1024 || unit === 'GiB') {
      return unit === 'B' ? `${fixed(size, 0)} ${unit}` : `${fixed(size, 1)} ${unit}`;
    }
    size /= 1024;
  }
  return `${fixed(size, 1)} GiB`;
}

/** "12 s ago", "5 min ago", "3 h ago", "2 d ago"; a future time (clock skew) reads "just now". */
/** "cuda (NVIDIA H200)", or the type alone where no name is known (never "cpu: " or "cpu ()"); for summaries
 * stored before the digest said it itself (``device_text``). */
export function deviceText(device: { type: string; name: string }): string {
  return device.name ? `${device.type} (${device.name})` : device.type;
}

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
