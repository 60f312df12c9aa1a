/** What the redirect handler captures; everything else is derived off the response path. */
export interface RawClick {
  /** The click's counter, fixed when it is captured: with `clickedAt`, its event id (click-event-id.ts). */
  sequence: number;
  linkId: string;
  accountId: string;
  slug: string;
  clickedAt: number;
  ip: string;
  userAgent: string;
  referer: string | undefined;
  /** A scan of the link's QR code (the short URL carried the `qr=1` marker), not a followed link. */
  scanned: boolean;
  /** The position of the link's rule that chose the destination; -1 (or absent): none. */
  rule?: number;
  /** The position of the link's variant the visit went to; -1 (or absent): none. */
  variant?: number;
}
