export { groupCommit, type GroupCommit, type GroupCommitOptions } from './group-commit';
export { concurrencyPerKey, singleFlightPerKey, turnsPerKey, type SingleFlight } from './per-key';
export { summarizedReport, type SummarizedReport } from './summarized-report';
