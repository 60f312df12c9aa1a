import { randomInt } from 'node:crypto';
import { SLUG_PATTERN } from '@shortlink/events';
import { isReservedSlug } from './reserved-slugs';

export const CUSTOM_SLUG = SLUG_PATTERN;
export const GENERATED_SLUG_LENGTH = 5;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const DIGIT = /[0-9]/;

/** A random source: `randomInt(max)` returns an integer in [0, max). */
export type RandomInt = (max: number) => number;

export const cryptoRandomInt: RandomInt = (max) => randomInt(max);

/**
 * Five characters of [a-z0-9] with at least one digit (so never a dictionary
 * word), drawn uniformly from a cryptographic source by rejection: a draw
 * without a digit, or equal to a reserved word, is thrown away and drawn again.
 */
export function generateSlug(random: RandomInt = cryptoRandomInt): string {
  for (;;) {
    let slug = '';
    for (let i = 0; i < GENERATED_SLUG_LENGTH; i++) slug += ALPHABET[random(ALPHABET.length)];
    if (DIGIT.test(slug) && !isReservedSlug(slug)) return slug;
  }
}
