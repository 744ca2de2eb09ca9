import { ApiError } from '../src/api';
import { importedText, importFailedText, parseImportResult, traceImportPath } from '../src/importtrace';

describe('Import TORCH_TRACE', () => {
  it('sends the path trimmed, and asks for one when none was typed', () => {
    expect(traceImportPath('  /tmp/trace \n')).toEqual({ path: '/tmp/trace' });
    expect(traceImportPath('my traces/run 1')).toEqual({ path: 'my traces/run 1' });
    for (const typed of ['', '   ', null, undefined]) {
      const checked = traceImportPath(typed);
      expect('error' in checked && checked.error).toMatch(/^Give the path of a TORCH_TRACE directory or log/);
    }
  });

  it("checks the server's answer before the panel opens a run from it", () => {
    expect(parseImportResult({ ids: ['a1', 'b2'], job_ids: ['j1'], extra: 1 })).toEqual({
      ids: ['a1', 'b2'],
      job_ids: ['j1']
    });
    for (const bad of [
      null,
      [],
      {},
      { ids: [], job_ids: [] },
      { ids: ['a'], job_ids: null },
      { ids: [1], job_ids: [] }
    ]) {
      expect(() => parseImportResult(bad)).toThrow(/not a list of run ids/);
    }
  });

  it('says how many runs came from where, and of how many jobs', () => {
    expect(importedText('/tmp/t', { ids: ['a'], job_ids: [] })).toBe(
      'Imported 1 run from /tmp/t: no timings, as a trace has none.'
    );
    expect(importedText('/tmp/job', { ids: ['a', 'b'], job_ids: ['j'] })).toBe(
      'Imported 2 runs (one job of ranks) from /tmp/job: no timings, as a trace has none.'
    );
  });

  it("says why an import failed in the server's words, without a 400's status", () => {
    const refused = new ApiError('400: /tmp/x: no such file or directory', 400);
    expect(importFailedText(refused)).toBe('Import TORCH_TRACE failed: /tmp/x: no such file or directory');
    const broken = new ApiError('500: Unhandled error', 500);
    expect(importFailedText(broken)).toBe('Import TORCH_TRACE failed: 500: Unhandled error');
    expect(importFailedText(new TypeError('Failed to fetch'))).toBe(
      'Import TORCH_TRACE failed: Failed to fetch'
    );
  });
});
