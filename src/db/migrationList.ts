import type { MigrationContext } from './migrate';
import * as m0001 from './migrations/0001-initial-schema';
import * as m0002 from './migrations/0002-default-theme';
import * as m0005 from './migrations/0005-share-request-revocations';
import * as m0006 from './migrations/0006-roll-equation-text';
import * as m0007 from './migrations/0007-roll-value-outcomes';
import * as m0008 from './migrations/0008-api-keys-revoked-at-index';
import * as m0009 from './migrations/0009-outbox';
import * as m0010 from './migrations/0010-roll-external-id-not-unique';
import * as m0011 from './migrations/0011-participant-dice-tray';
import * as m0012 from './migrations/0012-builtin-public-themes';
import * as m0014 from './migrations/0014-accounts-and-sessions';
import * as m0015 from './migrations/0015-activation-codes';
import * as m0016 from './migrations/0016-web-session-keys';
import * as m0017 from './migrations/0017-roll-values-covering-index';
import * as m0018 from './migrations/0018-fairness';
import * as m0019 from './migrations/0019-webhooks';
import * as m0021 from './migrations/0021-webhook-seq';

type Step = (params: { context: MigrationContext }) => Promise<void>;
/** A migration's name (as schema_migrations records it) and its steps. */
export type Migration = readonly [string, { up: Step; down: Step }];

/**
 * Every migration, in the order they apply. A list written out rather than a directory read at start:
 * the built server (dist/main.mjs, scripts/build.mjs) carries them inside its bundle, where there is no
 * directory of TypeScript files to import. The names are the files' names, as schema_migrations has
 * recorded them since the first release. test/ops/build.test.ts fails when a file of migrations/ is
 * missing here.
 */
export const MIGRATIONS: ReadonlyArray<Migration> = [
  ['0001-initial-schema.ts', m0001],
  ['0002-default-theme.ts', m0002],
  ['0005-share-request-revocations.ts', m0005],
  ['0006-roll-equation-text.ts', m0006],
  ['0007-roll-value-outcomes.ts', m0007],
  ['0008-api-keys-revoked-at-index.ts', m0008],
  ['0009-outbox.ts', m0009],
  ['0010-roll-external-id-not-unique.ts', m0010],
  ['0011-participant-dice-tray.ts', m0011],
  ['0012-builtin-public-themes.ts', m0012],
  ['0014-accounts-and-sessions.ts', m0014],
  ['0015-activation-codes.ts', m0015],
  ['0016-web-session-keys.ts', m0016],
  ['0017-roll-values-covering-index.ts', m0017],
  ['0018-fairness.ts', m0018],
  ['0019-webhooks.ts', m0019],
  ['0021-webhook-seq.ts', m0021],
];
