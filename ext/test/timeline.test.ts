import { largestPhases } from '../src/timeline';
import { ICompileTimelineRow } from '../src/types';

function phase(name: string, family: string, duration_s: number, time: string) {
  return { name, family, depth: 1, start_s: 0, duration_s, time };
}

describe('largestPhases', () => {
  it('lists the three longest phases inside the compile, longest first, without the whole-compile spans', () => {
    const row: ICompileTimelineRow = {
      variant: 'inductor/default',
      compile_id: '0/0',
      when: 'first call',
      start_s: 0,
      total_s: 10,
      time: '10 s',
      cache_text: '',
      restart_text: '',
      compile_key: 'inductor/default:0/0:0',
      phases: [
        phase('dynamo', 'whole compile', 10, '10 s'),
        phase('bytecode_tracing', 'Dynamo', 0.6, '600 ms'),
        phase('code_gen', 'code generation and C++/Triton compile', 7.5, '7.5 s'),
        phase('backend_compile', 'AOTAutograd', 9, '9 s'),
        phase('inductor_compile', 'Inductor', 8.2, '8.2 s')
      ]
    };
    expect(largestPhases(row)).toBe('backend_compile 9 s, inductor_compile 8.2 s, code_gen 7.5 s');
    expect(row.phases[0].name).toBe('dynamo');
  });
});
