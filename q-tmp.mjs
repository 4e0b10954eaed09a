import { openPglite } from './dist/subgraphs/platform/db.js';
const db = await openPglite(process.argv[2]);
console.log(await db.query(`SELECT max((ctid::text::point)[0])::int AS max_page, min((ctid::text::point)[0])::int AS min_page FROM analysis_snapshots`));
const r = await db.query(`SELECT ((ctid::text::point)[0]::int / 2000) AS bucket, count(DISTINCT (ctid::text::point)[0])::int AS pages FROM analysis_snapshots GROUP BY 1 ORDER BY 1`);
console.log(r.map(x => `${x.bucket}:${x.pages}`).join(' '));
await db.close();
