/** A React host for one run figure, redrawn in the new colours when the theme changes. */

import { MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import * as React from 'react';

import { ChartRenderer, followWidth } from './charts';
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
    const chart = props.charts.create(props.figure, props.height);
    let widget: Widget | null = chart.widget;
    let stopFollowing = () => {};
    if (el.isConnected) {
      Widget.attach(widget, el);
      void chart.draw();
      stopFollowing = followWidth(widget, el);
    }
    return () => {
      stopFollowing();
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
