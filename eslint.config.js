// typescript-eslint's recommended rules over every JavaScript and TypeScript file of the repository.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'var/', 'test-artifacts/', 'coverage/', 'dist/', '.dist-*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortSignal: 'readonly',
        structuredClone: 'readonly',
        WebAssembly: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
        window: 'readonly',
        document: 'readonly',
      },
    },
    rules: {
      // Prettier wraps code at 140 columns but leaves strings whole: prose and SQL may run longer, nothing else.
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
      // `_` names a value taken out of an object on purpose (`const { barcode: _, ...rest } = row`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { varsIgnorePattern: '^_', argsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  // The product's code says what its values are: no cast that silences the checker, no parameter
  // typed only as "some object" (test files may cast a deliberately wrong value at the code).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        // A named import of zod keeps all of it in the bundle (755 KB with every locale, loaded by
        // every command that parses a value); the namespace keeps the parts the schemas use.
        {
          selector: "ImportDeclaration[source.value='zod'] > :matches(ImportSpecifier, ImportDefaultSpecifier)",
          message: "Import zod as a namespace: import * as z from 'zod'.",
        },
        { selector: 'TSAsExpression > TSNeverKeyword', message: '`as never` hides a type: name the type the value has.' },
        {
          selector: "TSAsExpression > TSAsExpression[typeAnnotation.type='TSUnknownKeyword']",
          message: '`as unknown as` hides a type: parse the value (its schema) or name its type.',
        },
        {
          selector: ':function > Identifier > TSTypeAnnotation > TSObjectKeyword',
          message: 'A parameter typed `object` says nothing: name the fields it needs.',
        },
        {
          selector: ':function > AssignmentPattern > Identifier > TSTypeAnnotation > TSObjectKeyword',
          message: 'A parameter typed `object` says nothing: name the fields it needs.',
        },
      ],
    },
  },
  // Tools that read CommonJS configuration (dependency-cruiser) get it as a CommonJS module.
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' } },
  },
  // The website's one script runs in the browser.
  // bin/tariff.js's second line is sh (the file is a polyglot): one line, whatever its length.
  {
    files: ['bin/tariff.js'],
    rules: { 'max-len': ['error', { code: 140, ignoreStrings: true, ignorePattern: '^":" //# ' }] },
  },
  { files: ['src/web/static/**/*.js'], languageOptions: { globals: { navigator: 'readonly', document: 'readonly', window: 'readonly' } } },
);
