/** What every tab of a run's detail is given: the run, its figures and the services it calls. */

import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { ChartRenderer } from './charts';
import { IPlotlyFigure, IProfileRun } from './types';

export interface IDetailServices {
  charts: ChartRenderer;
  languages: IEditorLanguageRegistry;
  revealLine: (run: IProfileRun, line: number | null) => Promise<boolean>;
}

export interface ITabProps {
  run: IProfileRun;
  figures: Record<string, IPlotlyFigure> | null;
  services: IDetailServices;
}
