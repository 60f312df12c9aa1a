/** The service's package entry: its module, its wiring and what other packages may use. */
export * from './app';
export { projectLinkCreated } from './links/project-link';
export { linkEventHandler } from './links/link-handler';
export { rebuildLinks, type RebuildOptions, type RebuildResult } from './links/rebuild/rebuild-links';
export { runClickProjector, type ClickProjectorStats } from './clicks/click-projector';
export {
  postgresBatchLedger,
  decideClaim,
  type BatchLedger,
  type Claim,
  type PartitionBatch,
} from './clicks/batch-ledger';
export { clickRows, type ClickRow } from './clicks/click-rows';
export { composeProjector, type ProjectorSettings, type ProjectorStores } from './wiring';
export { projectorConfig, type ProjectorConfig } from './config';
export { insertClickBatch, deduplicationToken } from './clicks/deduplicated-insert';
export { withoutCountedClicks } from './clicks/already-counted';
