/**
 * The in-cell renderer of `application/vnd.compile-profile.run+json`: a compact card with the
 * headline, a bar chart of the variants, the warnings and a button to open the run in the panel.
 * Built from the output's own data, so it renders after a kernel restart or a page reload.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { ChartRenderer } from './charts';
import { formatS, formatSpeedup, speedupTone } from './format';
import { IRunMimeData, RUN_MIME_TYPE } from './types';

export const OPEN_COMMAND = 'compile-profile:open';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text; // user-controlled text is only ever set as text
  }
  return node;
}

export class RunCard extends Widget implements IRenderMime.IRenderer {
  constructor(
    private readonly _charts: ChartRenderer,
    private readonly _openInPanel: (runId: string) => void
  ) {
    super();
    this.addClass('cp-Card');
    this._charts.theme.changed.connect(this._redrawChart, this);
  }

  dispose(): void {
    this._charts.theme.changed.disconnect(this._redrawChart, this);
    this._chart?.dispose();
    super.dispose();
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[RUN_MIME_TYPE] as unknown as IRunMimeData;
    this._data = data;
    this.node.replaceChildren();
    const summary = data.summary;
    const head = el('div', 'cp-Card-head');
    const tone = speedupTone(summary.speedup);
    const badge = el(
      'span',
      `cp-Badge cp-mod-${tone}`,
      summary.speedup ? formatSpeedup(summary.speedup.value) : summary.status
    );
    badge.title = summary.speedup
      ? `speedup of ${summary.speedup.variant}: ${formatSpeedup(summary.speedup.low)}–${formatSpeedup(summary.speedup.high)} (95% interval)`
      : '';
    head.append(badge, el('span', 'cp-Card-headline', summary.headline));
    this.node.append(head);

    const meta = el('div', 'cp-Card-meta');
    const parts = [
      summary.label || summary.first_line,
      `${summary.device.type}: ${summary.device.name}`,
      summary.compile_s !== null ? `compile ${formatS(summary.compile_s)}` : '',
      `${summary.graph_count} graph${summary.graph_count === 1 ? '' : 's'}, ${summary.kernel_count} kernel${summary.kernel_count === 1 ? '' : 's'}`
    ].filter(Boolean);
    meta.textContent = parts.join(' · ');
    this.node.append(meta);

    if (summary.warnings.length) {
      const list = el('ul', 'cp-Card-warnings');
      for (const warning of summary.warnings) {
        list.append(el('li', 'cp-Card-warning', warning));
      }
      this.node.append(list);
    }

    this._chartHost = el('div', 'cp-Card-chart');
    this.node.append(this._chartHost);

    const actions = el('div', 'cp-Card-actions');
    const open = el('button', 'jp-Button jp-mod-styled jp-mod-accept cp-Card-open', 'Open in panel');
    open.addEventListener('click', () => this._openInPanel(data.run_id));
    actions.append(open);
    this.node.append(actions);
    await this._redrawChart();
  }

  private async _redrawChart(): Promise<void> {
    const figure = this._data?.figures?.variants;
    if (!figure || !this._chartHost) {
      return;
    }
    this._chart?.dispose();
    this._chart = null;
    this._chartHost.replaceChildren();
    this._chart = await this._charts.render(figure, this._chartHost, 220);
  }

  private _data: IRunMimeData | null = null;
  private _chartHost: HTMLElement | null = null;
  private _chart: Widget | null = null;
}

export function runCardFactory(charts: ChartRenderer, openInPanel: (runId: string) => void): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [RUN_MIME_TYPE],
    defaultRank: 0,
    createRenderer: () => new RunCard(charts, openInPanel)
  };
}
