/**
 * Read-only, syntax-highlighted source (kernels, FX graphs) through JupyterLab's own CodeMirror
 * language registry: its highlighter emits text nodes only, so user code never becomes markup.
 */

import { Clipboard } from '@jupyterlab/apputils';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import * as React from 'react';

export interface ICodeViewProps {
  code: string;
  /** A CodeMirror language name: 'Python' or 'C++'. */
  language: string;
  languages: IEditorLanguageRegistry;
  label?: string;
}

export function CodeView(props: ICodeViewProps): JSX.Element {
  const ref = React.useRef<HTMLElement>(null);
  const [copied, setCopied] = React.useState(false);
  React.useEffect(() => {
    const el = ref.current;
    if (!el) {
      return;
    }
    let cancelled = false;
    el.textContent = props.code; // plain text at once; highlighted when the language has loaded
    const spec = props.languages.findByName(props.language);
    if (spec) {
      const target = document.createElement('code');
      void props.languages.highlight(props.code, spec, target).then(() => {
        if (!cancelled && ref.current === el) {
          el.replaceChildren(...Array.from(target.childNodes));
        }
      });
    }
    return () => {
      cancelled = true;
    };
  }, [props.code, props.language]);
  return (
    <div className="cp-CodeView">
      <div className="cp-CodeView-bar">
        <span className="cp-CodeView-label">{props.label ?? ''}</span>
        <span className="cp-CodeView-lang">{props.language}</span>
        <button
          className="jp-Button jp-mod-minimal cp-CodeView-copy"
          title="Copy the source"
          onClick={() => {
            Clipboard.copyToSystem(props.code);
            setCopied(true);
            window.setTimeout(() => setCopied(false), 1500);
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <pre className="cp-CodeView-source cm-s-jupyter" data-language={props.language}>
        <code ref={ref} />
      </pre>
    </div>
  );
}
