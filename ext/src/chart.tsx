/**
 * A React host for one run figure, redrawn in the new colours when the theme changes; its title says
 * what the chart shows on hover (tooltips.ts CHART_TIPS).
 */

import { MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import * as React from 'react';

import { ChartRenderer, followWidth } from './charts';
import { CHART_TIPS, tip } from './tooltips';
import { IPlotlyFigure } from './types';

export function Chart(props: {
  figure: IPlotlyFigure | undefined;
  charts: ChartRenderer;
  height?: number;
  name: string;
}): JSX.Element {
  const host = React.useRef<HTMLDivElement>(null);
  const [themeVersion, setThemeVersion] = React.useState(0);
  React.useEffect(() => {
    const bump = () => setThemeVersion(v => v + 1);
    props.charts.theme.changed.connect(bump);
    return () => {
      props.charts.theme.changed.disconnect(bump);
    };
  }, [props.charts]);
  React.useEffect(() => {
    const el = host.current;
    if (!el || !props.figure) {
      return;
    }
    // A figure with no data is a message (render/charts.py _empty): its own height, not a chart's.
    const empty = !props.figure.data?.length;
    const chart = props.charts.create(props.figure, empty ? undefined : props.height);
    let widget: Widget | null = chart.widget;
    let stopFollowing = () => {};
    const stopTitling = titleTip(el, tip(CHART_TIPS, props.name));
    if (el.isConnected) {
      Widget.attach(widget, el);
      void chart.draw();
      stopFollowing = followWidth(widget, el);
    }
    return () => {
      stopFollowing();
      stopTitling();
      // React may already have taken the host out of the page, where Widget.detach would throw.
      if (widget && widget.isAttached) {
        MessageLoop.sendMessage(widget, Widget.Msg.BeforeDetach);
        widget.node.remove();
        MessageLoop.sendMessage(widget, Widget.Msg.AfterDetach);
      }
      widget?.dispose();
      widget = null;
      el.replaceChildren();
    };
  }, [props.figure, props.height, themeVersion]);
  // Distinct keys: React must not reuse the host div (whose children the chart owns and the cleanup
  // clears) for the "missing" text, as it did when the panel switched runs on the Overview, while the
  // next run's figures were loading: the cleanup then removed React's text node and the panel crashed
  // ("Failed to execute 'removeChild' on 'Node'").
  if (!props.figure) {
    return (
      <div key="missing" className="cp-Chart-missing">
        No {props.name} chart for this run.
      </div>
    );
  }
  return <div key="host" className="cp-ChartHost" data-chart={props.name} ref={host} />;
}

/**
 * Give the plotly title in `host` a hover text: an SVG <title> in its text element, which takes pointer
 * events for it (plotly's layers take none).  plotly redraws the title on every relayout (a resize, a
 * theme), so it is put back whenever the chart's nodes change.  Returns the function that stops it.
 */
function titleTip(host: HTMLElement, text: string): () => void {
  if (!text) {
    return () => {};
  }
  const apply = () => {
    const title = host.querySelector<SVGTextElement>('.gtitle');
    if (!title || title.querySelector('title')) {
      return;
    }
    const tooltip = document.createElementNS('http://www.w3.org/2000/svg', 'title');
    tooltip.textContent = text;
    title.appendChild(tooltip);
    title.style.pointerEvents = 'all';
    title.style.cursor = 'help';
    title.dataset.tip = text;
  };
  const observer = new MutationObserver(apply);
  observer.observe(host, { childList: true, subtree: true });
  apply();
  return () => observer.disconnect();
}
