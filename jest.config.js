// @ts-check
/** Tests run against sources (ts-jest); `tsc -b` builds dist/ for running the services. */
const shared = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.check.json', diagnostics: false }],
    // ESM-only dependencies (cookie@2, used by fastify's inject) compiled to CommonJS:
    // Jest cannot require ESM on Node 20.
    '^.+/node_modules/cookie/.+\\.js$': [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' }, diagnostics: false },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!cookie/)'],
  moduleNameMapper: {
    '^@shortlink/service-(.*)$': '<rootDir>/services/$1/src/app.ts',
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
