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

/**
 * Inside a layer, its parts (docs/architecture.md): each folder of the website is one feature, and
 * may use the others listed here only (every one may use the site's frame at src/web/ itself).
 */
const WEB_FEATURES = {
  account: [],
  releases: [],
  // The desk shows submissions' statuses and sign-ups' types as the account pages name them.
  moderation: ['account'],
  // The announced changes page lists what the last releases changed.
  catalogue: ['releases'],
};
const webFeatures = Object.entries(WEB_FEATURES).map(([feature, uses]) => ({
  name: `web-${feature}-apart`,
  comment: `web/${feature} may use ${uses.length ? `web/${uses.join(', web/')} and ` : ''}the site's frame, no other feature of the website`,
  severity: 'error',
  from: { path: `^src/web/${feature}/` },
  to: {
    path: `^src/web/(${Object.keys(WEB_FEATURES)
      .filter((other) => other !== feature && !uses.includes(other))
      .join('|')})/`,
  },
}));

/** The registry's rules are written once over the store port; each engine implements the port on its own. */
const registryParts = [
  {
    name: 'registry-rules-over-the-port',
    comment: 'registry/rules speaks to the store (store.ts), never to an engine',
    severity: 'error',
    from: { path: '^src/registry/rules/' },
    to: { path: '^src/registry/(sqlite|postgres)/' },
  },
  {
    name: 'registry-engines-apart',
    comment: 'the SQLite and PostgreSQL engines do not use each other',
    severity: 'error',
    from: { path: '^src/registry/(sqlite|postgres)/' },
    to: { path: '^src/registry/(sqlite|postgres)/', pathNot: '^src/registry/$1/' },
  },
];

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
    ...webFeatures,
    ...registryParts,
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
