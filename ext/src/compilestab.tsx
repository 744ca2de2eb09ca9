/**
 * A run's Compiles tab: every compile by compile id and attempt (digest/compiles.py, loaded when the tab opens), the
 * compile-site tree with each compile in its status's colour (compiletree.tsx), the list of compiles, and the one
 * chosen opened beside them (compiledetail.tsx).  The compile chosen is the detail's (RunDetailModel.compileKey):
 * the Compile tab's timeline opens one here.  It lays out the digest's words.
 */

import * as React from 'react';

import { getCompileIndex } from './api';
import { CompileDetailView } from './compiledetail';
import { CompileLinkButton, CompileTree } from './compiletree';
import { ITabProps } from './detailprops';
import { PerfettoButton } from './perfetto';
import { ICompileIndex } from './types';

export function Compiles(props: ITabProps): JSX.Element {
  const { run, services } = props;
  const [index, setIndex] = React.useState<ICompileIndex | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  React.useEffect(() => {
    let cancelled = false;
    getCompileIndex(run.id)
      .then(found => !cancelled && setIndex(found))
      .catch(e => !cancelled && setError((e as Error).message));
    return () => {
      cancelled = true;
    };
  }, [run.id]);
  if (error) {
    return <p className="cp-Error">Cannot load the compiles: {error}</p>;
  }
  if (!index) {
    return <p className="cp-Loading">Loading the compiles…</p>;
  }
  const rows = index.rows ?? [];
  const kept = rows.filter(r => r.compile_id);
  const chosen = rows.find(r => r.link.key === props.compileKey)?.link.key ?? kept[0]?.link.key ?? null;
  const open = (key: string) => props.onCompile?.(key);
  return (
    <div className="cp-Compiles">
      <div className="cp-Compiles-head">
        <p className="cp-Compiles-text">{index.text}</p>
        <PerfettoButton run={run} text={index.perfetto_text} />
      </div>
      <div className="cp-Compiles-columns">
        <div className="cp-Compiles-side">
          <h4>Where compiles started</h4>
          <CompileTree
            sites={index.sites ?? []}
            legend={index.legend ?? []}
            selected={chosen}
            onOpen={open}
          />
          <h4>Every compile</h4>
          <ul className="cp-CompileList" aria-label="Compiles">
            {rows.map(r => (
              <li key={r.link.key}>
                <CompileLinkButton link={r.link} selected={r.link.key === chosen} onOpen={open} />
                <span className="cp-CompileList-frame">{r.frame}</span>
                <span className="cp-CompileList-facts">
                  {r.time} · {r.artifacts_text}
                  {r.cache_text ? ` · ${r.cache_text}` : ''}
                </span>
              </li>
            ))}
          </ul>
        </div>
        <div className="cp-Compiles-main">
          {chosen ? (
            <CompileDetailView runId={run.id} compileKey={chosen} services={services} onOpen={open} />
          ) : (
            <p className="cp-Empty">{index.text}</p>
          )}
        </div>
      </div>
    </div>
  );
}
