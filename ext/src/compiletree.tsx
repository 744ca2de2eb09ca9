/**
 * Where compiles started: the compile-site tree (tlparse's stack trie, digest/compiles.py site_rows) as indented
 * frames, each compile that started at a frame a button in its status's colour that opens it, and the legend of the
 * colours in the digest's words.  It lays out the digest's rows and words nothing.
 */

import * as React from 'react';

import { ICompileLink, ISiteRow } from './types';
import * as digest from './generated/digest';

export function CompileLinkButton(props: {
  link: ICompileLink;
  selected: boolean;
  onOpen: (key: string) => void;
}): JSX.Element {
  const { link } = props;
  return (
    <button
      className={`cp-CompileLink cp-status-${link.status}${props.selected ? ' cp-mod-selected' : ''}`}
      title={link.status_text}
      aria-pressed={props.selected}
      onClick={() => props.onOpen(link.key)}
    >
      {link.label}
    </button>
  );
}

export function CompileTree(props: {
  sites: ISiteRow[];
  legend: digest.StatusWord[];
  selected: string | null;
  onOpen: (key: string) => void;
}): JSX.Element | null {
  if (!props.sites.length) {
    return null;
  }
  return (
    <div className="cp-CompileTree">
      <ul className="cp-CompileTree-rows" aria-label="Where compiles started">
        {props.sites.map((row, i) => (
          <li key={i} className="cp-CompileTree-row" style={{ paddingLeft: `${row.depth * 14}px` }}>
            <span className="cp-CompileTree-frame">{row.text}</span>
            {row.code ? <code className="cp-CompileTree-code">{row.code}</code> : null}
            {(row.compiles ?? []).map(link => (
              <CompileLinkButton
                key={link.key}
                link={link}
                selected={link.key === props.selected}
                onOpen={props.onOpen}
              />
            ))}
          </li>
        ))}
      </ul>
      <p className="cp-CompileTree-legend">
        {props.legend.map(w => (
          <span key={w.status} className={`cp-CompileLegend cp-status-${w.status}`}>
            {w.text}
          </span>
        ))}
      </p>
    </div>
  );
}
