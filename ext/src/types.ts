/**
 * The JSON shapes the panel reads: a ProfileRun dict (kernel_side/compile_profile/profile_run/),
 * the digest (kernel_side/compile_profile/digest/: its dataclasses, whose roots digest/contract.py lists)
 * and the MIME bundle data and REST pages that carry it.  Every shape is generated (ext/src/generated/,
 * `make contract`) from the JSON Schemas the Python dataclasses generate, so a field renamed or added in
 * Python reaches these types or fails `make lint`; this module only names them as the rest of ext/src does.
 * Every figure and sentence comes from the digest: the frontend lays them out.
 *
 * Optional fields are those an older run file, or a card's summary saved in a notebook by an older
 * release, may lack (the Python side: a run's dataclass field with a default, a digest field declared
 * `field(metadata=ADDED_LATER)`); a view shows nothing in their place.  What this release's server sends
 * (GET runs/<id>, jobs/<id>, compare) it derives when asked, so the types hold and nothing is checked at run
 * time; what a notebook saved (the card's MIME data) is checked where it is read (card.ts, breakdown.ts).
 */

import * as digest from './generated/digest';
import * as run from './generated/profile_run';

export const RUN_MIME_TYPE = 'application/vnd.compile-profile.run+json';
export const PLOTLY_MIME_TYPE = 'application/vnd.plotly.v1+json';

/** `T` with the keys `K` present. */
type Present<T, K extends keyof T> = Omit<T, K> & Required<Pick<T, K>>;

// -- a run, as stored (profile_run/) ----------------------------------------------------------------

export type ITiming = run.Timing;
export type IVariant = run.Variant;
export type ISpeedup = run.Speedup;
export type IGraph = run.Graph;
export type IGraphBreak = run.GraphBreak;
export type IRecompile = run.Recompile;
export type IKernel = run.Kernel;
export type KernelLanguage = run.Kernel['language'];

// The schema lets a run file leave out any field with a default (the loader fills it in), but to_dict has
// written every one of these since the first release, so every stored run has them and the panel reads them
// without a fallback.
export type ICacheStats = Present<
  run.CacheStats,
  'fx_graph_hits' | 'fx_graph_misses' | 'aot_autograd_hits' | 'aot_autograd_misses' | 'state'
>;

export type IProfileRun = Omit<
  Present<
    run.ProfileRun,
    | 'variants'
    | 'speedup'
    | 'graphs'
    | 'graph_breaks'
    | 'recompiles'
    | 'kernels'
    | 'compile_phases'
    | 'correctness'
    | 'errors'
    | 'status'
    | 'notebook'
  >,
  'cache'
> & {
  cache: ICacheStats;
  /** digest/summary.py run_digest(run), added by the server: the figures and words every view shows */
  summary?: IRunDigest;
};

// -- the digest (digest/*.py dataclasses; digest/contract.py lists the roots) -----------------------------

export type IBreakGroup = digest.BreakGroup;
export type ICause = digest.Cause;
export type IRecommendation = digest.RecommendationSummary;
export type IVariantRow = digest.VariantRow;
export type ISpeedupSummary = digest.SpeedupSummary;
export type IOutcome = digest.Outcome;
export type IBreakdownRow = digest.BreakdownRow;
export type IPassJudgment = digest.PassJudgment;
export type IBreakdownColumnSummary = digest.BreakdownColumn;
export type IPayback = digest.Payback;
export type IRunSummary = digest.RunSummary;
export type IDistributedSummary = digest.DistributedSummary;
export type ILineRow = digest.LineRow;
export type ILineTimes = digest.LineTimes;
export type IGuardGroup = digest.GuardGroup;
export type IGraphGuards = digest.GraphGuards;
export type IRecompileRow = digest.RecompileRow;
export type IAutotuneRow = digest.AutotuneRow;
export type ICudagraphSkip = digest.CudagraphSkip;
export type IRooflineRow = digest.RooflineRow;
export type IKernelCells = digest.KernelCells;
export type IMeasured = digest.Measured;
export type IRunDigest = digest.RunDigest;
export type ICompileTimelineRow = digest.CompileTimelineRow;
export type IRunRef = digest.RunRef;
export type IDelta = digest.Delta;
export type IKernelCount = digest.KernelCount;
export type IComparison = digest.Comparison;
export type IJobRow = digest.JobRow;
export type IJobDivergence = digest.JobDivergence;
export type ICompileSpread = digest.CompileSpread;
export type IJobDigest = digest.JobDigest;
export type ICompileIndex = digest.CompileIndex;
export type ICompileRow = digest.CompileRow;
export type ICompileLink = digest.CompileLink;
export type ISiteRow = digest.SiteRow;
export type ICompileDetail = digest.CompileDetail;
export type IArtifactRow = digest.ArtifactRow;
export type IProvenanceView = digest.ProvenanceView;
export type IProvenanceGroup = digest.ProvenanceGroup;

// -- what carries it: the MIME bundle (render/mime.py) and the REST API (server/handlers.py) --------------

export type IRunMimeData = digest.RunMimeData;
export type IPlotlyFigure = digest.PlotlyFigure;
export type IRunsPage = digest.RunsPage;
export type IJobPage = digest.JobPage;
