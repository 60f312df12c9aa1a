import { splitStatements } from './migrate';

describe('splitStatements', () => {
  it('splits on semicolons between statements', () => {
    expect(splitStatements('CREATE TABLE a (x UInt8) ENGINE = Memory;\nSELECT 1;\n')).toEqual([
      'CREATE TABLE a (x UInt8) ENGINE = Memory',
      'SELECT 1',
    ]);
  });

  it('keeps semicolons inside string literals and drops comments', () => {
    const sql = "-- a comment; with a semicolon\nSELECT 'a;b' AS s; /* c; */ SELECT 2";
    expect(splitStatements(sql)).toEqual(["SELECT 'a;b' AS s", 'SELECT 2']);
  });

  it('handles escaped quotes', () => {
    expect(splitStatements("SELECT 'it\\'s; fine'; SELECT 3")).toEqual(["SELECT 'it\\'s; fine'", 'SELECT 3']);
  });

  it('returns nothing for a file of comments', () => {
    expect(splitStatements('-- nothing here\n')).toEqual([]);
  });
});
