import { readFileSync } from 'node:fs';
import { Reader, type Response } from 'maxmind';
import { isPublicAddress } from './public-address';

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

/**
 * ISO 3166-1 alpha-2 codes only; anything else, or no answer, is `XX`, and so
 * is every address no visitor on the public internet has (private, loopback,
 * documentation, reserved …), whatever the database says of its block.
 */
export function countryFrom(lookup: (ip: string) => { country_code?: string } | null): CountryOf {
  return (ip) => {
    if (!isPublicAddress(ip)) return 'XX';
    try {
      const code = lookup(ip)?.country_code;
      return code && /^[A-Z]{2}$/.test(code) ? code : 'XX';
    } catch {
      return 'XX';
    }
  };
}
