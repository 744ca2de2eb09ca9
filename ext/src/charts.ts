/**
 * Drawing run figures with the plotly renderer JupyterLab already has (the
 * `application/vnd.plotly.v1+json` factory that plotly's labextension registers), in the
 * current theme's colours, redrawn when the theme changes.
 */

import { IThemeManager } from '@jupyterlab/apputils';
import { IRenderMimeRegistry, MimeModel } from '@jupyterlab/rendermime';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { distinctColorway, IChartPalette, themedFigure } from './charttheme';
import { IPlotlyFigure, PLOTLY_MIME_TYPE } from './types';

/** Announces theme changes to every chart and code view, once the new theme's CSS is applied. */
export class ThemeWatcher {
  constructor(themeManager: IThemeManager | null) {
    themeManager?.themeChanged.connect(() => {
      // The signal fires as the stylesheet swaps; read the variables on the next frame.
      requestAnimationFrame(() => this._changed.emit(undefined));
    });
    this._themeManager = themeManager;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  get isLight(): boolean {
    const theme = this._themeManager?.theme;
    return theme ? this._themeManager!.isLight(theme) : document.body.dataset.jpThemeLight !== 'false';
  }

  palette(): IChartPalette {
    const style = getComputedStyle(document.body);
    const v = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
    return {
      font: v('--jp-ui-font-color1', this.isLight ? '#212121' : '#e0e0e0'),
      fontFamily: v('--jp-ui-font-family', 'sans-serif'),
      grid: v('--jp-border-color2', '#e0e0e0'),
      line: v('--jp-border-color1', '#bdbdbd'),
      colorway: distinctColorway([
        v('--jp-brand-color1', '#1976d2'),
        v('--jp-warn-color1', '#f57c00'),
        v('--jp-success-color1', '#388e3c'),
        v('--jp-error-color1', '#d32f2f'),
        v('--jp-accent-color1', '#00796b'),
        v('--jp-brand-color3', '#90caf9')
      ])
    };
  }

  private _themeManager: IThemeManager | null;
  private _changed = new Signal<this, void>(this);
}

export class ChartRenderer {
  constructor(
    private readonly _rendermime: IRenderMimeRegistry,
    readonly theme: ThemeWatcher
  ) {}

  /** False when no plotly renderer is installed; callers then say so instead of drawing. */
  get available(): boolean {
    return this._rendermime.mimeTypes.indexOf(PLOTLY_MIME_TYPE) >= 0;
  }

  /**
   * A widget that draws `figure` once `draw()` is called; add it to a parent (or attach it)
   * first, so plotly measures a node that is in the page.  The plotly renderer draws a model
   * once, so a theme change means a fresh widget.
   */
  create(figure: IPlotlyFigure, height?: number): { widget: Widget; draw: () => Promise<void> } {
    if (!this.available) {
      const widget = new Widget();
      widget.node.textContent = 'Charts need the plotly JupyterLab renderer (pip install plotly).';
      return { widget, draw: () => Promise.resolve() };
    }
    const renderer = this._rendermime.createRenderer(PLOTLY_MIME_TYPE);
    renderer.addClass('cp-Chart');
    const stopUntabbing = untabModebar(renderer.node);
    renderer.disposed.connect(stopUntabbing);
    if (height !== undefined) {
      // A resize makes plotly autosize to its node: the node must hold the figure's height.
      renderer.node.style.height = `${height}px`;
    }
    const draw = () => {
      const themed = themedFigure(figure, this.theme.palette(), height);
      return renderer.renderModel(
        new MimeModel({
          data: { [PLOTLY_MIME_TYPE]: themed as unknown as ReadonlyPartialJSONObject },
          trusted: true
        })
      );
    };
    return { widget: renderer, draw };
  }
}

/**
 * Keep an autosized plot as wide as its host: plotly itself only follows window resizes, not a
 * sidebar opening or a panel being dragged wider.  An update request makes the plotly renderer
 * redraw at its node's new size.  Returns the function that stops following.
 */
export function followWidth(widget: Widget, host: HTMLElement): () => void {
  let width = host.clientWidth;
  const observer = new ResizeObserver(() => {
    const now = host.clientWidth;
    if (now > 0 && now !== width) {
      width = now;
      widget.update();
    }
  });
  observer.observe(host);
  return () => observer.disconnect();
}

/**
 * Keep plotly's modebar buttons under `host` out of the Tab order: the modebar is hidden until the pointer is
 * over its chart, and Tab from the detail's tab row landed on its invisible buttons, one chart's after
 * another's (issue 31).  They stay a click away for the pointer that shows them.  plotly draws the modebar
 * anew on every relayout, so each new button is taken out as it comes.  Returns the function that stops it.
 */
export function untabModebar(host: HTMLElement): () => void {
  const apply = () => {
    host.querySelectorAll<HTMLElement>(MODEBAR_FOCUSABLE).forEach(el => {
      if (el.getAttribute('tabindex') !== '-1') {
        el.setAttribute('tabindex', '-1');
      }
    });
  };
  const observer = new MutationObserver(apply);
  observer.observe(host, { childList: true, subtree: true });
  apply();
  return () => observer.disconnect();
}

/** What in plotly's modebar could take focus: its buttons (links) and anything else focusable in it. */
export const MODEBAR_FOCUSABLE = '.modebar a, .modebar button, .modebar [tabindex], .modebar-btn';
