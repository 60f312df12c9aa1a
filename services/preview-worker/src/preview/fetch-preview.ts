import type { PageFetcher } from '../fetch/fetch-page';
import { PreviewFetchError } from '../fetch/fetch-errors';
import { decodeHtml } from '../parse/decode-html';
import { extractPreview, type PreviewFields } from '../parse/extract-preview';

export type PreviewOutcome =
  | ({ kind: 'fetched'; finalUrl: string } & PreviewFields)
  /** `code` is the failure's stable code (see fetch-errors.ts); `reason` the text recorded with the link. */
  | { kind: 'failed'; code: string; reason: string; attempts: number };

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Wait before the second attempt; each later wait is three times the one before. */
  firstBackoffMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 3, firstBackoffMs: 1000 };

export interface FetchPreviewDeps {
  fetchPage: PageFetcher;
  retry: RetryPolicy;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Fetches and reads one destination. Transient failures (timeouts, refused
 * connections, 5xx, 429) are tried again with backoff, a bounded number of
 * times; a permanent one (a refused address, 404, not HTML) ends it at once.
 * Never throws for anything the destination does: every end is an outcome.
 */
export async function fetchPreview(url: string, deps: FetchPreviewDeps): Promise<PreviewOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      const page = await deps.fetchPage(url);
      const html = decodeHtml(page.body, page.contentType);
      return { kind: 'fetched', finalUrl: page.finalUrl, ...extractPreview(html, page.finalUrl) };
    } catch (err) {
      if (!(err instanceof PreviewFetchError)) throw err;
      if (!err.transient || attempt >= deps.retry.maxAttempts) {
        const tries = attempt > 1 ? ` (after ${attempt} attempts)` : '';
        const reason = `${err.code}: ${err.message}${tries}`.slice(0, 500);
        return { kind: 'failed', code: err.code, reason, attempts: attempt };
      }
      await deps.sleep(deps.retry.firstBackoffMs * 3 ** (attempt - 1));
    }
  }
}
