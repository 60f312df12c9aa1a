import { decodeParams, declaredParamTypes, ParamError } from './params';

describe('declaredParamTypes', () => {
  it('reads names and types, including parameterised types', () => {
    const types = declaredParamTypes(
      "SELECT {slug:String}, {from:DateTime64(3, 'UTC')}, {ids: Array(UUID)}, {m:Map(String, UInt8)}",
    );
    expect(Object.fromEntries(types)).toEqual({
      slug: 'String',
      from: "DateTime64(3, 'UTC')",
      ids: 'Array(UUID)',
      m: 'Map(String, UInt8)',
    });
  });
});

describe('decodeParams', () => {
  it('unescapes scalar text the way ClickHouse reads it', () => {
    // What @clickhouse/client sends for the value "it's<TAB>tab\\".
    const decoded = decodeParams('SELECT {s:String}', { s: "it\\'s\\ttab\\\\" });
    expect(decoded.s).toBe("it's\ttab\\");
  });

  it('keeps the quoting of composite literals', () => {
    const decoded = decodeParams('SELECT {a:Array(String)}', { a: "['x','y z']" });
    expect(decoded.a).toBe("['x','y z']");
  });

  it('refuses escapes it cannot carry through composite values', () => {
    expect(() => decodeParams('SELECT {a:Array(String)}', { a: "['it\\'s']" })).toThrow(ParamError);
  });
});
