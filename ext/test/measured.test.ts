/** measured.ts: device peaks, memory ratio, autotune, CUDA-graph skips and roofline in the digest's words. */

import {
  AUTOTUNE_COLUMNS,
  autotuneRows,
  cudagraphSkips,
  devicePeaks,
  figureHeight,
  memoryRatioText,
  rooflineTexts
} from '../src/measured';
import { IAutotuneRow, IMeasured, IRunDigest } from '../src/types';
import { summary } from './fixtures';

const AUTOTUNE: IAutotuneRow = {
  variant: 'inductor/max-autotune',
  op: 'mm',
  shape: '1024x1024x1024',
  choices: 12,
  best: 'triton_mm_3',
  best_ms: 0.0312,
  best_triton: 'triton_mm_3',
  best_triton_ms: 0.0312,
  autotune_s: 4.5,
  text: 'mm 1024x1024x1024: triton_mm_3 won (31.2 µs) of 12 choices; tuning took 4.5 s',
  texts: { best_ms: '31.2 µs', best_triton_ms: '31.2 µs', autotune_s: '4.5 s' }
};

function digest(measured: Partial<IMeasured> | undefined): IRunDigest {
  const m: IMeasured = {
    device_peaks: null,
    memory_ratio: null,
    autotune: [],
    cudagraph_skips: [],
    roofline: [],
    ...measured
  };
  return { ...summary('r', ''), measured: measured === undefined ? undefined : m };
}

describe('devicePeaks and memoryRatioText', () => {
  it("give the digest's sentences", () => {
    const d = digest({
      device_peaks: {
        text: 'peaks: 3,350 GB/s copy, 756 TFLOP/s bf16 matmul',
        method: 'measured this session'
      },
      memory_ratio: { value: 0.5, text: "compiled peaks at 0.50× eager's memory" }
    });
    expect(devicePeaks(d)).toEqual({
      text: 'peaks: 3,350 GB/s copy, 756 TFLOP/s bf16 matmul',
      method: 'measured this session'
    });
    expect(memoryRatioText(d)).toBe("compiled peaks at 0.50× eager's memory");
  });

  it('give nothing when not measured or for an older run', () => {
    expect(devicePeaks(digest({}))).toBeNull();
    expect(memoryRatioText(digest({}))).toBeNull();
    expect(devicePeaks(digest(undefined))).toBeNull();
    expect(memoryRatioText(undefined)).toBeNull();
    expect(devicePeaks(digest({ device_peaks: { text: ' ', method: 'x' } }))).toBeNull();
  });
});

describe('autotuneRows', () => {
  it("keeps the sentence and shows the digest's words for the times", () => {
    expect(autotuneRows(digest({ autotune: [AUTOTUNE] }))).toEqual([
      {
        variant: 'inductor/max-autotune',
        text: AUTOTUNE.text,
        cells: {
          op: 'mm',
          shape: '1024x1024x1024',
          picked: 'triton_mm_3',
          best_ms: '31.2 µs',
          best_triton: 'triton_mm_3',
          best_triton_ms: '31.2 µs',
          choices: '12',
          tune: '4.5 s'
        }
      }
    ]);
    expect(AUTOTUNE_COLUMNS.map(c => c.key)).toEqual(
      Object.keys(autotuneRows(digest({ autotune: [AUTOTUNE] }))[0].cells)
    );
  });

  it('writes "—" where no Triton choice was timed', () => {
    const [row] = autotuneRows(
      digest({
        autotune: [
          {
            ...AUTOTUNE,
            best: 'extern_mm',
            best_triton: '',
            best_triton_ms: null,
            texts: { ...AUTOTUNE.texts, best_triton_ms: '—' }
          }
        ]
      })
    );
    expect(row.cells.best_triton).toBe('—');
    expect(row.cells.best_triton_ms).toBe('—');
    expect(row.cells.picked).toBe('extern_mm');
  });

  it('yields nothing for older runs', () => {
    expect(autotuneRows(digest(undefined))).toEqual([]);
  });
});

describe('cudagraphSkips and rooflineTexts', () => {
  it("list each variant's skip reasons, dropping variants with none", () => {
    const d = digest({
      cudagraph_skips: [
        { variant: 'inductor/reduce-overhead', reasons: ['skipping cudagraphs due to cpu device (arg2_1)'] },
        { variant: 'inductor/max-autotune', reasons: [] }
      ]
    });
    expect(cudagraphSkips(d)).toEqual([
      { variant: 'inductor/reduce-overhead', reasons: ['skipping cudagraphs due to cpu device (arg2_1)'] }
    ]);
    expect(cudagraphSkips(digest(undefined))).toEqual([]);
  });

  it("give each kernel's roofline sentence, skipping empty ones", () => {
    const row = {
      kernel_id: 'k1',
      name: 'triton_poi_fused_add_0',
      variant: 'inductor/default',
      achieved_gbps: 2810,
      bandwidth_share: 0.84,
      achieved_tflops: null,
      compute_share: null
    };
    const d = digest({
      roofline: [
        { ...row, text: '2.81 TB/s, 84% of the copy peak' },
        { ...row, text: '' }
      ]
    });
    expect(rooflineTexts(d)).toEqual([
      {
        kernelId: 'k1',
        name: 'triton_poi_fused_add_0',
        variant: 'inductor/default',
        text: '2.81 TB/s, 84% of the copy peak'
      }
    ]);
    expect(rooflineTexts(digest(undefined))).toEqual([]);
  });
});

describe('figureHeight', () => {
  it("takes the figure's own height, else the fallback", () => {
    expect(figureHeight({ data: [], layout: { height: 186 } }, 300)).toBe(186);
    expect(figureHeight({ data: [] }, 300)).toBe(300);
    expect(figureHeight({ data: [], layout: { height: 'auto' } }, 300)).toBe(300);
    expect(figureHeight(undefined, 300)).toBe(300);
  });
});
