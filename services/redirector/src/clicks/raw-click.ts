/** What the redirect handler captures; everything else is derived off the response path. */
export interface RawClick {
  /** Fixed when the click is captured, so every resend of it is the same event. */
  eventId: string;
  linkId: string;
  accountId: string;
  slug: string;
  clickedAt: number;
  ip: string;
  userAgent: string;
  referer: string | undefined;
}
