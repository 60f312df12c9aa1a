import { isBlockedAddressError } from '@shortlink/public-network';

/**
 * Why a preview could not be fetched. `code` is short and stable (it ends up in
 * the `LinkPreviewFailed` reason); `transient` says whether asking again later
 * might succeed.
 */
export class PreviewFetchError extends Error {
  constructor(
    readonly code: string,
    readonly transient: boolean,
    detail: string,
  ) {
    super(detail);
    this.name = 'PreviewFetchError';
  }
}

/** Connection-level failures that a later attempt may not meet. */
const TRANSIENT_CODES = new Set([
  'EAI_AGAIN',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
]);

export function classifyError(err: unknown, signal: AbortSignal): PreviewFetchError {
  if (err instanceof PreviewFetchError) return err;
  if (signal.aborted) return new PreviewFetchError('timeout', true, 'the page did not arrive in time');
  const error = err as NodeJS.ErrnoException;
  const message = String(error?.message ?? err);
  if (isBlockedAddressError(err)) {
    return new PreviewFetchError('blocked_address', false, 'the destination resolves to a non-public address');
  }
  const code = error?.code ?? '';
  if (code === 'ENOTFOUND') return new PreviewFetchError('dns_not_found', false, 'the host name does not resolve');
  // The name servers did not answer, failed or refused (@shortlink/public-network): asked again later.
  if (error?.syscall === 'query') return new PreviewFetchError('dns_failed', true, `the name servers failed: ${code}`);
  if (TRANSIENT_CODES.has(code) || message === 'socket hang up') {
    return new PreviewFetchError('connection_failed', true, `${code || 'connection'}: ${message}`);
  }
  if (/CERT|SSL|TLS/.test(code)) return new PreviewFetchError('tls_error', false, `${code}: ${message}`);
  if (code.startsWith('Z_') || code === 'ERR_BROTLI_DECOMPRESSION_FAILED' || /incorrect header check/.test(message)) {
    return new PreviewFetchError('bad_encoding', false, `the body could not be decompressed: ${message}`);
  }
  if (code.startsWith('HPE_')) return new PreviewFetchError('bad_response', false, `malformed HTTP response: ${code}`);
  return new PreviewFetchError('fetch_failed', true, `${code || 'error'}: ${message}`);
}
