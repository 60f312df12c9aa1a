import { randomBytes } from 'node:crypto';

/**
 * A click's event id, fixed at capture so that every resend of it is the same event: a UUIDv7 (RFC 9562, section 6.2,
 * method 1) of the click's instant, this process's 42 random bits drawn at start and a 32-bit counter of its captured
 * clicks. The redirect thread takes only the counter, a number, and the id is written where the event is built, so the
 * redirect thread neither draws nor posts a string for it; and a link's click ids sort by time.
 */
export interface ClickEventIds {
  /** This process's random bits, written as the id's last three groups are, up to the counter. */
  readonly prefix: string;
  /** The counter of the next click captured. */
  readonly next: () => number;
}

/** `from`: where the counter starts (0; tests start it near its wrap). */
export function clickEventIds(random: (size: number) => Buffer = randomBytes, from = 0): ClickEventIds {
  const hex = random(6).toString('hex');
  // Version 7; then the variant's two bits (10) and two random ones; 42 random bits in all.
  const variant = (0b1000 | (parseInt(hex[3]!, 16) & 0b11)).toString(16);
  const prefix = `7${hex.slice(0, 3)}-${variant}${hex.slice(4, 7)}-${hex.slice(7, 11)}`;
  // After 2^32 clicks (five days at 10,000 a second) it wraps: the instant keeps the ids apart.
  let counter = from >>> 0;
  return {
    prefix,
    next: () => {
      const sequence = counter;
      counter = (counter + 1) >>> 0;
      return sequence;
    },
  };
}

/** The event id of the click captured at `clickedAt` (ms since the epoch) with counter `sequence`. */
export function clickEventId(prefix: string, clickedAt: number, sequence: number): string {
  const time = clickedAt.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-${prefix}${sequence.toString(16).padStart(8, '0')}`;
}
