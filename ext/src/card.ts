/**
 * The in-cell renderer of `application/vnd.compile-profile.run+json`: a compact card with the
 * headline, under it the answer first: the digest's diagnosis (what costs the compiled cell time,
 * its first causes with their cost and what to do, diagnosis.ts) and the --sweep recommendation
 * with its torch.compile call to copy; then the verdict (why compiled is faster or slower) and
 * payback sentences when the run has them, a bar chart of the variants (none where no variant was timed), the warnings, the lines the profile logged to
 * stderr folded under their count (the magic keeps them out of the cell's output), an "Open"
 * button that opens the run's detail in a main-area tab beside the notebook, and for a failed compile or
 * results that differ a "Bisect" button (the cell again with --bisect; the digest's bisect_offer).  Built from the output's own data, so it renders after a kernel restart or a page
 * reload; an output saved before the verdict and payback existed shows neither.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Message } from '@lumino/messaging';
import { Clipboard } from '@jupyterlab/apputils';
import { Panel, Widget } from '@lumino/widgets';

import { paybackText, verdictText } from './breakdown';
import { ChartRenderer, followWidth } from './charts';
import { cardDiagnosis, moreText, recommendationOf } from './diagnosis';
import { IRecommendation, IRunMimeData, IRunSummary, RUN_MIME_TYPE } from './types';
import { meaninglessSpeedup, notComparedText, speedupTone, verdictBadge } from './verdict';

export const OPEN_COMMAND = 'compile-profile:open';
export const BISECT_COMMAND = 'compile-profile:bisect';

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text; // user-controlled text is only ever set as text
  }
  return node;
}

export class RunCard extends Panel implements IRenderMime.IRenderer {
  constructor(
    private readonly _charts: ChartRenderer,
    private readonly _openRun: (runId: string) => void,
    private readonly _bisectRun: (runId: string) => void = () => undefined
  ) {
    super();
    this.addClass('cp-Card');
    this._charts.theme.changed.connect(this._drawChart, this);
  }

  dispose(): void {
    this._charts.theme.changed.disconnect(this._drawChart, this);
    this._stopFollowing();
    super.dispose();
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    // A notebook's saved output: written by this release or an older one (which lacks the keys added since,
    // optional in the type) or edited by hand, so what the card shows beyond the required keys is read with a
    // check (the logs here; the verdict and payback sentences, breakdown.ts).
    const data = model.data[RUN_MIME_TYPE] as unknown as IRunMimeData;
    this._data = data;
    this.node.dataset.runId = data.run_id;
    while (this.widgets.length) {
      this.widgets[0].dispose();
    }
    this._chart = null;
    this.addWidget(this._summaryWidget(data));
    const actions = new Widget({ node: el('div', 'cp-Card-actions') });
    const open = el('button', 'jp-Button jp-mod-styled jp-mod-accept cp-Card-open', 'Open');
    open.title = 'Open this run in a tab beside the notebook';
    open.addEventListener('click', () => this._openRun(data.run_id));
    actions.node.append(open);
    if (data.summary.bisect_offer) {
      // a failed compile or results that differ: what --bisect would find, said on the button
      const bisect = el('button', 'jp-Button jp-mod-minimal cp-Action cp-Card-bisect', 'Bisect');
      bisect.title = `${data.summary.bisect_offer} (--bisect is added to the cell's %%compile_profile line)`;
      bisect.addEventListener('click', () => this._bisectRun(data.run_id));
      actions.node.append(bisect);
    }
    this.addWidget(actions);
    if (this.isAttached) {
      await this._drawChart();
    }
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    if (!this._chart) {
      void this._drawChart();
    }
  }

  private _summaryWidget(data: IRunMimeData): Widget {
    const summary = data.summary;
    const node = el('div', 'cp-Card-summary');
    const head = el('div', 'cp-Card-head');
    // The digest's verdict leads (verdict.ts): "results differ" or "ran eagerly" where it overrides the speedup,
    // which the headline then gives after it, marked "(not meaningful)", and the badge's title says why; else the
    // speedup itself.
    const badge = el('span', `cp-Badge cp-mod-${speedupTone(summary)}`, verdictBadge(summary));
    const meaningless = meaninglessSpeedup(summary);
    badge.title = meaningless
      ? `${meaningless} (${summary.speedup?.variant ?? ''})`
      : summary.speedup
        ? `speedup of ${summary.speedup.variant}: ${summary.speedup.interval_text ?? summary.speedup.phrase}`
        : '';
    head.append(badge, el('span', 'cp-Card-headline', summary.headline));
    node.append(head);
    const diagnosis = this._diagnosisNode(summary, data.run_id);
    if (diagnosis) {
      node.append(diagnosis);
    }
    const recommendation = recommendationOf(summary);
    if (recommendation) {
      node.append(recommendationNode(recommendation, 'cp-Card-recommendation'));
    }
    const verdict = verdictText(summary);
    if (verdict) {
      node.append(el('div', 'cp-Card-verdict cp-Verdict', verdict));
    }
    const payback = paybackText(summary);
    if (payback) {
      node.append(el('div', 'cp-Card-payback cp-Payback', payback));
    }
    const notCompared = notComparedText(summary);
    if (notCompared) {
      node.append(el('div', 'cp-Card-correctness', notCompared));
    }

    const parts = [
      summary.label || summary.first_line,
      // a summary saved before the digest worded these (device_text, compile_time) shows what it has
      summary.device_text ?? summary.device.type,
      summary.compile_s !== null && summary.compile_time ? `compile ${summary.compile_time}` : '',
      `${summary.graph_count} graph${summary.graph_count === 1 ? '' : 's'}, ${summary.kernel_text ?? `${summary.kernel_count} kernel${summary.kernel_count === 1 ? '' : 's'}`}`
    ].filter(Boolean);
    node.append(el('div', 'cp-Card-meta', parts.join(' · ')));

    if (summary.warnings.length) {
      const list = el('ul', 'cp-Card-warnings');
      for (const warning of summary.warnings) {
        list.append(el('li', 'cp-Card-warning', warning));
      }
      node.append(list);
    }
    const logs = Array.isArray(data.logs) ? data.logs.filter(line => typeof line === 'string') : [];
    if (logs.length) {
      const fold = el('details', 'cp-Card-logs');
      fold.append(
        el('summary', 'cp-Card-logsSummary', data.logs_text || `${logs.length} lines logged while profiling`),
        el('pre', 'cp-Card-logLines', logs.join('\n'))
      );
      node.append(fold);
    }
    return new Widget({ node });
  }

  /**
   * The digest's heading and first causes, each its title, its cost in bold and what to do, muted;
   * "… N more in the detail" opens the detail, which lists them all.  A cause's cell line is in its
   * title: the card, rendered from its output alone, has no cell to jump to.
   */
  private _diagnosisNode(summary: IRunSummary, runId: string): HTMLElement | null {
    const d = cardDiagnosis(summary);
    if (!d) {
      return null;
    }
    const node = el('div', 'cp-Card-diagnosis cp-Diagnosis');
    if (d.heading) {
      node.append(el('div', 'cp-Diagnosis-heading', d.heading));
    }
    const list = el('ol', 'cp-Diagnosis-list');
    for (const cause of d.shown) {
      const item = el('li', 'cp-Cause');
      item.dataset.kind = cause.kind;
      item.append(el('span', 'cp-Cause-title', cause.title), document.createTextNode(': '));
      item.append(el('strong', 'cp-Cause-cost', cause.cost_text));
      if (cause.action) {
        item.append(el('div', 'cp-Cause-action', cause.action));
      }
      list.append(item);
    }
    node.append(list);
    if (d.more) {
      const more = el('button', 'cp-Diagnosis-more cp-LinkButton', moreText(d.more));
      more.title = 'Open this run in a tab beside the notebook: its Overview lists every cause';
      more.addEventListener('click', () => this._openRun(runId));
      node.append(more);
    }
    return node;
  }

  /**
   * (Re)draw the variants chart between the summary and the actions, in the current theme; none where no variant
   * was timed (eager or the compile failed): that figure is only its message, "no variant was timed"
   * (render/charts.py _empty), which the headline and the errors already say, and it took 220 px of blank.
   */
  private async _drawChart(): Promise<void> {
    const figure = this._data?.figures?.variants;
    if (!figure || !figure.data?.length || this.isDisposed) {
      return;
    }
    this._chart?.dispose();
    this._stopFollowing();
    const chart = this._charts.create(figure, 220);
    chart.widget.addClass('cp-Card-chart');
    this._chart = chart.widget;
    this.insertWidget(1, chart.widget);
    this._stopFollowing = followWidth(chart.widget, this.node);
    await chart.draw();
  }

  private _data: IRunMimeData | null = null;
  private _chart: Widget | null = null;
  private _stopFollowing: () => void = () => {};
}

/**
 * The --sweep recommendation: the digest's sentence, and its torch.compile call in code with a Copy
 * button that puts exactly that call on the clipboard.
 */
export function recommendationNode(r: IRecommendation, className: string): HTMLElement {
  const node = el('div', `${className} cp-Recommendation`);
  if (r.text) {
    node.append(el('div', 'cp-Recommendation-text', r.text));
  }
  const row = el('div', 'cp-Recommendation-call');
  const copy = el('button', 'jp-Button jp-mod-minimal cp-Action cp-Recommendation-copy', 'Copy');
  copy.title = 'Copy this torch.compile call';
  copy.addEventListener('click', () => {
    Clipboard.copyToSystem(r.call);
    copy.textContent = 'Copied';
    window.setTimeout(() => (copy.textContent = 'Copy'), 1500);
  });
  row.append(el('code', 'cp-Recommendation-code', r.call), copy);
  node.append(row);
  return node;
}

export function runCardFactory(
  charts: ChartRenderer,
  openRun: (runId: string) => void,
  bisectRun: (runId: string) => void = () => undefined
): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [RUN_MIME_TYPE],
    defaultRank: 0,
    createRenderer: () => new RunCard(charts, openRun, bisectRun)
  };
}
