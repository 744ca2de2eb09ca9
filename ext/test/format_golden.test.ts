/**
 * format.ts words each number of tests/format_golden.json as digest/format.py does: the same table the
 * Python test (tests/test_digest_format_golden.py) holds format.py to, so the two cannot drift apart.
 */

import { readFileSync } from 'fs';
import { join } from 'path';

import {
  formatBytes,
  formatGbps,
  formatMs,
  formatS,
  formatShare,
  formatSpeedup,
  formatTflops
} from '../src/format';

type Format = (x: number | null) => string;

// digest/format.py's name -> its mirror in format.ts
const MIRRORS: Record<string, Format> = {
  format_ms: formatMs,
  format_s: formatS,
  format_speedup: formatSpeedup,
  format_bytes: formatBytes,
  format_gbps: formatGbps,
  format_tflops: formatTflops,
  format_share: formatShare
};

const GOLDEN = JSON.parse(readFileSync(join(__dirname, '..', '..', 'tests', 'format_golden.json'), 'utf8'));
const TABLES = Object.entries(GOLDEN).filter(([name]) => name !== '_about') as [
  string,
  [number | null, string][]
][];

describe('format.ts against the golden table', () => {
  it('has a mirror for every function in the table', () => {
    expect(TABLES.map(([name]) => name).sort()).toEqual(Object.keys(MIRRORS).sort());
  });

  for (const [name, rows] of TABLES) {
    it.each(rows)(`${name}(%p) is %p`, (given, expected) => {
      expect(MIRRORS[name](given)).toBe(expected);
    });
  }
});
