/**
 * One compile's detail (digest/compile_detail.py), loaded when it is opened: its status, failure and restarts, the
 * other attempts of its compile id, its metrics, cache lookups with their keys, symbolic-shape decisions,
 * collectives and tensor metadata, every artifact in the order logged (each opened in CodeMirror, artifactview.tsx)
 * and each output module's linked provenance view (provenanceview.tsx).  It lays out the digest's words.
 */

import * as React from 'react';

import { getCompileDetail } from './api';
import { ArtifactView } from './artifactview';
import { CompileLinkButton } from './compiletree';
import { IDetailServices } from './detailprops';
import { ProvenanceLinked } from './provenanceview';
import { ICompileDetail } from './types';

function useCompileDetail(
  runId: string,
  key: string
): { detail: ICompileDetail | null; error: string | null } {
  const [state, setState] = React.useState<{ detail: ICompileDetail | null; error: string | null }>({
    detail: null,
    error: null
  });
  React.useEffect(() => {
    let cancelled = false;
    setState({ detail: null, error: null });
    getCompileDetail(runId, key)
      .then(detail => !cancelled && setState({ detail, error: null }))
      .catch(error => !cancelled && setState({ detail: null, error: (error as Error).message }));
    return () => {
      cancelled = true;
    };
  }, [runId, key]);
  return state;
}

function Rows(props: { title: string; rows: [string, string][]; className: string }): JSX.Element | null {
  if (!props.rows.length) {
    return null;
  }
  return (
    <>
      <h4>{props.title}</h4>
      <table className={`cp-Table ${props.className}`}>
        <tbody>
          {props.rows.map(([label, value], i) => (
            <tr key={i}>
              <th>{label}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

export function CompileDetailView(props: {
  runId: string;
  compileKey: string;
  services: IDetailServices;
  onOpen: (key: string) => void;
}): JSX.Element {
  const { detail, error } = useCompileDetail(props.runId, props.compileKey);
  const [artifact, setArtifact] = React.useState<string | null>(null);
  const [module, setModule] = React.useState(0);
  React.useEffect(() => {
    setModule(0);
    const code = detail?.artifacts?.find(a => a.name === 'inductor_output_code');
    setArtifact(code ? code.sha256 : (detail?.artifacts?.[0]?.sha256 ?? null));
  }, [detail]);
  if (error) {
    return <p className="cp-Error">Cannot load this compile: {error}</p>;
  }
  if (!detail) {
    return <p className="cp-Loading">Loading the compile…</p>;
  }
  const artifacts = detail.artifacts ?? [];
  const shown = artifacts.find(a => a.sha256 === artifact) ?? null;
  const provenance = detail.provenance ?? [];
  return (
    <div className="cp-CompileDetail" data-compile={detail.link.key}>
      <h3 className={`cp-CompileDetail-title cp-status-${detail.link.status}`}>{detail.title}</h3>
      <p className="cp-CompileDetail-status">{detail.link.status_text}</p>
      {detail.failure_text ? (
        <pre className="cp-Error cp-CompileDetail-failure">{detail.failure_text}</pre>
      ) : null}
      {detail.restarts_text ? <p className="cp-Note">{detail.restarts_text}</p> : null}
      {detail.attempts?.length ? (
        <div className="cp-CompileAttempts" aria-label="Attempts of this compile id">
          <h4>Attempts</h4>
          <ul className="cp-List">
            {detail.attempts.map(a => (
              <li key={a.link.key}>
                <CompileLinkButton link={a.link} selected={a.current} onOpen={props.onOpen} /> {a.text}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="cp-CompileDetail-columns">
        <div>
          <Rows
            title="Compilation metrics"
            className="cp-CompileMetrics"
            rows={(detail.metrics ?? []).map(m => [m.label, m.value])}
          />
          {detail.cache_lookups?.length ? (
            <>
              <h4>Cache lookups</h4>
              <ul className="cp-List cp-CacheLookups">
                {detail.cache_lookups.map((c, i) => (
                  <li key={i}>
                    {c.text}
                    {c.key ? <code className="cp-CacheKey"> {c.key}</code> : null}
                    {c.components_text ? (
                      <button
                        className="jp-Button jp-mod-minimal cp-Link"
                        onClick={() => setArtifact(c.sha256)}
                      >
                        {c.components_text}
                      </button>
                    ) : null}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
        <div>
          {detail.stack?.length ? (
            <>
              <h4>Started from</h4>
              <ol className="cp-CompileStack">
                {detail.stack.map((frame, i) => (
                  <li key={i}>
                    <code>{frame}</code>
                  </li>
                ))}
              </ol>
            </>
          ) : null}
          <Rows
            title="Symbolic shapes"
            className="cp-CompileShapes"
            rows={(detail.shape_facts ?? []).map(f => [f.kind, `${f.text}${f.where ? ` (${f.where})` : ''}`])}
          />
          {detail.collectives_text ? <p>{detail.collectives_text}</p> : null}
          {detail.tensor_meta?.length ? (
            <>
              <h4>Tensor metadata</h4>
              <pre className="cp-CompileTensorMeta">{detail.tensor_meta.join('\n')}</pre>
            </>
          ) : null}
        </div>
      </div>
      {provenance.length ? (
        <>
          <h4>Provenance: source, post-grad graph and output code</h4>
          {provenance.length > 1 ? (
            <select
              className="cp-Select"
              aria-label="output module"
              value={module}
              onChange={e => setModule(Number(e.target.value))}
            >
              {provenance.map((p, i) => (
                <option key={i} value={i}>
                  {p.title}
                </option>
              ))}
            </select>
          ) : null}
          <ProvenanceLinked
            key={`${detail.link.key}/${module}`}
            runId={props.runId}
            view={provenance[module] ?? provenance[0]}
          />
        </>
      ) : null}
      <h4>Artifacts ({detail.artifacts_text})</h4>
      <div className="cp-CompileArtifactsPane">
        <table className="cp-Table cp-CompileArtifacts">
          <tbody>
            {artifacts.map((a, i) => (
              <tr key={i} className={a.sha256 === artifact ? 'cp-mod-selected' : ''}>
                <td>{a.stage}</td>
                <td>
                  <button
                    className="jp-Button jp-mod-minimal cp-Link"
                    onClick={() => setArtifact(a.sha256)}
                    title={`${a.name} · ${a.size_text}`}
                  >
                    {a.label}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {shown ? <ArtifactView runId={props.runId} artifact={shown} services={props.services} /> : null}
      </div>
    </div>
  );
}
