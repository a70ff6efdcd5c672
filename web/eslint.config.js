import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import reactHooks from 'eslint-plugin-react-hooks';
import reactRefresh from 'eslint-plugin-react-refresh';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TOAST_IMPORT = {
  name: 'react-toastify',
  message: "Use 'react-toastify/unstyled' (or '@/lib/notify'): the main entry injects a <style> the CSP blocks.",
};

/** no-restricted-imports: the toast entry everywhere, plus the given patterns. */
const restrictImports = (...patterns) => ['error', { paths: [TOAST_IMPORT], patterns }];

const FEATURES = readdirSync(new URL('./src/features/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** Folder levels inside a feature with a rule of their own; deeper files may not climb at all. */
const FEATURE_DEPTH = 4;

/**
 * Features do not import each other (shared code goes to lib/, components/
 * or types/; what joins two features is composed in app/). One config per
 * feature and folder depth: a relative import that climbs out of the
 * feature needs one '../' more than the file's depth inside it.
 */
function featureBoundaries(feature) {
  const crossFeature = {
    group: FEATURES.filter((name) => name !== feature).flatMap((name) => [`@/features/${name}`, `@/features/${name}/**`]),
    message: `Features do not import each other (this is '${feature}'): share through lib/, components/ or types/, or compose in app/.`,
  };
  const leaving = (regex) => ({
    regex,
    message: `Relative imports stay inside the feature '${feature}': shared code is '@/lib', '@/components' or '@/types', and other features are off limits.`,
  });
  const levels = Array.from({ length: FEATURE_DEPTH + 1 }, (_, depth) => ({
    files: [`src/features/${feature}/${'*/'.repeat(depth)}*.{ts,tsx}`],
    rules: { 'no-restricted-imports': restrictImports(crossFeature, leaving(`^(\\.\\./){${depth + 1}}`)) },
  }));
  const deeper = {
    files: [`src/features/${feature}/${'*/'.repeat(FEATURE_DEPTH + 1)}**/*.{ts,tsx}`],
    rules: { 'no-restricted-imports': restrictImports(crossFeature, leaving('^\\.\\./')) },
  };
  return [...levels, deeper];
}

const SHARED_CODE_RULE = {
  message: 'Shared code (lib/, components/, types/) serves features and app/; it never imports them.',
};

export default defineConfig([
  globalIgnores(['dist', 'node_modules', 'test-results', 'playwright-report']),
  {
    files: ['**/*.{ts,tsx}'],
    extends: [
      js.configs.recommended,
      tseslint.configs.recommended,
      reactHooks.configs.flat.recommended,
      reactRefresh.configs.vite,
      jsxA11y.flatConfigs.recommended,
    ],
    languageOptions: {
      ecmaVersion: 2023,
      globals: globals.browser,
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-imports': restrictImports(),
    },
  },
  ...FEATURES.flatMap(featureBoundaries),
  {
    files: ['src/lib/**/*.{ts,tsx}', 'src/components/**/*.{ts,tsx}', 'src/types/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': restrictImports(
        { group: ['@/features', '@/features/**', '@/app', '@/app/**'], ...SHARED_CODE_RULE },
        { regex: '^(\\.\\./)+(features|app)(/|$)', ...SHARED_CODE_RULE },
      ),
    },
  },
  {
    files: ['vite.config.ts', 'playwright.config.ts', 'e2e/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.mjs', 'eslint.config.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['scripts/**/*.mjs', 'eslint.config.js'],
    extends: [js.configs.recommended],
  },
]);
