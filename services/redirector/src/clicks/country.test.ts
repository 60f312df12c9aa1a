import { countryFrom, loadCountryLookup } from './country';

describe('country lookup', () => {
  const countryOf = loadCountryLookup();

  it('answers ISO 3166-1 alpha-2 codes from the shipped database, XX when unknown', () => {
    expect(countryOf('8.8.8.8')).toBe('US');
    expect(countryOf('81.2.69.142')).toBe('GB');
    expect(countryOf('127.0.0.1')).toBe('XX');
    expect(countryOf('not an ip')).toBe('XX');
    expect(countryOf('2a00:1450:4001:80b::200e')).toMatch(/^[A-Z]{2}$/);
  });

  it('never passes on a code that is not two capital letters', () => {
    expect(countryFrom(() => ({ country_code: 'EU1' }))('1.1.1.1')).toBe('XX');
    expect(countryFrom(() => null)('1.1.1.1')).toBe('XX');
  });
});
