// Jest runs the panel's pure logic (ext/src modules with no JupyterLab imports) under ts-jest.
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/ext/test'],
  testRegex: '\\.test\\.ts$',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/ext/test/tsconfig.json' }]
  }
};
