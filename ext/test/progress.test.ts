import { elapsedSeconds, IProgressData, progressText } from '../src/progresstext';

const line: IProgressData = {
  started_at: 1_700_000_000_000,
  elapsed_s: 3.5,
  message: 'inductor/default: compiling C++',
  stage: 2,
  stages: 7
};

describe('the progress line', () => {
  it('words the line as the kernel text/plain does, clock padded to five', () => {
    expect(progressText(line, 3.5)).toBe(
      'compile_profile [  3.5 s] stage 2 of 7: inductor/default: compiling C++'
    );
    expect(progressText(line, 123.45)).toBe(
      'compile_profile [123.5 s] stage 2 of 7: inductor/default: compiling C++'
    );
  });

  it('leaves the stage out of a line that has none', () => {
    expect(progressText({ ...line, stage: null, stages: null }, 0)).toBe(
      'compile_profile [  0.0 s] inductor/default: compiling C++'
    );
  });

  it('counts on from the kernel elapsed seconds with the browser clock, whatever the kernel clock says', () => {
    const received = 5_000; // a browser clock nowhere near the kernel's started_at
    expect(elapsedSeconds(line, received, received)).toBeCloseTo(3.5);
    expect(elapsedSeconds(line, received, received + 1500)).toBeCloseTo(5.0);
  });

  it('counts from started_at when the line has no elapsed seconds, never below zero', () => {
    const bare = { ...line, elapsed_s: undefined };
    expect(elapsedSeconds(bare, 0, line.started_at + 2000)).toBeCloseTo(2.0);
    expect(elapsedSeconds(bare, 0, line.started_at - 2000)).toBe(0);
  });
});
