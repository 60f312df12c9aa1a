/** The service's package entry: its module, its wiring and what other packages may use. */
export * from './app';
export { createPageFetcher, DEFAULT_FETCH_POLICY, type FetchPolicy, type PageFetcher } from './fetch/fetch-page';
export { PreviewFetchError } from './fetch/fetch-errors';
export { extractPreview } from './parse/extract-preview';
export { decodeHtml } from './parse/decode-html';
export { fetchPreview, DEFAULT_RETRY_POLICY, type PreviewOutcome, type RetryPolicy } from './preview/fetch-preview';
export { previewEnv, previewWorkerConfig, type PreviewWorkerConfig } from './config';
export {
  composePreviewWorker,
  type PreviewWorkerSettings,
  type PreviewWorkerStores,
  type PreviewWorkerSeams,
} from './wiring';
