import { canonicalClientAddress } from './clicks/client-address';
import type { CountryOf } from './clicks/country';
import { twoGenerations } from './clicks/two-generations';

/** Addresses whose country is remembered on the redirect thread: at least this many, at most twice as many. */
export const REMEMBERED_COUNTRIES = 16_384;
/** Longer than any address written with a port or a zone: a forged one is looked up each time, never kept. */
const LONGEST_REMEMBERED = 64;

/**
 * The country of a client address for a link's country rule, on the redirect thread. A GeoIP lookup costs about a
 * microsecond, a whole redirect's budget for rules (docs/decisions/0077), and a visitor seldom comes once: so only an
 * address's first visit pays it, as the click worker's address facts do. The database is loaded at the first country
 * rule reached, so a redirector whose links have none never holds it on this thread.
 */
export function rememberedCountries(load: () => CountryOf, remember = REMEMBERED_COUNTRIES): CountryOf {
  const remembered = twoGenerations<string>(remember);
  let lookup: CountryOf | undefined;
  const workOut = (raw: string) => (lookup ??= load())(canonicalClientAddress(raw));
  return (raw) => {
    if (raw.length > LONGEST_REMEMBERED) return workOut(raw);
    let country = remembered.get(raw);
    if (country === undefined) {
      country = workOut(raw);
      remembered.set(raw, country);
    }
    return country;
  };
}
