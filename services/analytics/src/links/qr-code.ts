import QRCode from 'qrcode';
import { excerpt, type HttpError } from '@shortlink/http';
import { INVALID_QR_FORMAT, INVALID_QR_MARGIN, INVALID_QR_SIZE, QR_LIMITS } from '../analytics-errors';

export type QrFormat = 'svg' | 'png';

export interface QrRequest {
  format: QrFormat;
  /** The image's width and height in pixels, quiet zone included. */
  size: number;
  /** The quiet zone around the code, in modules (the QR standard asks for 4). */
  margin: number;
}

export type QrRequestResult = { ok: true; request: QrRequest } | { ok: false; error: HttpError };

const WHOLE_NUMBER = /^(0|[1-9][0-9]{0,4})$/;

const received = (value: unknown): string =>
  typeof value === 'string' ? `was ${excerpt(value)}` : 'was given more than once';

const wholeIn = (value: unknown, min: number, max: number): number | null =>
  typeof value === 'string' && WHOLE_NUMBER.test(value) && Number(value) >= min && Number(value) <= max
    ? Number(value)
    : null;

/** The QR route's query, checked whole: each parameter at most once, unknown ones ignored (as the list's). */
export function parseQrRequest(query: Record<string, unknown>): QrRequestResult {
  const fail = (error: HttpError): QrRequestResult => ({ ok: false, error });
  const { format = 'svg', size, margin } = query;
  if (format !== 'svg' && format !== 'png')
    return fail(INVALID_QR_FORMAT.withDetail(`format ${received(format)}; it must be svg or png.`, 'format'));
  const request: QrRequest = { format, size: QR_LIMITS.defaultSize, margin: QR_LIMITS.defaultMargin };
  if (size !== undefined) {
    const pixels = wholeIn(size, QR_LIMITS.minSize, QR_LIMITS.maxSize);
    if (pixels === null)
      return fail(
        INVALID_QR_SIZE.withDetail(
          `size ${received(size)}; it must be from ${QR_LIMITS.minSize} to ${QR_LIMITS.maxSize} pixels.`,
          'size',
        ),
      );
    request.size = pixels;
  }
  if (margin !== undefined) {
    const modules = wholeIn(margin, 0, QR_LIMITS.maxMargin);
    if (modules === null)
      return fail(
        INVALID_QR_MARGIN.withDetail(
          `margin ${received(margin)}; it must be from 0 to ${QR_LIMITS.maxMargin} modules.`,
          'margin',
        ),
      );
    request.margin = modules;
  }
  return { ok: true, request };
}

/**
 * The QR code of `text` (error correction M: readable with about 15 % of it
 * damaged or covered), black on white, `size` pixels square. The SVG is the
 * library's own: paths only, no script and nothing fetched.
 */
export async function renderQrCode(text: string, { format, size, margin }: QrRequest): Promise<string | Buffer> {
  const options = { errorCorrectionLevel: 'M', margin, width: size } as const;
  return format === 'svg'
    ? QRCode.toString(text, { ...options, type: 'svg' })
    : QRCode.toBuffer(text, { ...options, type: 'png' });
}
