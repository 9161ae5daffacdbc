// `npm run lint` (part of `npm test`): the rules that catch what the type checker lets through.
import tseslint from 'typescript-eslint';

export default tseslint.config({
  files: ['src/**/*.ts', 'projections/**/*.ts', 'scripts/**/*.ts', 'test/**/*.ts'],
  languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  plugins: { '@typescript-eslint': tseslint.plugin },
  linterOptions: { reportUnusedDisableDirectives: 'error' },
  rules: {
    // a promise nobody awaits or catches: its failure is an unhandled rejection, its end unobserved
    '@typescript-eslint/no-floating-promises': 'error',
    // a new event type, status or error kind must be decided on wherever its union is switched over
    '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    // type-only imports say so, and vanish at run time
    '@typescript-eslint/consistent-type-imports': 'error',
  },
});
