import { isMissingRun, missingRunLabel, missingRunText } from '../src/deletedrun';

describe('a tab whose run is no longer in the store', () => {
  it("is the server's 404, not another failure", () => {
    expect(isMissingRun({ status: 404, message: '404: no run abc' })).toBe(true);
    expect(isMissingRun({ status: 422 })).toBe(false);
    expect(isMissingRun(new TypeError('network'))).toBe(false);
    expect(isMissingRun(null)).toBe(false);
  });

  it('says in words that the run was deleted from the store, by its title where the tab kept it', () => {
    const text = missingRunText('uiwide000001', 'a wide kernel table');
    expect(text).toMatch(
      /^"a wide kernel table" \(run uiwide000001\) is no longer in the run store: it was deleted/
    );
    expect(text).not.toMatch(/404|Cannot load/);
    expect(missingRunText('abc', null)).toMatch(/^Run abc is no longer in the run store/);
    expect(missingRunText('abc', 'abc')).toMatch(/^Run abc is/);
  });

  it("labels the tab with the run's title and says it is deleted", () => {
    expect(missingRunLabel('abc', 'my model')).toBe('my model (deleted)');
    expect(missingRunLabel('abc', null)).toBe('abc (deleted)');
  });
});
