/**
 * The renderer of `application/vnd.compile-profile.progress+json`: the magic's progress line
 * ("compile_profile [  3.5 s] stage 2 of 7: inductor/default: compiling C++"), whose clock keeps
 * moving between the kernel's updates (a C++ compile sends none for seconds).  The kernel sends the
 * seconds elapsed when it sent the line; the renderer counts on from there with the browser's clock,
 * every half second, so the kernel's and the browser's clocks need not agree.  The same line as
 * `text/plain` beside it serves other frontends.  Text only: the message is set as text, never as HTML.
 */

import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { elapsedSeconds, IProgressData, PROGRESS_MIME_TYPE, progressText, TICK_MS } from './progresstext';

export class ProgressLine extends Widget implements IRenderMime.IRenderer {
  constructor() {
    super({ node: document.createElement('pre') });
    this.addClass('cp-Progress');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this._data = model.data[PROGRESS_MIME_TYPE] as unknown as IProgressData;
    this._received = Date.now();
    this._draw();
    if (this._timer === undefined) {
      this._timer = window.setInterval(() => this._draw(), TICK_MS);
    }
    return Promise.resolve();
  }

  dispose(): void {
    this._stop();
    super.dispose();
  }

  private _stop(): void {
    if (this._timer !== undefined) {
      window.clearInterval(this._timer);
      this._timer = undefined;
    }
  }

  private _draw(): void {
    if (this._data === null || this.isDisposed) {
      this._stop();
      return;
    }
    this.node.textContent = progressText(this._data, elapsedSeconds(this._data, this._received, Date.now()));
  }

  private _data: IProgressData | null = null;
  private _received = 0;
  private _timer: number | undefined = undefined;
}

export { PROGRESS_MIME_TYPE };

export const progressFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [PROGRESS_MIME_TYPE],
  defaultRank: 0,
  createRenderer: () => new ProgressLine()
};
