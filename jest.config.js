/** Root jest config: one run covers every package and service. */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  transform: { "^.+\\.ts$": ["@swc/jest", { jsc: { target: "es2022", parser: { syntax: "typescript" } }, module: { type: "commonjs" } }] },
  testMatch: ["<rootDir>/packages/*/src/**/*.test.ts", "<rootDir>/packages/*/test/**/*.test.ts", "<rootDir>/services/*/test/**/*.test.ts", "<rootDir>/services/*/src/**/*.test.ts", "<rootDir>/test/deploy/**/*.test.ts", "<rootDir>/test/e2e/**/*.test.ts", "<rootDir>/test/security/**/*.test.ts", "<rootDir>/test/ha/**/*.test.ts", "<rootDir>/test/lint/**/*.test.ts", "<rootDir>/bench/**/*.test.ts", "<rootDir>/scripts/**/*.test.ts"],
  moduleFileExtensions: ["ts", "js", "json", "cjs"],
  testTimeout: 60000,
  maxWorkers: 2,
};
