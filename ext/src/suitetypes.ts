/**
 * The suite's JSON shapes (kernel_side/compile_profile/suites/: a suite over a collection of models), generated
 * from schema/suite.schema.json (`make contract`); this module only names them as the rest of ext/src does.
 */

import * as suite from './generated/suite';

export const SUITE_MIME_TYPE = 'application/vnd.compile-profile.suite+json';

export type ISuiteDigest = suite.SuiteDigest;
export type ISuiteRow = suite.SuiteRow;
export type ISuiteListRow = suite.SuiteListRow;
export type ISuiteComparison = suite.SuiteComparison;
export type IComparisonRow = suite.ComparisonRow;
export type ISuitesPage = suite.SuitesPage;
export type ISuitePage = suite.SuitePage;

/** What the notebook's card carries (suites/views.py mime_payload): a suite page with a version. */
export interface ISuiteMimeData extends ISuitePage {
  version: number;
}
