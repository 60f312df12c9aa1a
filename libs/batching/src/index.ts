export { groupCommit, type GroupCommit, type GroupCommitOptions } from './group-commit';
