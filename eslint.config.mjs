// Lint rules for every TypeScript file in the workspace, with type information from tsconfig.json.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const TESTS = ["**/*.test.ts", "**/test/**/*.ts", "test/**/*.ts", "bench/**/*.ts"];

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "coverage/**", "docs/images/**", "**/*.js", "**/*.cjs", "**/*.mjs", "services/*/bin/**"] },
  {
    files: ["packages/**/*.ts", "services/**/*.ts", "scripts/**/*.ts", "bench/**/*.ts", "test/**/*.ts"],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-explicit-any": "error",
      // Unused names are allowed only when they say so with a leading underscore (positional args, rest omission).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" }],
      // Off: an async function that does not await still turns a throw into a rejection, which the Promise-returning interfaces rely on.
      "@typescript-eslint/require-await": "off",
      // Abort handlers reject with signal.reason, typed any by the lib; every other rejection must be an Error.
      "@typescript-eslint/prefer-promise-reject-errors": ["error", { allowThrowingUnknown: true, allowThrowingAny: true }],
    },
  },
  {
    files: TESTS,
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      // Off in tests: they read parsed JSON bodies (supertest, fetch) whose type is any; the assertions check the shape.
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
    },
  },
);
