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
}
