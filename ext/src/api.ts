/** The REST client for the server extension (kernel_side/compile_profile/server/handlers.py). */

import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { IJobTab } from './job';
import { ISuiteComparison, ISuitePage, ISuitesPage } from './suitetypes';
import { ICompileDetail, ICompileIndex, IComparison, IPlotlyFigure, IProfileRun, IRunsPage } from './types';

const API_PATH = 'compile-profile/api';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number
  ) {
    super(message);
  }
}

async function request<T>(path: string, init: RequestInit = {}): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, API_PATH, path);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new ServerConnection.NetworkError(error as TypeError);
  }
  if (response.status === 204) {
    return undefined as T;
  }
  const text = await response.text();
  let body: { message?: string; reason?: string } | null = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = (body && (body.message || body.reason)) || response.statusText;
    throw new ApiError(`${response.status}: ${message}`, response.status);
  }
  return body as T;
}

const enc = encodeURIComponent;

export function listRuns(
  options: { limit?: number; offset?: number; notebook?: string } = {}
): Promise<IRunsPage> {
  const query = URLExt.objectToQueryString({
    limit: String(options.limit ?? 200),
    offset: String(options.offset ?? 0),
    ...(options.notebook ? { notebook: options.notebook } : {})
  });
  return request<IRunsPage>(`runs${query}`);
}

export function getRun(id: string): Promise<IProfileRun> {
  return request<IProfileRun>(`runs/${enc(id)}`);
}

/** The digest's comparison of run `a` (before) with run `b` (after). */
export function getComparison(a: string, b: string): Promise<IComparison> {
  return request<IComparison>(`compare${URLExt.objectToQueryString({ a, b })}`);
}

export function getFigures(id: string): Promise<Record<string, IPlotlyFigure>> {
  return request(`runs/${enc(id)}/figures`);
}

/** A distributed job: its digest (digest/job.py) and its runs' summaries, every key present (job.ts). */
export function fetchJob(id: string): Promise<IJobTab> {
  return request<IJobTab>(`jobs/${enc(id)}`);
}

/** The stored suites over collections of models, newest first (kernel_side/compile_profile/suites/http.py). */
export function listSuites(): Promise<ISuitesPage> {
  return request<ISuitesPage>('suites');
}

/** A suite's digest and its figures, as the notebook's card and the CLI read them. */
export function fetchSuite(id: string): Promise<ISuitePage> {
  return request<ISuitePage>(`suites/${enc(id)}`);
}

/** An older stored suite against this one, as `compile-profile suite-compare OLD NEW` compares them. */
export function fetchSuiteComparison(id: string, oldId: string): Promise<ISuiteComparison> {
  return request<ISuiteComparison>(`suites/${enc(id)}/compare/${enc(oldId)}`);
}

/** Where a suite's self-contained HTML report is served (a download). */
export function suiteReportUrl(id: string): string {
  return URLExt.join(ServerConnection.makeSettings().baseUrl, API_PATH, 'suites', enc(id), 'report');
}

/** Where the job's self-contained HTML report is served (opened in a browser tab). */
export function jobReportUrl(id: string): string {
  return URLExt.join(ServerConnection.makeSettings().baseUrl, API_PATH, 'jobs', enc(id), 'report');
}

/** The run's self-contained HTML report (render/report.py), as the server serves it for download. */
export async function fetchReport(id: string): Promise<Blob> {
  return fetchRunFile(id, 'report');
}

/** The run's failed compile's standalone reproducer script (engine/trace/reproducer.py), for download. */
export async function fetchReproducer(id: string): Promise<Blob> {
  return fetchRunFile(id, 'repro');
}

/** The run's compiles as a Chrome trace for Perfetto (render/perfetto.py), for download. */
export async function fetchPerfetto(id: string): Promise<Blob> {
  return fetchRunFile(id, 'perfetto');
}

/** Every compile of the run and the compile-site tree (digest/compiles.py), when the Compiles tab opens. */
export function getCompileIndex(id: string): Promise<ICompileIndex> {
  return request<ICompileIndex>(`runs/${enc(id)}/compiles`);
}

/** One compile's detail (digest/compile_detail.py), by its key (variant:compile_id:attempt). */
export function getCompileDetail(id: string, key: string): Promise<ICompileDetail> {
  return request<ICompileDetail>(`runs/${enc(id)}/compile${URLExt.objectToQueryString({ key })}`);
}

/** One artifact's text, by its SHA-256: plain text, which the views show as text only. */
export async function getArtifact(id: string, sha256: string): Promise<string> {
  return (await fetchRunFile(id, `artifacts/${enc(sha256)}`)).text();
}

async function fetchRunFile(id: string, what: string): Promise<Blob> {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, API_PATH, 'runs', enc(id), what);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, {}, settings);
  } catch (error) {
    throw new ServerConnection.NetworkError(error as TypeError);
  }
  if (!response.ok) {
    let message = response.statusText;
    try {
      message = (JSON.parse(await response.text()) as { message?: string }).message || message;
    } catch {
      // not JSON: the status text says it
    }
    throw new ApiError(`${response.status}: ${message}`, response.status);
  }
  return response.blob();
}

export function deleteRun(id: string): Promise<void> {
  return request<void>(`runs/${enc(id)}`, { method: 'DELETE' });
}

/** Remove a stored suite and the runs its entries stored (DELETE suites/ID). */
export function deleteSuite(id: string): Promise<void> {
  return request<void>(`suites/${enc(id)}`, { method: 'DELETE' });
}

export async function changeToken(): Promise<number> {
  return (await request<{ token: number }>('changes')).token;
}

/** What POST runs/import-trace answers: the new runs' ids (a job's ranks in rank order) and their jobs' ids. */
export interface IImportTraceResult {
  ids: string[];
  job_ids: string[];
}

/**
 * Read the TORCH_TRACE logs at `path` on the server (a directory or one log; relative to the server's root)
 * into the run store, as `compile-profile import-trace` does. A path with no readable log is an ApiError (400)
 * whose message says what to fix.
 */
export function importTrace(path: string): Promise<unknown> {
  return request<unknown>('runs/import-trace', { method: 'POST', body: JSON.stringify({ path }) });
}
