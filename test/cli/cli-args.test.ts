import { describe, expect, it, vi } from 'vitest';
import { parseCommandLine, UsageError } from '../../src/cli/args.js';
import { helpOf } from '../../src/cli/command.js';
import { COMMANDS, runCli } from '../../src/cli/index.js';

// The command line as node:util parseArgs reads it from each command's declaration. No database:
// a usage error is found before the database is opened.

const command = (name: string) => COMMANDS.find((c) => c.name === name)!;

/** The UsageError a command line raises (fails the test when it parses). */
function usageError(name: string, argv: string[]): UsageError {
  try {
    parseCommandLine(command(name), argv);
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error(`${name} ${argv.join(' ')} parsed`);
}

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const open = vi.fn(async () => {
    throw new Error('the database must not be opened');
  });
  try {
    const code = await runCli(argv, open);
    return { code, stdout: out.join('\n'), stderr: err.join('\n'), opened: open.mock.calls.length > 0 };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('every registered command declares its command line', () => {
  it.each(COMMANDS.map((c) => [c.name]))('%s refuses an unknown option with exit 2, before opening the database', async (name) => {
    const res = await run([name, '--no-such-option']);
    expect(res).toMatchObject({ code: 2, opened: false, stdout: '' });
    expect(res.stderr).toContain('error: unknown option --no-such-option');
    expect(res.stderr).toContain(`usage: taquilla ${name}`);
    const short = await run([name, '-Z']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('unknown option -Z');
  });

  it.each(COMMANDS.map((c) => [c.name]))('%s --help lists every declared option and positional, exit 0', async (name) => {
    const c = command(name);
    for (const flag of ['--help', '-h']) {
      const res = await run([name, flag]);
      expect(res).toMatchObject({ code: 0, opened: false, stdout: helpOf(c) });
      expect(res.stdout).toContain(`usage: taquilla ${name}`);
      for (const option of Object.keys(c.options)) expect(res.stdout).toContain(`--${option}`);
      for (const p of c.positionals ?? []) expect(res.stdout).toContain(`<${p.name}>`);
    }
  });

  it('no command declares --help itself (every command gets it from the runner)', () => {
    for (const c of COMMANDS) expect(Object.keys(c.options)).not.toContain('help');
  });
});

describe('flag forms', () => {
  const spaced = ['--slug', 'partner', '--name', 'Partner X', '--mode', 'D', '--organiser-id', '7', '--cart-ttl', '600', '--lang', 'en', '--events', '3,4'];
  const joined = ['--slug=partner', '--name=Partner X', '--mode=D', '--organiser-id=7', '--cart-ttl=600', '--lang=en', '--events=3,4'];

  it('--x=1 and --x 1 give the same values, typed by the declaration', () => {
    const a = parseCommandLine(command('channels:create'), spaced);
    const b = parseCommandLine(command('channels:create'), joined);
    expect(a).toEqual(b);
    expect(a.input.values).toEqual({ slug: 'partner', name: 'Partner X', mode: 'D', 'organiser-id': 7, 'cart-ttl': 600, lang: 'en', events: '3,4' });
  });

  it('catalogue:import --json file.json: the file is the positional, --json a flag, in either order', () => {
    for (const argv of [['--json', 'file.json'], ['file.json', '--json']]) {
      expect(parseCommandLine(command('catalogue:import'), argv).input).toEqual({ values: { json: true }, positionals: ['file.json'] });
    }
  });

  it('a value starting with "-" needs the = form', () => {
    expect(usageError('orders:refund', ['TQ-1', '--reason', '-x']).message).toBe('--reason needs a value');
    expect(parseCommandLine(command('orders:refund'), ['TQ-1', '--reason=-x']).input.values).toEqual({ reason: '-x' });
  });
});

describe('malformed command lines are usage errors that name the option', () => {
  it.each([
    ['keys:generate', [], '--channel is required'],
    ['keys:generate', ['--channel'], '--channel needs a value'],
    ['keys:generate', ['--channel='], '--channel needs a value'],
    ['keys:generate', ['--channel', 'a', '--server=yes'], '--server takes no value'],
    ['keys:generate', ['--channel', 'a', 'extra'], 'unexpected argument "extra"'],
    ['keys:revoke', ['--channel', 'a', '--key-id', 'x'], '--key-id must be a whole number >= 1 (got "x")'],
    ['keys:revoke', ['--channel', 'a', '--key-id', '1.5'], '--key-id must be a whole number >= 1 (got "1.5")'],
    ['keys:revoke', ['--channel', 'a', '--key-id', '0'], '--key-id must be a whole number >= 1 (got "0")'],
    ['catalogue:import', [], '<file.json> is required'],
    ['catalogue:import', ['a.json', 'b.json'], 'catalogue:import takes <file.json>, not 2 arguments'],
    ['orders:refund', ['TQ-1'], '--reason is required'],
    ['orders:reserve', ['--channel=a', '--items=1-2', '--name=A', '--surname=B', '--email=a@b.es'], '--items must be <session_seat_id>:<rate_id> pairs'],
    ['promoter:create', ['--email=a@b.es', '--organiser-id=abc'], '--organiser-id must be a whole number >= 1 (got "abc")'],
    ['channels:create', ['--slug=a', '--name=A', '--mode=A', '--organiser-id=1', '--lang=fr'], '--lang must be one of'],
    ['channels:create', ['--slug=a', '--name=A', '--mode=A', '--organiser-id=1', '--events=1,x'], '--events must be all or a comma-separated list'],
  ])('%s %j', (name, argv, message) => {
    expect(usageError(name, argv).message).toContain(message);
  });

  it('a value that breaks its rule is a field error keyed by the option, the envelope\'s shape', () => {
    const err = usageError('channels:create', ['--slug=Bad Slug', '--name=A', '--mode=A', '--organiser-id=1', '--cart-ttl=10']);
    expect(err.fields).toEqual({
      '--slug': ['must be 1 to 63 of a-z, 0-9 and "-", starting with a letter or digit (got "Bad Slug")'],
      '--cart-ttl': ['must be a whole number >= 60 (got "10")'],
    });
  });

  it('the runner prints a usage error with the usage line and exit 2, without opening the database', async () => {
    const res = await run(['keys:revoke', '--channel', 'a', '--key-id=x']);
    expect(res).toMatchObject({ code: 2, opened: false });
    expect(res.stderr).toBe('error: --key-id must be a whole number >= 1 (got "x")\nusage: taquilla keys:revoke --channel <slug> --key-id <id> [--server]');
  });
});
