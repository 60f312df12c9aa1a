import { canonicalClientAddress } from './client-address';
import { twoGenerations } from './two-generations';
import type { CountryOf } from './country';
import { visitorHash } from './visitor-hash';

/** What a click's event says of its client address; the address itself stops in the redirector. */
export interface AddressFacts {
  visitorHash: string;
  country: string;
}

export type AddressFactsOf = (ip: string) => AddressFacts;

export interface AddressFactsOptions {
  visitorSecret: string;
  countryOf: CountryOf;
  /** At least this many of the addresses seen last are remembered, at most twice as many. */
  remember?: number;
}

/** Enough for a few minutes of a busy redirector's distinct visitors; about 15 MB at most. */
export const REMEMBERED_ADDRESSES = 32_768;
/** Longer than any address written with a port or a zone: a forged header is worked out each time, never kept. */
const LONGEST_REMEMBERED = 64;

/**
 * An address's visitor hash and country, worked out once while the address is
 * remembered. Both depend on the address alone (the secret is the process's),
 * and a visitor seldom clicks once: the HMAC (a native call, about 2 µs) and
 * the country lookup are the largest costs of a click's event. The address
 * is made canonical first, so one client
 * is one visitor however its address was written.
 */
export function addressFacts({ visitorSecret, countryOf, remember = REMEMBERED_ADDRESSES }: AddressFactsOptions) {
  const remembered = twoGenerations<AddressFacts>(remember);
  const workOut = (raw: string): AddressFacts => {
    const ip = canonicalClientAddress(raw);
    return { visitorHash: visitorHash(visitorSecret, ip), country: countryOf(ip) };
  };
  return (raw: string): AddressFacts => {
    if (raw.length > LONGEST_REMEMBERED) return workOut(raw);
    let facts = remembered.get(raw);
    if (facts === undefined) {
      facts = workOut(raw);
      remembered.set(raw, facts);
    }
    return facts;
  };
}
