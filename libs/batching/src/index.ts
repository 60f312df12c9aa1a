export { groupCommit, type GroupCommit, type GroupCommitOptions } from './group-commit';
export { sharedRunsPerKey, turnsPerKey, type SharedRuns } from './per-key';
