/** What every tab of a run's detail is given: the run, its figures and the services it calls. */

import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { ChartRenderer } from './charts';
import { IRerunResult } from './navigate';
import { IPlotlyFigure, IProfileRun } from './types';

export interface IDetailServices {
  charts: ChartRenderer;
  languages: IEditorLanguageRegistry;
  revealLine: (run: IProfileRun, line: number | null) => Promise<boolean>;
  /** run the run's cell again in its notebook, or say why not */
  /** Run the run's cell again in its notebook; `option` ("--bisect") added to its %%compile_profile line. */
  rerun: (run: IProfileRun, option?: string) => Promise<IRerunResult>;
}

export interface ITabProps {
  run: IProfileRun;
  figures: Record<string, IPlotlyFigure> | null;
  services: IDetailServices;
  /** the compile open in the Compiles tab (its key, digest/compiles.py), or null for the first */
  compileKey?: string | null;
  /** open a compile in the Compiles tab */
  onCompile?: (key: string) => void;
}
