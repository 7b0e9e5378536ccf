import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { DataDirBusyError, lockDataDir } from '../../src/db/data-dir-lock.js';
import { tempFolders } from '../process.js';

// The lock on an embedded database folder (D48), in this process. The process-level behaviour
// (a running service, the command line refused) is in test/server/data-dir-owner.test.ts.

const tempFolder = tempFolders('taquilla-lock-');
const freshFolder = () => path.join(tempFolder(), 'pglite');

/** The pid of a process that has already ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

const writeLock = (folder: string, pid: number, owner = 'service') =>
  fs.writeFileSync(`${folder}.lock`, JSON.stringify({ pid, owner, since: '2020-01-01T00:00:00.000Z' }));

describe('the data folder lock', () => {
  it('is taken once: a second taker is refused, naming the holder and what to do; release frees it', () => {
    const folder = freshFolder();
    const lock = lockDataDir(folder, 'service');
    expect(JSON.parse(fs.readFileSync(`${folder}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, owner: 'service' });

    let refused: unknown;
    try {
      lockDataDir(folder, 'command line');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(DataDirBusyError);
    expect((refused as Error).message).toContain(`a running Taquilla service (pid ${process.pid}`);
    expect((refused as Error).message).toContain('stop the service first');
    expect((refused as Error).message).toContain('admin API (/api/admin/v1)');

    lock.release();
    lock.release();
    expect(fs.existsSync(`${folder}.lock`)).toBe(false);
    lockDataDir(folder, 'command line').release();
  });

  it('refuses while another live process holds it', () => {
    const folder = freshFolder();
    writeLock(folder, process.ppid);
    expect(() => lockDataDir(folder, 'command line')).toThrow(`pid ${process.ppid}`);
    expect(fs.existsSync(`${folder}.lock`)).toBe(true);
  });

  it('takes over a stale lock: its pid has ended, or it is this pid from an earlier life, or it is old and unreadable', () => {
    const folder = freshFolder();
    writeLock(folder, deadPid());
    lockDataDir(folder, 'service').release();

    writeLock(folder, process.pid);
    lockDataDir(folder, 'service').release();

    fs.writeFileSync(`${folder}.lock`, '');
    expect(() => lockDataDir(folder, 'service')).toThrow('another process that is starting');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${folder}.lock`, old, old);
    lockDataDir(folder, 'service').release();
  });

  it('is taken by openDatabase on a PGlite folder before the folder is created, and released on close', async () => {
    const folder = freshFolder();
    writeLock(folder, process.ppid);
    await expect(openDatabase({ pgliteDir: folder, owner: 'command line' })).rejects.toBeInstanceOf(DataDirBusyError);
    expect(fs.existsSync(folder)).toBe(false);

    fs.rmSync(`${folder}.lock`);
    const database = await openDatabase({ pgliteDir: folder, owner: 'command line' });
    expect(JSON.parse(fs.readFileSync(`${folder}.lock`, 'utf8')).owner).toBe('command line');
    await expect(openDatabase({ pgliteDir: folder })).rejects.toThrow('in use by a running Taquilla command line');
    await database.close();
    expect(fs.existsSync(`${folder}.lock`)).toBe(false);
  }, 180_000); // creating a PGlite folder takes half a minute on a loaded machine
});
