import { rememberedCountries } from './remembered-countries';

describe('rememberedCountries', () => {
  it('looks an address up once while it is remembered, loading the database only at the first lookup', () => {
    const asked: string[] = [];
    let loads = 0;
    const countryOf = rememberedCountries(() => {
      loads++;
      return (ip) => {
        asked.push(ip);
        return ip.startsWith('81.') ? 'DE' : 'XX';
      };
    }, 2);
    expect(loads).toBe(0);
    expect(countryOf('81.2.69.160')).toBe('DE');
    expect(countryOf('81.2.69.160')).toBe('DE');
    expect(countryOf('::ffff:81.2.69.160')).toBe('DE');
    expect(loads).toBe(1);
    // The mapped IPv6 form is canonicalised before the lookup, and remembered as written.
    expect(asked).toEqual(['81.2.69.160', '81.2.69.160']);
  });

  it('forgets what two generations no longer hold, and never keeps an overlong text', () => {
    const asked: string[] = [];
    const countryOf = rememberedCountries(() => (ip) => (asked.push(ip), 'XX'), 1);
    countryOf('10.0.0.1');
    countryOf('10.0.0.2');
    countryOf('10.0.0.3');
    countryOf('10.0.0.1');
    const long = `1.2.3.4${' '.repeat(80)}`;
    countryOf(long);
    countryOf(long);
    expect(asked.filter((ip) => ip === '10.0.0.1')).toHaveLength(2);
    expect(asked.filter((ip) => ip.startsWith('1.2.3.4'))).toHaveLength(2);
  });
});
