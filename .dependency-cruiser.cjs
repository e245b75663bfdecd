/**
 * The import rules of docs/architecture.md ("Layers and folders"), checked by `npm run lint:deps` and by
 * `npm test` (scripts/test.sh, after the type check). Every allowed exception is an edge written below
 * with its reason, and the same edge is in docs/architecture.md: change both together.
 *
 * Type-only imports count: `import type` ties two modules as surely as a value does for a reader.
 */

/** Feature folders, and the other features each may import (docs/architecture.md's table). */
const FEATURE_EDGES = {
  // a roll belongs to a room, is drawn with a theme's dice from a ledger (fairness), is made by a user
  rolls: ['rooms', 'themes', 'users', 'fairness'],
  // participants are users
  rooms: ['users'],
  // a roll's values are drawn from its room's (or user's) ledger; who may read a room's ledger is who may
  // read its rolls (rooms access)
  fairness: ['rooms'],
  // themes are owned and shared by users
  themes: ['users'],
  users: [],
  // statistics read rolls by the rolls' own visibility rule (policy, store SQL) and die resolver, in a room
  // the reader may open (rooms access), with the theme's latest dice
  stats: ['rolls', 'rooms', 'themes'],
  // the account pages sign users in, and are Preact pages served by the board's bundler in the pages' shell
  accounts: ['users', 'board', 'pages'],
  // device login: a signed-in account (sessions, CSRF) approves a code that issues a user's key; its page
  // is bundled like the other pages (pages/bundle.ts)
  activation: ['accounts', 'users', 'board', 'pages'],
  // the page shell reads the session and CSRF token of the account pages; the room page's script and the
  // stream address's handover page are bundled and served by the board's bundler and page
  pages: ['accounts', 'board'],
  // the board draws a theme's dice within the themes' own asset and shader limits (themes/assetLimits.ts,
  // themes/manifest/limits.ts): one definition of what a theme may cost, on the server and in the browser
  board: ['pages', 'themes'],
  // a webhook belongs to a user and may follow a room it may read; its deliveries carry rolls and rooms as
  // their own presenters show them to the webhook's owner (one presenter per resource)
  webhooks: ['rolls', 'rooms', 'users'],
};
const FEATURES = Object.keys(FEATURE_EDGES);
const ANY_FEATURE = `^src/(${FEATURES.join('|')})/`;

/**
 * The wiring: the only modules that may import src/realtime/ from outside it. main.ts, server.ts (the
 * HTTP + Socket.IO + Redis wiring) and app.ts (mounts POST /broadcasting/auth); openapi/ documents that
 * route from its own joi schema, as it does every route's; metrics/realtime.ts attaches the Prometheus
 * instruments to the broadcaster and namespaces.
 */
const REALTIME_WIRING = ['^src/realtime/', '^src/(main|server|app)\\.ts$', '^src/openapi/', '^src/metrics/realtime\\.ts$'];

/**
 * The ground: modules every layer may import, which import only each other. lib/appContext.ts, where a
 * server's state lives, imports nothing of the project: the bus (events/) keeps its listeners there.
 */
const GROUND = [
  '^src/(config|quotaConfig|hostsConfig|trustProxyConfig|webhookConfig|errors|logger)\\.ts$',
  '^src/lib/appContext\\.ts$',
  '^src/events/',
  '^src/client/',
  '^src/dice/',
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular-dice',
      severity: 'error',
      comment: 'src/dice runs one way (its order is in src/dice/index.ts): no module imports one that imports it back, type imports included.',
      from: { path: '^src/dice/' },
      to: { circular: true },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No module imports one that imports it back at run time. Outside src/dice a circle of which one link is a type import ' +
        '(Sequelize models typing their associations both ways, migrations typing their context) is allowed: it orders nothing at load.',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'dice-is-pure',
      severity: 'error',
      comment: 'The dice engine imports nothing outside src/dice (no I/O, no database, no HTTP).',
      from: { path: '^src/dice/' },
      to: { path: '^src/', pathNot: '^src/dice/' },
    },
    {
      name: 'ground-imports-ground',
      severity: 'error',
      comment:
        'config, errors, logger, events, client and dice sit under every layer: they import only each other. ' +
        'themes/defaultTheme.ts, constants that import nothing, is read by config to check UNKNOWN_THEME.',
      from: { path: GROUND },
      to: { path: '^src/', pathNot: [...GROUND, '^src/themes/defaultTheme\\.ts$'] },
    },
    {
      name: 'client-imports-nothing-of-the-server',
      severity: 'error',
      comment: 'src/client is the typed client integrations use: it imports nothing outside itself.',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/client/' },
    },
    {
      name: 'http-imports-no-feature',
      severity: 'error',
      comment:
        'src/http is the middleware every feature builds on: it imports no feature, nor realtime, openapi, outbox or the wiring. ' +
        'What it needs of them is passed in (app.ts hands the route list the OpenAPI paths).',
      from: { path: '^src/http/' },
      to: { path: [ANY_FEATURE, '^src/(realtime|openapi|outbox)/', '^src/(main|server|app)\\.ts$'] },
    },
    {
      name: 'realtime-only-from-the-wiring',
      severity: 'error',
      comment: 'Nothing imports src/realtime but the wiring (REALTIME_WIRING in this file).',
      from: { pathNot: REALTIME_WIRING },
      to: { path: '^src/realtime/' },
    },
    ...FEATURES.map((feature) => ({
      name: `feature-${feature}-imports-only-its-documented-features`,
      severity: 'error',
      comment: `src/${feature} may import ${FEATURE_EDGES[feature].join(', ') || 'no other feature'} (docs/architecture.md).`,
      from: { path: `^src/${feature}/` },
      to: { path: ANY_FEATURE, pathNot: `^src/(${[feature, ...FEATURE_EDGES[feature]].join('|')})/` },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // `import type` is a dependency too (see above).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.d\\.ts$' },
  },
};
