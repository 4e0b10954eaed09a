/**
 * Every domain's migrations in version order: the one list the start-up, the CLI and the tests apply.
 * It belongs to the composition root: platform/migrations.ts applies whatever list it is given and
 * knows no domain.
 */
import { allocationMigrations } from '../subgraphs/allocation/migrations.js';
import { analysisMigrations } from '../subgraphs/analysis/migrations.js';
import { orderMigrations, type Migration } from '../subgraphs/platform/migrations.js';

export const ALL_MIGRATIONS: Migration[] = orderMigrations([analysisMigrations, allocationMigrations]);
