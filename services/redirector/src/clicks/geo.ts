import { readFileSync } from 'node:fs';
import { Reader, type Response } from 'maxmind';
import { countryFrom, type CountryOf } from './enrich';

/**
 * IP → country from the geo-whois-asn-country database (CC0), shipped through
 * npm and loaded once into memory at start-up: no lookup touches the network.
 */
export function loadCountryLookup(): CountryOf {
  const path = require.resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb');
  const reader = new Reader<Response & { country_code?: string }>(readFileSync(path));
  return countryFrom((ip) => reader.get(ip));
}
