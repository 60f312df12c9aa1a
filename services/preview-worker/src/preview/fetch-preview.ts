import type { EnterHost, FetchedPage, PageFetcher } from '../fetch/fetch-page';
import { PreviewFetchError } from '../fetch/fetch-errors';
import { createHtmlDecoder } from '../parse/decode-html';
import { createPreviewExtractor, type PreviewFields } from '../parse/extract-preview';

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

/** What one attempt at a destination came to: its outcome, or a transient failure to try again after `afterMs`. */
export type PreviewAttempt = PreviewOutcome | { kind: 'retry'; afterMs: number };

/**
 * The `attempt`-th attempt (from 1) at a destination: fetched and read, or
 * failed for good (a permanent failure, or a transient one with no attempt
 * left), or to be tried again after a backoff (the first wait
 * `firstBackoffMs`, each later one three times the one before). Rejects
 * only for what the destination cannot cause (a bug).
 */
export async function attemptPreview(
  url: string,
  attempt: number,
  fetchPage: PageFetcher,
  retry: RetryPolicy,
  enterHost?: EnterHost,
): Promise<PreviewAttempt> {
  try {
    const page = await fetchPage(url, enterHost);
    return { kind: 'fetched', finalUrl: page.finalUrl, ...(await readPreview(page)) };
  } catch (err) {
    if (!(err instanceof PreviewFetchError)) throw err;
    if (err.transient && attempt < retry.maxAttempts) {
      return { kind: 'retry', afterMs: retry.firstBackoffMs * 3 ** (attempt - 1) };
    }
    const tries = attempt > 1 ? ` (after ${attempt} attempts)` : '';
    const reason = `${err.code}: ${err.message}${tries}`.slice(0, 500);
    return { kind: 'failed', code: err.code, reason, attempts: attempt };
  }
}

/**
 * A page's preview fields, read as the page arrives: a piece of it is
 * decoded, parsed and dropped, so a page being read holds the worker's memory
 * for what the fields keep, not for its size. Reading stops, and with it the
 * download, once the parser stops.
 */
async function readPreview(page: FetchedPage): Promise<PreviewFields> {
  const decoder = createHtmlDecoder(page.contentType);
  const extractor = createPreviewExtractor(page.finalUrl);
  let reading = true;
  for await (const chunk of page.body) {
    reading = extractor.write(decoder.write(chunk));
    if (!reading) break;
  }
  if (reading) extractor.write(decoder.end());
  return extractor.end();
}

/**
 * Fetches and reads one destination. Transient failures (timeouts, refused
 * connections, 5xx, 429) are tried again with backoff, a bounded number of
 * times; a permanent one (a refused address, 404, not HTML) ends it at once.
 * Never throws for anything the destination does: every end is an outcome.
 */
export async function fetchPreview(url: string, deps: FetchPreviewDeps): Promise<PreviewOutcome> {
  for (let attempt = 1; ; attempt++) {
    const result = await attemptPreview(url, attempt, deps.fetchPage, deps.retry);
    if (result.kind !== 'retry') return result;
    await deps.sleep(result.afterMs);
  }
}
