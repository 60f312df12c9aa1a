import { readFileSync } from 'node:fs';
import { Reader, type Response } from 'maxmind';

/**
 * IP → country from the geo-whois-asn-country database (CC0), shipped through
 * npm and loaded once into memory at start-up: no lookup touches the network.
 */
export function loadCountryLookup(): CountryOf {
  const path = require.resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
  const reader = new Reader<Response & { country_code?: string }>(readFileSync(path));
  return countryFrom((ip) => reader.get(ip));
}

export type CountryOf = (ip: string) => string;

/** ISO 3166-1 alpha-2 codes only; anything else, or no answer, is `XX`. */
export function countryFrom(lookup: (ip: string) => { country_code?: string } | null): CountryOf {
  return (ip) => {
    try {
      const code = lookup(ip)?.country_code;
      return code && /^[A-Z]{2}$/.test(code) ? code : 'XX';
    } catch {
      return 'XX';
    }
  };
}
