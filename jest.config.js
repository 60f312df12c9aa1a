// @ts-check
/** Tests run against sources (ts-jest); `tsc -b` builds dist/ for running the services. */
/** The preview worker's HTML parser and address filter; the Parquet reader of the export's tests. */
const ESM_ONLY =
  '(hyparquet|htmlparser2|domhandler|domutils|domelementtype|dom-serializer|entities|request-filtering-agent)';

const shared = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.check.json', diagnostics: false }],
    // ESM-only dependencies compiled to CommonJS: Node 20 can require() them, Jest's
    // module loader cannot.
    [`^.+/node_modules/${ESM_ONLY}/.+\\.js$`]: [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' }, diagnostics: false },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!${ESM_ONLY}/)`],
  moduleNameMapper: {
    '^@shortlink/service-(.*)$': '<rootDir>/services/$1/src/index.ts',
    '^@shortlink/standalone$': '<rootDir>/deploy/standalone/src/index.ts',
    '^@shortlink/fleet$': '<rootDir>/deploy/fleet/src/index.ts',
    '^@shortlink/(.*)$': '<rootDir>/libs/$1/src/index.ts',
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/**/*.test.ts'],
      testPathIgnorePatterns: [...shared.testPathIgnorePatterns, '\\.int\\.test\\.ts$'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/**/*.int.test.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
      slowTestThreshold: 30,
    },
  ],
  // Integration tests wait on real brokers and databases; unit tests finish far sooner.
  testTimeout: 60_000,
};
