import { isUtf8 } from 'node:buffer';

/** A character Node could only have made from a byte of 0x80 or more. */
const HIGH_BYTE = /[\u0080-\u00ff]/;

/**
 * A request header's value as the text its client wrote. Node hands header
 * values over a byte a character (Latin-1), so a user agent sent in UTF-8
 * (`Mozilla/5.0 … Büro`) would reach the clicks topic as `BÃ¼ro`. Bytes that
 * are UTF-8 are read as UTF-8; anything else stays as Node read it. ASCII,
 * which is nearly every value, costs one test.
 */
export function headerText(value: string): string {
  if (!HIGH_BYTE.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
}
