/**
 * One artifact of a compile, loaded from the server when it is opened (GET runs/<id>/artifacts/<sha256>, never part
 * of the run's JSON) and shown read-only with CodeMirror's highlighting (codeview.tsx: text nodes only, so a trace's
 * text never becomes markup).  `useArtifact` is the one loader: the provenance view reads its texts through it too.
 */

import * as React from 'react';

import { getArtifact } from './api';
import { CodeView } from './codeview';
import { IDetailServices } from './detailprops';
import { IArtifactRow } from './types';

const KEPT = 24; // texts kept in memory, the last opened (a hash names one text for good)
const texts = new Map<string, string>();

/** The text of artifact `sha256` of run `runId`, or an error message; null while it loads. */
export function useArtifact(runId: string, sha256: string): { text: string | null; error: string | null } {
  const key = `${runId}/${sha256}`;
  const [state, setState] = React.useState<{ text: string | null; error: string | null }>({
    text: texts.get(key) ?? null,
    error: null
  });
  React.useEffect(() => {
    if (!sha256) {
      setState({ text: null, error: 'not logged' });
      return;
    }
    const known = texts.get(key);
    if (known !== undefined) {
      setState({ text: known, error: null });
      return;
    }
    let cancelled = false;
    setState({ text: null, error: null });
    getArtifact(runId, sha256)
      .then(text => {
        texts.set(key, text);
        while (texts.size > KEPT) {
          texts.delete(texts.keys().next().value as string);
        }
        if (!cancelled) {
          setState({ text, error: null });
        }
      })
      .catch(error => {
        if (!cancelled) {
          setState({ text: null, error: `Cannot load it: ${(error as Error).message}` });
        }
      });
    return () => {
      cancelled = true;
    };
  }, [key]);
  return state;
}

export function ArtifactView(props: {
  runId: string;
  artifact: IArtifactRow;
  services: IDetailServices;
}): JSX.Element {
  const { artifact } = props;
  const { text, error } = useArtifact(props.runId, artifact.sha256);
  if (error) {
    return <p className="cp-Error">{error}</p>;
  }
  if (text === null) {
    return <p className="cp-Loading">Loading {artifact.label}…</p>;
  }
  return (
    <CodeView
      code={text}
      language={artifact.language || 'Plain Text'}
      languages={props.services.languages}
      label={`${artifact.label} · ${artifact.size_text}`}
    />
  );
}
