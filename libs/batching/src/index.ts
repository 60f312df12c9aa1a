export { groupCommit, type GroupCommit, type GroupCommitOptions } from './group-commit';
export { concurrencyPerKey, sharedRunsPerKey, turnsPerKey, type SharedRuns } from './per-key';
export { summarizedReport, type SummarizedReport } from './summarized-report';
