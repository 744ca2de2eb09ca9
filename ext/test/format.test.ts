import {
  formatAge,
  formatBytes,
  formatMs,
  formatGbps,
  formatS,
  formatShare,
  formatSpeedup,
  formatTflops,
  threeSig
} from '../src/format';

describe('formatMs mirrors digest/format.py', () => {
  it.each([
    [4.1, '4.1 ms'],
    [1.8, '1.8 ms'],
    [12.345, '12.3 ms'],
    [999.4, '999 ms'],
    [1234, '1.23 s'],
    [0.5, '500 µs'],
    [0.0123, '12.3 µs'],
    [0.0005, '500 ns'],
    [1, '1 ms'],
    [100, '100 ms']
  ])('%p ms -> %p', (ms, text) => {
    expect(formatMs(ms)).toBe(text);
  });

  it('shows a dash for missing figures', () => {
    expect(formatMs(null)).toBe('—');
    expect(formatMs(undefined)).toBe('—');
    expect(formatS(null)).toBe('—');
  });

  it('formats seconds through milliseconds', () => {
    expect(formatS(12.4)).toBe('12.4 s');
    expect(formatS(0.25)).toBe('250 ms');
  });

  it('follows Python .3g for rounding up to the next power of ten', () => {
    expect(threeSig(999.5)).toBe('1e+03');
    expect(threeSig(0.000012345)).toBe('1.23e-05');
    expect(threeSig(2.5)).toBe('2.5');
  });

  it('rounds an exact tie to the even digit, as Python does (JavaScript rounds it up)', () => {
    // f"{x:.3g}" in Python: 312.5 -> 312, 313.5 -> 314, 1.0625 -> 1.06, 2.675 (not a tie in binary) -> 2.67
    expect(threeSig(312.5)).toBe('312');
    expect(threeSig(313.5)).toBe('314');
    expect(threeSig(1.0625)).toBe('1.06');
    expect(threeSig(1.0675)).toBe('1.07');
    expect(threeSig(2.675)).toBe('2.67');
    expect(threeSig(-312.5)).toBe('-312');
    expect(threeSig(312500)).toBe('3.12e+05');
    expect(formatMs(0.3125)).toBe('312 µs');
  });
});

describe('formatSpeedup and formatBytes', () => {
  it('uses two decimals below 10× and one above', () => {
    expect(formatSpeedup(2.3)).toBe('2.30×');
    expect(formatSpeedup(0.95)).toBe('0.95×');
    expect(formatSpeedup(12.34)).toBe('12.3×');
    expect(formatSpeedup(null)).toBe('—');
  });

  it('uses binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(25_165_824)).toBe('24.0 MiB');
    expect(formatBytes(3 * 1024 ** 4)).toBe('3072.0 GiB');
    expect(formatBytes(null)).toBe('not measured');
  });
});

describe('formatGbps, formatTflops and formatShare mirror digest/format.py', () => {
  // Each pair as Python's format_gbps, format_tflops and format_share word it.
  it.each([
    [2810.6, '2.81 TB/s'],
    [999.6, '1e+03 GB/s'],
    [999.4, '999 GB/s'],
    [812.34, '812 GB/s'],
    [0.5123, '0.512 GB/s'],
    [0, '0 GB/s'],
    [1000, '1 TB/s'],
    [123456, '123 TB/s']
  ])('bandwidth %p is %p', (gbps, text) => {
    expect(formatGbps(gbps)).toBe(text);
  });

  it.each([
    [612.4, '612 TFLOP/s'],
    [1.0, '1 TFLOP/s'],
    [0.5123, '512 GFLOP/s'],
    [0.00049, '0.49 GFLOP/s'],
    [1500.5, '1.5e+03 TFLOP/s'],
    [0, '0 GFLOP/s']
  ])('compute %p is %p', (tflops, text) => {
    expect(formatTflops(tflops)).toBe(text);
  });

  it.each([
    [0.84, '84%'],
    [0.025, '2%'], // 2.5 %: a tie, to the even digit
    [0.015, '2%'],
    [0.004, '0.4%'],
    [0.0036, '0.4%'],
    [0.0095, '0.9%'], // 0.95 is a little below .95 as a double
    [0.00005, '0.005%'],
    [0.0000001, '1e-05%'],
    [0, '0%'],
    [1, '100%'],
    [0.99999, '100%']
  ])('share %p is %p', (share, text) => {
    expect(formatShare(share)).toBe(text);
  });

  it('writes "—" for what was not measured', () => {
    expect(formatGbps(null)).toBe('—');
    expect(formatTflops(undefined)).toBe('—');
    expect(formatGbps(Number.NaN)).toBe('—');
    expect(formatShare(null)).toBe('—');
    expect(formatShare(undefined)).toBe('—');
  });
});

describe('formatAge', () => {
  const now = new Date('2026-01-01T12:00:00Z');
  it.each([
    ['2026-01-01T12:00:00+00:00', 'just now'],
    ['2026-01-01T11:59:30+00:00', '30 s ago'],
    ['2026-01-01T11:55:00+00:00', '5 min ago'],
    ['2026-01-01T09:00:00+00:00', '3 h ago'],
    ['2025-12-29T12:00:00+00:00', '3 d ago'],
    ['2026-01-01T13:00:00+00:00', 'just now']
  ])('%s -> %s', (created, text) => {
    expect(formatAge(created, now)).toBe(text);
  });

  it('is empty for an unreadable time', () => {
    expect(formatAge('yesterday', now)).toBe('');
  });
});
