/** Every domain's migrations in version order: the one list the start-up and the CLI apply. */
import { allocationMigrations } from '../allocation/migrations.js';
import { analysisMigrations } from '../analysis/migrations.js';
import { orderMigrations, type Migration } from './migrations.js';

export const ALL_MIGRATIONS: Migration[] = orderMigrations([analysisMigrations, allocationMigrations]);
