import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
const url = process.argv[2]!;
const db = await openDatabase({ url, poolSize: 1 });
console.log((await migrate(db)).length, 'applied');
await db.close();
