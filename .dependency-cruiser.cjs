/**
 * The layers of src/, top to bottom (docs/architecture.md): a folder may import only from folders
 * below it, and no module may import itself back through others. Checked by `npm run lint`.
 */
const LAYERS = [
  'cli',
  'service',
  'pipeline',
  'web',
  'server',
  'sync',
  'publish',
  'history',
  'fetch',
  'registry',
  'inputs',
  'barcodes',
  'release',
  'dataset',
  'source',
  'storage|mail|gs1',
  'config',
  'util',
];

/** For each layer, a rule that it imports nothing from the layers above it. */
const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-from-${layer.split('|')[0]}`,
  comment: `${layer} sits below ${LAYERS.slice(0, i + 1).join(', ')}: it may not import from them`,
  severity: 'error',
  from: { path: `^src/(${layer})/` },
  to: { path: `^src/(${LAYERS.slice(0, i + 1).join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A module that imports itself back through others: one of them is in the wrong place.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: 'errors-at-the-bottom',
      comment: 'src/errors.ts is the catalogue every layer reports with: it imports nothing of the project.',
      severity: 'error',
      from: { path: '^src/errors\\.ts$' },
      to: { path: '^src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js'] },
  },
};
